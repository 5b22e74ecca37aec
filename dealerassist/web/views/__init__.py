"""Blueprints of the dashboard, and what they share: the signed-in user and error replies."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from flask import g, jsonify, redirect, render_template, request, session, url_for

from dealerassist.web.disclosure import Audience
from dealerassist.web.runtime import runtime
from dealerassist.web.security import allowed
from dealerassist.web.users import User, session_key

F = TypeVar("F", bound=Callable[..., Any])


def wants_json() -> bool:
    """API and event-stream callers get JSON errors; people get pages."""
    return (
        request.path.startswith(("/api/", "/stream", "/sign/stream"))
        or request.accept_mimetypes.best == "application/json"
    )


def render_error(status: int, field: str, message: str) -> Any:
    """A 4xx/5xx that names the offending field: JSON for the API, a page for people."""
    if wants_json():
        return jsonify(error=_ERROR_NAMES.get(status, "error"), field=field, message=message), status
    return render_template("error.html", status=status, field=field, message=message), status


_ERROR_NAMES = {
    400: "bad-request",
    401: "not-signed-in",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    409: "refused",
    413: "too-large",
    422: "invalid",
    429: "throttled",
    500: "internal",
    503: "unavailable",
}


SESSION_TOKEN = "sid"


def current_user() -> User | None:
    """The account of the request's session, checked against the server's session list on every
    request: a signed-out, revoked, expired or disabled session is refused at once."""
    if "user" in g:
        return g.user
    token = session.get(SESSION_TOKEN)
    g.user = runtime().users.session_user(token) if isinstance(token, str) else None
    return g.user


def session_owner() -> str:
    """The key of the request's session (what its streams are counted and ended by), or ''."""
    token = session.get(SESSION_TOKEN)
    return session_key(token) if isinstance(token, str) else ""


def requires(permission: str) -> Callable[[F], F]:
    """Only users whose role grants ``permission``; others get a login page or a 403."""

    def wrap(view: F) -> F:
        @functools.wraps(view)
        def inner(*args: Any, **kwargs: Any) -> Any:
            user = current_user()
            if user is None:
                if wants_json():
                    return render_error(401, "session", "sign in first")
                return redirect(url_for("auth.login", next=request.full_path))
            if not allowed(user.role, permission):
                return render_error(403, "role", f"a {user.role} may not do this (needs {permission})")
            return view(*args, **kwargs)

        return inner  # type: ignore[return-value]

    return wrap


def client_address() -> str:
    return request.remote_addr or "-"


def audience(table: str | None = None) -> Audience:
    """What the signed-in user may see of ``table`` (or of every table): see ``disclosure``."""
    user = current_user()
    return Audience(user.role if user is not None else None, table)


def whole_number(raw: str, field: str, *, low: int = 0, high: int = 2**63 - 1) -> int | Any:
    """``raw`` as a whole number in ``low..high``, or the 400 reply naming ``field``.

    Only ASCII digits count (``"²".isdigit()`` is true, but ``int("²")`` fails), and the bound keeps
    SQLite's integers and Python's digit limit out of reach.
    """
    if raw.isascii() and raw.isdigit() and len(raw) <= 19 and low <= int(raw) <= high:
        return int(raw)
    return render_error(400, field, f"must be a whole number {low}..{high}, got {raw[:40]!r}")
