"""Every route for every role: who sees what, and what the anonymous visitor gets instead."""

from __future__ import annotations

from pathlib import Path

import pytest
from dashboard_fixtures import TCP, Dashboard, make_dashboard, play_tcp_round

from dealerassist.tablefiles.tables import load_table

D, S, V, A = "dana", "sam", "sue", "ada"  # dealer, supervisor, surveillance, admin
ROUTES = [
    # path, who gets 200 (others: 403 when signed in; 302 to /login or 401 when anonymous)
    (f"/tables/{TCP}", {D, S, A}),
    (f"/tables/{TCP}/panel", {D, S, A}),
    ("/supervisor", {S, A}),
    ("/supervisor/panel", {S, A}),
    ("/surveillance/", {V, A}),
    ("/surveillance/analytics", {V, A}),
    ("/surveillance/export.csv", {V, A}),
    ("/surveillance/export.jsonl", {V, A}),
    (f"/surveillance/rounds/{TCP}/1", {V, A}),
    ("/admin/users", {A}),
    ("/status", {D, S, V, A}),
    ("/status/panel", {D, S, V, A}),
    ("/account/password", {D, S, V, A}),
    ("/api/tables", {D, S, V, A}),
    (f"/api/tables/{TCP}/snapshot", {D, S, A}),
    ("/api/records", {V, A}),
]
PUBLIC = ["/login", "/sign", "/healthz", "/api/openapi.json"]


@pytest.fixture
def played(dash: Dashboard) -> Dashboard:
    play_tcp_round(dash, dash.client(D))
    return dash


@pytest.mark.parametrize("name", [D, S, V, A])
def test_each_role_reaches_exactly_its_screens(played: Dashboard, name: str) -> None:
    session = played.client(name)
    for path, allowed in ROUTES:
        response = session.get(path)
        expected = 200 if name in allowed else 403
        assert response.status_code == expected, (name, path, response.status_code)
    for path in PUBLIC:
        assert session.get(path).status_code == 200, path
    tables = session.get("/tables")  # one table in this pit: straight to its dealer view
    assert tables.status_code == (302 if name in (D, S, A) else 403)


def test_anonymous_visitors_are_sent_to_sign_in(played: Dashboard) -> None:
    visitor = played.client()
    for path, _ in ROUTES:
        response = visitor.get(path)
        if path.startswith("/api/"):
            assert response.status_code == 401, path
            assert response.get_json()["field"] == "session"
        else:
            assert response.status_code == 302 and "/login" in response.headers["Location"], path
    for path in PUBLIC:
        assert visitor.get(path).status_code == 200, path
    assert visitor.get("/").headers["Location"].endswith("/login")


@pytest.mark.parametrize(
    ("name", "home"), [(D, "/tables"), (S, "/supervisor"), (V, "/surveillance/"), (A, "/status")]
)
def test_each_role_lands_on_its_own_screen(dash: Dashboard, name: str, home: str) -> None:
    session = dash.client()
    response = session.login(
        name,
        {"dana": "dealer-pass-1", "sam": "super-pass-1", "sue": "watch-pass-1", "ada": "admin-pass-1"}[name],
    )
    assert response.headers["Location"].endswith(home)


def test_login_follows_only_local_next_paths(dash: Dashboard) -> None:
    session = dash.client()
    session.get("/login")
    for target, lands in [
        ("/status", "/status"),
        ("https://evil.example/", "/tables"),
        ("//evil", "/tables"),
    ]:
        session.http.get("/logout")
        session.get("/login")
        response = session.http.post(
            "/login",
            data={"name": D, "password": "dealer-pass-1", "csrf_token": session.csrf, "next": target},
        )
        assert response.headers["Location"].endswith(lands), target
        session.get(lands)
        session.post_form("/logout", {})


def test_dealer_view_shows_cards_hands_and_what_to_pay(played: Dashboard) -> None:
    page = played.client(D).get(f"/tables/{TCP}").get_data(as_text=True)
    for code in ("AS", "KS", "QS", "2H", "3H", "4H"):
        assert f'data-card="{code}"' in page
    assert "straight-flush" in page
    assert 'data-to-pay="8000"' in page and 'data-to-pay="40500"' in page  # seat 1 $80, seat 2 $405
    assert 'id="total-to-pay">$485.00<' in page
    assert 'data-kind="round-close"' in page


def test_face_down_cards_are_not_shown_to_the_dealer_screen_before_settlement(dash: Dashboard) -> None:
    dealer = dash.client(D)
    dealer.act(TCP, "round-open")
    dealer.act(TCP, "wager", seat=1, bet="ante", amount=1000)
    dealer.act(TCP, "betting-closed")
    dash.shoe(TCP, "AS", "KS", "QS", "5D", "9C", "JD")
    snap = dash.pit.tracker(TCP).snapshot()
    hidden = [c["card"] for c in snap["positions"]["dealer"] if not c["face_up"]]
    page = dealer.get(f"/tables/{TCP}/panel").get_data(as_text=True)
    assert hidden and all(f'data-card="{code}"' not in page for code in hidden)
    assert page.count("cards/back.png") >= len(hidden)
    assert 'data-kind="decision"' in page and "decision play" in page


def test_admin_creates_and_disables_accounts_and_it_is_logged(dash: Dashboard) -> None:
    admin = dash.client(A)
    admin.get("/admin/users")
    response = admin.post_form(
        "/admin/users", {"op": "add", "name": "newbie", "role": "dealer", "password": "short"}
    )
    assert response.status_code == 400 and "password: must be at least 10" in response.get_data(as_text=True)
    response = admin.post_form(
        "/admin/users", {"op": "add", "name": "newbie", "role": "dealer", "password": "newbie-pass-1"}
    )
    assert response.status_code == 302
    assert dash.client().login("newbie", "newbie-pass-1").status_code == 302
    assert admin.post_form("/admin/users", {"op": "disable", "name": "ada"}).status_code == 400
    assert admin.post_form("/admin/users", {"op": "disable", "name": "newbie"}).status_code == 302
    assert dash.client().login("newbie", "newbie-pass-1").status_code == 401
    assert admin.post_form("/admin/users", {"op": "reset", "name": D, "password": "short"}).status_code == 400
    assert (
        admin.post_form("/admin/users", {"op": "reset", "name": D, "password": "fresh-pass-99"}).status_code
        == 302
    )
    assert dash.client().login(D, "fresh-pass-99").status_code == 302
    actions = [(r.event.user, r.event.action) for r in dash.log.records() if r.event.kind == "user-action"]
    assert ("ada", "user-added") in actions and ("ada", "user-disabled") in actions
    assert ("ada", "password-reset") in actions


def test_a_disabled_account_loses_its_open_session(dash: Dashboard) -> None:
    dealer = dash.client(D)
    assert dealer.get("/tables").status_code == 302  # one table: straight to it
    dash.users.set_active(D, False)
    assert dealer.get(f"/tables/{TCP}").status_code == 302


def test_password_change_needs_the_current_one(dash: Dashboard) -> None:
    dealer = dash.client(D)
    dealer.get("/account/password")
    wrong = dealer.post_form(
        "/account/password", {"current": "nope", "new": "brand-new-pass", "again": "brand-new-pass"}
    )
    assert wrong.status_code == 400 and "current: wrong password" in wrong.get_data(as_text=True)
    differ = dealer.post_form(
        "/account/password", {"current": "dealer-pass-1", "new": "brand-new-pass", "again": "brand-new-pasz"}
    )
    assert differ.status_code == 400
    ok = dealer.post_form(
        "/account/password", {"current": "dealer-pass-1", "new": "brand-new-pass", "again": "brand-new-pass"}
    )
    assert ok.status_code == 302
    assert dash.client().login(D, "brand-new-pass").status_code == 302


def test_unknown_pages_and_methods_are_4xx_pages_not_500(dash: Dashboard) -> None:
    session = dash.client(D)
    assert session.get("/nope").status_code == 404
    assert session.get("/tables/nope").status_code == 404
    assert session.http.put("/api/tables", headers={"X-CSRF-Token": session.csrf}).status_code == 405
    big = session.http.post(
        f"/api/tables/{TCP}/actions/wager",
        data="x" * 300_000,
        headers={"X-CSRF-Token": session.csrf, "Content-Type": "application/json"},
    )
    assert big.status_code == 413


def test_blackjack_totals_are_live_and_never_count_the_hole_card(tmp_path: Path) -> None:
    board = make_dashboard(tmp_path, [load_table("perfect-pairs-blackjack")])
    dealer = board.client(D)
    dealer.act("ppbj-1", "round-open")
    dealer.act("ppbj-1", "wager", seat=1, bet="main", amount="10")
    dealer.act("ppbj-1", "betting-closed")
    tracker = board.pit.tracker("ppbj-1")
    planned = {"seat-1": ["TS", "7H", "5C"], "dealer": ["6D", "9C", "2S"]}
    while (step := tracker.snapshot()["next_deal"]) is not None:
        board.shoe("ppbj-1", planned[step["position"]].pop(0))
    page = dealer.get("/tables/ppbj-1/panel").get_data(as_text=True)
    assert '<span class="hand-name">showing 9</span>' in page  # the hole card (6) is not added in
    assert '<div class="hand-name">17</div>' in page
    assert "decision hit" in page and "decision stand" in page
