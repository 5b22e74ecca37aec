"""CSRF on every state change, login throttling, cookie flags and response headers."""

from __future__ import annotations

from dashboard_fixtures import TCP, Dashboard

from dealerassist.web.security import PERMISSIONS, LoginThrottle, allowed


def test_throttle_locks_after_free_attempts_doubling_and_forgets() -> None:
    now = [0.0]
    throttle = LoginThrottle(
        free_attempts=2, base_delay=10, max_delay=25, forget_after=100, clock=lambda: now[0]
    )
    throttle.failed("account:a@x")
    assert throttle.wait_seconds("account:a@x") == 0
    throttle.failed("account:a@x")
    assert throttle.wait_seconds("account:a@x") == 10
    throttle.failed("account:a@x")
    assert throttle.wait_seconds("account:a@x") == 20
    throttle.failed("account:a@x")
    assert throttle.wait_seconds("account:a@x", "client:x") == 25  # capped
    now[0] = 200.0
    throttle.failed("account:a@x")  # long after the last failure: counting starts again
    assert throttle.wait_seconds("account:a@x") == 0
    throttle.succeeded("account:a@x")
    assert throttle.wait_seconds("account:a@x") == 0


def test_throttle_forgets_old_failures_of_other_names_too() -> None:
    now = [0.0]
    throttle = LoginThrottle(
        free_attempts=1, base_delay=10, max_delay=10, forget_after=100, clock=lambda: now[0]
    )
    for n in range(50):
        throttle.failed(f"account:guess-{n}", f"account:10.0.0.{n}")
    assert throttle.remembered == 100
    now[0] = 150.0
    throttle.failed("account:ada")
    assert throttle.remembered == 1
    assert throttle.wait_seconds("account:guess-3", "account:10.0.0.3") == 0


def test_dealer_never_holds_integrity_or_meter_permissions() -> None:
    assert not allowed("dealer", "supervise")
    assert not allowed("dealer", "manage-users")
    assert not allowed("surveillance", "play")
    assert not allowed(None, "status")
    assert all("admin" in roles for roles in PERMISSIONS.values())


def test_post_without_csrf_token_is_refused_for_forms_and_json(dash: Dashboard) -> None:
    dealer = dash.client("dana")
    response = dealer.http.post(f"/api/tables/{TCP}/actions/round-open", json={})
    assert response.status_code == 403
    assert response.get_json()["field"] == "csrf_token"
    response = dealer.http.post(
        f"/api/tables/{TCP}/actions/round-open", json={}, headers={"X-CSRF-Token": "x"}
    )
    assert response.status_code == 403
    assert dealer.http.post("/logout").status_code == 403
    fresh = dash.client()
    fresh.get("/login")
    assert fresh.http.post("/login", data={"name": "dana", "password": "dealer-pass-1"}).status_code == 403
    assert "round-open" not in dash.kinds()


def test_session_cookie_flags_and_security_headers(dash: Dashboard) -> None:
    session = dash.client()
    response = session.login("dana", "dealer-pass-1")
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    page = session.get(f"/tables/{TCP}")
    assert page.headers["X-Frame-Options"] == "DENY"
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert "<script>" not in page.get_data(as_text=True)  # no inline script: the CSP forbids it


def test_failed_logins_are_throttled_and_logged(dash: Dashboard) -> None:
    session = dash.client()
    for _ in range(5):
        assert session.login("dana", "wrong-password").status_code == 401
    throttled = session.login("dana", "dealer-pass-1")
    assert throttled.status_code == 429
    assert "try again in 31 seconds" in throttled.get_data(as_text=True)
    dash.clock.now += 31
    assert session.login("dana", "dealer-pass-1").status_code == 302
    actions = [r.event.action for r in dash.log.records() if r.event.kind == "user-action"]
    assert actions == ["login-failed"] * 5 + ["login-throttled", "login"]


def test_behind_a_proxy_each_client_is_throttled_on_its_own_address(tmp_path) -> None:
    from dashboard_fixtures import make_dashboard

    from dealerassist.tablefiles.tables import load_table

    board = make_dashboard(
        tmp_path,
        [load_table("three-card-poker")],
        config={"TRUSTED_PROXIES": ["127.0.0.1"]},
    )
    attacker, colleague = board.client(), board.client()
    for _ in range(20):  # guessing across names: the client's own limit
        attacker.get("/login")
        attacker.http.post(
            "/login",
            data={"name": f"guess{_}", "password": "wrong-password", "csrf_token": attacker.csrf},
            headers={"X-Forwarded-For": "127.0.0.66"},
        )
    colleague.get("/login")
    ok = colleague.http.post(
        "/login",
        data={"name": "dana", "password": "dealer-pass-1", "csrf_token": colleague.csrf},
        headers={"X-Forwarded-For": "127.0.0.7"},
    )
    assert ok.status_code == 302
    attacker.get("/login")
    blocked = attacker.http.post(
        "/login",
        data={"name": "sam", "password": "super-pass-1", "csrf_token": attacker.csrf},
        headers={"X-Forwarded-For": "127.0.0.66"},
    )
    assert blocked.status_code == 429
    failed = [r.event for r in board.log.records() if getattr(r.event, "action", "") == "login-failed"]
    assert {e.client for e in failed} == {"127.0.0.66"}
