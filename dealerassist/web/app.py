"""The Flask app factory: the running table objects go in, a dashboard comes out.

``create_app`` does not start anything itself: the caller (``dealerassist web serve`` or the demo)
owns the pit, the event log and the progressive controller and passes them in, so the whole table
can run in one process with the dashboard as one more subscriber to the tracker.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, request, session
from flask.sessions import SecureCookieSessionInterface
from werkzeug.exceptions import HTTPException

from dealerassist.core.money import format_amount
from dealerassist.errors import StorageUnavailable
from dealerassist.web.analytics import percent_text
from dealerassist.web.fanout import DEFAULT_PER_OWNER, DEFAULT_QUEUE_SIZE, DEFAULT_TOTAL, Fanout
from dealerassist.web.history import DEFAULT_SHIFTS
from dealerassist.web.protection import MAX_ROUNDS
from dealerassist.web.proxies import TrustedProxies, parse_proxies
from dealerassist.web.records import when
from dealerassist.web.runtime import Runtime, runtime
from dealerassist.web.security import CSRF_FIELD, CSRF_HEADER, LoginThrottle, csrf_ok, csrf_token
from dealerassist.web.users import UserStore

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def create_app(
    *,
    pit: Any,
    log: Any,
    progressive: Any | None = None,
    config: Mapping[str, Any] | None = None,
    users: UserStore | None = None,
    tables: Mapping[str, Any] | None = None,
    devices: Mapping[str, Callable[[], Mapping[str, Any]]] | None = None,
    reader: Any | None = None,
    floor: Any | None = None,
) -> Flask:
    """Build the dashboard.

    ``pit`` and ``log`` follow the tracker and event-log contracts; ``progressive`` is an optional
    ``ProgressiveController`` or a mapping of table id to one (``state()`` feeds the sign page).
    ``tables`` maps table id to its ``TableConfig`` (default: what the pit knows). ``devices``
    maps a device name to a callable returning its live status (frame rate, registration, last
    error) for the status page. ``reader`` is a read-only connection to the same log for the
    surveillance pages (default: ``log``). ``floor`` is the station's ``FloorConfig``: with a
    ``search_url`` the surveillance pages search every table's rounds in the floor store.
    ``config`` may set ``USERS_PATH`` (accounts file, default ``var/users.sqlite3``),
    ``SECRET_KEY``, ``SNAPSHOT_DIR`` (camera snapshots), ``SHIFTS``, ``SSE_HEARTBEAT`` (seconds),
    ``SSE_QUEUE_SIZE`` (records a browser may lag before it is dropped), ``SSE_STREAMS_PER_SESSION``
    and ``SSE_STREAMS`` (caps on open streams), ``PROTECTION_MAX_ROUNDS`` (rounds the
    game-protection page analyses at most per view), ``TRUSTED_PROXIES`` (addresses or networks of the
    reverse proxies in front, whose X-Forwarded-For and -Proto are believed) and any Flask setting.
    """
    settings = dict(config or {})
    app = Flask(__name__)
    if users is None:
        users = UserStore(settings.pop("USERS_PATH", Path("var") / "users.sqlite3"))
    app.config.update(
        SECRET_KEY=users.secret_key(),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_NAME="dealerassist_session",
        PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
        MAX_CONTENT_LENGTH=256 * 1024,
        JSON_SORT_KEYS=False,
    )
    app.config.update(settings)
    fanout = Fanout(
        log,
        queue_size=int(settings.get("SSE_QUEUE_SIZE", DEFAULT_QUEUE_SIZE)),
        per_owner=int(settings.get("SSE_STREAMS_PER_SESSION", DEFAULT_PER_OWNER)),
        total=int(settings.get("SSE_STREAMS", DEFAULT_TOTAL)),
    )
    runtime = Runtime(
        pit=pit,
        log=log,
        progressive=progressive,
        users=users,
        fanout=fanout,
        throttle=settings.get("LOGIN_THROTTLE") or LoginThrottle(),
        tables=dict(tables) if tables is not None else _tables_of(pit),
        devices=dict(devices or {}),
        snapshot_dir=Path(settings["SNAPSHOT_DIR"]) if settings.get("SNAPSHOT_DIR") else None,
        shifts=tuple(settings.get("SHIFTS") or DEFAULT_SHIFTS),
        reader=reader,
        floor=floor,
        protection_rounds=int(settings.get("PROTECTION_MAX_ROUNDS") or MAX_ROUNDS),
    )
    app.extensions["dealerassist"] = runtime
    pit.subscribe(fanout.publish)
    for controller in runtime.progressives().values():
        controller.subscribe(fanout.catch_up)
    proxies = parse_proxies(settings.get("TRUSTED_PROXIES") or (), "TRUSTED_PROXIES")
    if proxies:
        # Behind nginx every request comes from the proxy: take the client address (for the login
        # throttle and the log) and the scheme (for Secure cookies) from what the proxy reports.
        app.wsgi_app = TrustedProxies(app.wsgi_app, proxies)  # type: ignore[method-assign]
    app.session_interface = _SessionCookie()
    app.jinja_env.filters["when"] = when
    _install_hooks(app)
    _register_blueprints(app)
    return app


class _SessionCookie(SecureCookieSessionInterface):
    """The session cookie is ``Secure`` whenever the browser came over TLS (directly, or through a
    trusted proxy that said so), as well as when ``SESSION_COOKIE_SECURE`` forces it."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure


def _tables_of(pit: Any) -> dict[str, Any]:
    """Table id -> the ``TableConfig`` each of the pit's trackers runs with."""
    return {table_id: pit.tracker(table_id).config for table_id in pit.tables()}


def _install_hooks(app: Flask) -> None:
    from dealerassist.web.views import current_user, render_error

    @app.before_request
    def _check_csrf() -> Any:
        if request.method in _SAFE_METHODS:
            return None
        presented = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD)
        if not csrf_ok(session, presented):
            return render_error(
                403, "csrf_token", "missing or stale CSRF token: reload the page and try again"
            )
        return None

    @app.context_processor
    def _template_globals() -> dict[str, Any]:
        return {
            "csrf_token": lambda: csrf_token(session),
            "user": current_user(),
            "money": format_amount,
            "percent": percent_text,
            "floor_search": runtime().floor_search_url is not None,
        }

    @app.after_request
    def _headers(response: Any) -> Any:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'",
        )
        return response

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        if exc.code == 413:
            return render_error(413, "body", "request body too large")
        return render_error(exc.code or 500, "request", exc.description or exc.name)

    @app.errorhandler(StorageUnavailable)
    def _unwritable(exc: StorageUnavailable) -> Any:
        # The station says it once in the journal and on /healthz: no traceback per request.
        return render_error(503, "log", str(exc))

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Any:
        app.logger.exception("unhandled error on %s %s", request.method, request.path)
        # Never the exception's text: it may name files, SQL or another user's input.
        return render_error(500, "-", "server error: the problem has been logged")


def _register_blueprints(app: Flask) -> None:
    from dealerassist.web.views import api, audit, auth, floor, pages, protection, stream

    for blueprint in (auth.bp, pages.bp, audit.bp, protection.bp, floor.bp, api.bp, stream.bp):
        app.register_blueprint(blueprint)
