"""Signing in and out, changing one's password, and the admin's account list."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, current_app, flash, redirect, render_template, request, session, url_for

from dealerassist.web.runtime import runtime
from dealerassist.web.security import HOME, login_keys
from dealerassist.web.users import ROLES, UserError
from dealerassist.web.views import SESSION_TOKEN, client_address, current_user, render_error, requires

bp = Blueprint("auth", __name__)


def _safe_next(target: str | None) -> str | None:
    """Only same-site relative paths are followed after login (no open redirect)."""
    if not target:
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return None
    return target


@bp.get("/")
def home() -> Any:
    user = current_user()
    if user is None:
        return redirect(url_for("auth.login"))
    return redirect(url_for(HOME[user.role]))


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    rt = runtime()
    if request.method == "GET":
        return render_template("login.html", next=request.args.get("next", ""))
    name = (request.form.get("name") or "").strip().lower()
    password = request.form.get("password") or ""
    client = client_address()
    keys = login_keys(name, client)
    wait = rt.throttle.wait_seconds(*keys)
    if wait > 0:
        rt.record_user_action(None, "login-throttled", client=client, name=name)
        return render_error(429, "name", f"too many failed logins: try again in {int(wait) + 1} seconds")
    if not name or not password:
        field = "name" if not name else "password"
        return render_template("login.html", error=f"{field}: required", next=""), 400
    user = rt.users.authenticate(name, password)
    if user is None:
        rt.throttle.failed(*keys)
        rt.record_user_action(None, "login-failed", client=client, name=name)
        return render_template("login.html", error="wrong name or password", next=""), 401
    rt.throttle.succeeded(keys[0], keys[2])
    _start_session(user.name)
    rt.record_user_action(user, "login", client=client)
    return redirect(_safe_next(request.form.get("next")) or url_for(HOME[user.role]))


def _start_session(name: str) -> None:
    """A fresh cookie naming a new server-side session (never one the browser brought)."""
    session.clear()
    session.permanent = True
    lifetime = current_app.permanent_session_lifetime.total_seconds()
    session[SESSION_TOKEN] = runtime().users.open_session(name, lifetime)


@bp.post("/logout")
def logout() -> Any:
    """End this session (``everywhere=1``: every session of the account) on the server."""
    rt = runtime()
    user = current_user()
    token = session.get(SESSION_TOKEN)
    if user is not None:
        rt.record_user_action(user, "logout", client=client_address())
        if request.form.get("everywhere") in ("1", "on", "true"):
            rt.end_streams(rt.users.end_sessions(user.name))
    if isinstance(token, str):
        rt.end_streams([rt.users.end_session(token)])
    session.clear()
    return redirect(url_for("auth.login"))


@bp.route("/account/password", methods=["GET", "POST"])
@requires("status")
def change_password() -> Any:
    user = current_user()
    assert user is not None
    if request.method == "GET":
        return render_template("password.html")
    rt = runtime()
    if rt.users.authenticate(user.name, request.form.get("current") or "") is None:
        return render_template("password.html", error="current: wrong password"), 400
    new, again = request.form.get("new") or "", request.form.get("again") or ""
    if new != again:
        return render_template("password.html", error="again: the two new passwords differ"), 400
    try:
        ended = rt.users.set_password(user.name, new)
    except UserError as exc:
        return render_template("password.html", error=str(exc)), 400
    rt.end_streams(ended)  # every other browser of this account is signed out; this one goes on
    _start_session(user.name)
    rt.record_user_action(user, "password-changed", client=client_address())
    flash("Password changed.")
    return redirect(url_for("auth.home"))


@bp.route("/admin/users", methods=["GET", "POST"])
@requires("manage-users")
def users() -> Any:
    rt = runtime()
    admin = current_user()
    error = None
    if request.method == "POST":
        op = request.form.get("op", "add")
        name = (request.form.get("name") or "").strip().lower()
        try:
            if op == "add":
                added = rt.users.add(name, request.form.get("role") or "", request.form.get("password") or "")
                rt.record_user_action(
                    admin, "user-added", client=client_address(), account=added.name, account_role=added.role
                )
                flash(f"Account {added.name} ({added.role}) created.")
            elif op == "reset":
                rt.end_streams(rt.users.set_password(name, request.form.get("password") or ""))
                rt.record_user_action(admin, "password-reset", client=client_address(), account=name)
                flash(f"Password of {name} reset: hand it over in person.")
            elif op in ("disable", "enable"):
                if admin is not None and name == admin.name:
                    raise UserError("name", "you cannot disable your own account")
                rt.end_streams(rt.users.set_active(name, op == "enable"))
                rt.record_user_action(admin, f"user-{op}d", client=client_address(), account=name)
                flash(f"Account {name} {op}d.")
            else:
                raise UserError("op", f"unknown operation {op!r}")
        except UserError as exc:
            error = str(exc)
        if error is None:
            return redirect(url_for("auth.users"))
    return render_template("users.html", accounts=rt.users.all(), roles=ROLES, error=error), (
        400 if error else 200
    )
