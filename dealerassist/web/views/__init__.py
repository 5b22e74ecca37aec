"""Blueprints of the dashboard, and what they share: the signed-in user and error replies."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from flask import g, jsonify, redirect, render_template, request, session, url_for

from dealerassist.web.runtime import runtime
from dealerassist.web.security import allowed
from dealerassist.web.users import User

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


def current_user() -> User | None:
    """The signed-in, still-active account (re-read each request so a disabled account is out)."""
    if "user" in g:
        return g.user
    name = session.get("user")
    user = runtime().users.get(name) if isinstance(name, str) else None
    if user is not None and not user.active:
        user = None
    g.user = user
    return user


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
