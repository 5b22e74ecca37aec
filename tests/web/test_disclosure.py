"""What each role sees: the dealer's hidden cards, other tables' records, logins and exports stay
out of the screens, the snapshot, the API and the streams of roles that may not see them; and
sessions end on the server when their owner signs out, changes or loses the password."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from dashboard_fixtures import PASSWORDS, TCP, Dashboard, make_dashboard, play_tcp_round
from dashboard_http import HttpUser

from dealerassist.commands.web import serve_in_thread
from dealerassist.tablefiles.tables import load_table

HOLE = ("5D", "9C", "JD")  # the dealer's cards in play_tcp_round, dealt face down


@pytest.fixture
def dealt(dash: Dashboard) -> Dashboard:
    """A Three Card Poker round in its decisions: the dealer's three cards are face down."""
    dealer = dash.client("dana")
    assert dealer.act(TCP, "round-open").status_code == 200
    assert dealer.act(TCP, "wager", seat=1, bet="ante", amount=1000).status_code == 200
    assert dealer.act(TCP, "betting-closed").status_code == 200
    dash.shoe(TCP, "AS", "KS", "QS", "5D", "9C", "JD")
    return dash


def _hole_in(text: str) -> list[str]:
    """The hidden codes named in ``text`` (as a card, not inside a token such as the CSRF one)."""
    return [code for code in HOLE if re.search(rf"(?<![\w-]){code}(?![\w-])", text)]


@pytest.mark.parametrize("name", ["dana", "sam"])
def test_no_hidden_card_in_pages_panels_or_snapshot_before_the_reveal(dealt: Dashboard, name: str) -> None:
    viewer = dealt.client(name)
    for path in (
        f"/tables/{TCP}",
        f"/tables/{TCP}/panel",
        f"/api/tables/{TCP}/snapshot",
        "/supervisor/panel",
    ):
        response = viewer.get(path)
        if response.status_code == 403:
            continue
        assert response.status_code == 200, path
        assert _hole_in(response.get_data(as_text=True)) == [], f"{name} got a hidden card in {path}"
    dealer_cards = viewer.get(f"/api/tables/{TCP}/snapshot").get_json()["snapshot"]["positions"]["dealer"]
    assert [(c["card"], c["face_up"]) for c in dealer_cards] == [("", False)] * 3
    assert viewer.act(TCP, "decision", position="seat-1", action="play").status_code == 200  # settles
    shown = viewer.get(f"/api/tables/{TCP}/snapshot").get_json()["snapshot"]["positions"]["dealer"]
    assert [c["card"] for c in shown] == list(HOLE)  # turned up: now everybody sees them


def test_surveillance_sees_the_hidden_cards_live(dealt: Dashboard) -> None:
    watcher = dealt.client("sue")
    body = watcher.get("/api/records?after=0&limit=5000").get_data(as_text=True)
    assert _hole_in(body) == list(HOLE)


def test_the_records_api_and_exports_go_through_the_same_filter(dealt: Dashboard) -> None:
    from dealerassist.web.disclosure import Audience

    supervisor = Audience("supervisor")
    records = list(dealt.log.records())
    seen = [supervisor.record(r) for r in records]
    text = json.dumps([s for s in seen if s is not None])
    assert _hole_in(text) == []
    assert "login" not in {s["event"].get("action") for s in seen if s is not None}
    assert Audience("dealer", "fcp-1").record(records[-1]) is None  # another table
    assert Audience(None).record(records[-1]) is None  # not signed in: nothing


def _drain(response: object) -> list[dict]:
    """Every record message up to the first keep-alive (the stream has caught up by then)."""
    out: list[dict] = []
    message: dict[str, str] = {}
    for raw in response:  # type: ignore[attr-defined]
        line = raw.decode().rstrip("\r\n")
        if line.startswith(": keep-alive"):
            return out
        if not line:
            if message.get("event") == "record":
                out.append(json.loads(message["data"]))
            message = {}
            continue
        field, _, value = line.partition(":")
        message[field] = value.removeprefix(" ")
    return out


@pytest.fixture
def two_tables(tmp_path) -> Iterator[tuple[Dashboard, str]]:
    board = make_dashboard(
        tmp_path,
        [load_table("three-card-poker"), load_table("four-card-poker")],
        config={"SSE_HEARTBEAT": 0.3},
    )
    server = serve_in_thread(board.app, "127.0.0.1", 0)
    yield board, f"http://127.0.0.1:{server.port}"
    server.shutdown()
    board.log.close()
    board.users.close()


def _user(base: str, name: str) -> HttpUser:
    user = HttpUser(base)
    user.login(name, PASSWORDS[name][1])
    return user


def test_the_dealers_stream_holds_its_table_only_and_no_hidden_card(
    two_tables: tuple[Dashboard, str],
) -> None:
    board, base = two_tables
    dealer = _user(base, "dana")
    play_tcp_round(board, board.client("dana"))
    other = board.client("dana")
    assert other.act("fcp-1", "round-open").status_code == 200
    _user(base, "sue").get("/surveillance/export.jsonl").read()
    records = _drain(dealer.get(f"/stream?table={TCP}&after=0", timeout=10))
    kinds = {r["event"]["kind"] for r in records}
    assert "card-dealt" in kinds and "round-open" in kinds
    assert {r["event"]["table"] for r in records} == {TCP}
    assert not [r for r in records if r["event"]["kind"] == "user-action"]
    assert _hole_in(json.dumps(records)) == []
    watcher = _drain(_user(base, "sue").get("/stream?after=0", timeout=10))
    actions = {r["event"].get("action") for r in watcher}
    assert {"login", "export"} <= actions and _hole_in(json.dumps(watcher)) == ["5D", "9C", "JD"]
    # The status page's stream of a dealer (no table named) carries device records only.
    assert _drain(dealer.get("/stream?after=0", timeout=10)) == []


def test_streams_per_session_are_capped(two_tables: tuple[Dashboard, str]) -> None:
    board, base = two_tables
    board.runtime.fanout.per_owner = 2
    dealer = _user(base, "dana")
    open_ = [dealer.get(f"/stream?table={TCP}", timeout=10) for _ in range(2)]
    with pytest.raises(Exception) as refused:
        dealer.get(f"/stream?table={TCP}", timeout=10)
    assert getattr(refused.value, "code", None) == 429
    assert _user(base, "sam").get(f"/stream?table={TCP}", timeout=10).status == 200  # others are not held
    for response in open_:
        response.close()


def test_a_cookie_saved_before_sign_out_is_refused(dash: Dashboard) -> None:
    dealer = dash.client("dana")
    saved = dealer.http.get_cookie("dealerassist_session").value
    thief = dash.app.test_client()
    thief.set_cookie("dealerassist_session", saved)
    assert thief.get(f"/api/tables/{TCP}/snapshot").status_code == 200
    assert dealer.post_form("/logout", {}).status_code == 302
    assert thief.get(f"/api/tables/{TCP}/snapshot").status_code == 401
    assert thief.get(f"/tables/{TCP}").status_code == 302  # to the login page


@pytest.mark.parametrize("how", ["password-change", "admin-reset", "disable"])
def test_every_session_of_an_account_ends_at_once(dash: Dashboard, how: str) -> None:
    desk, tablet = dash.client("dana"), dash.client("dana")
    admin = dash.client("ada")
    if how == "password-change":
        changed = desk.post_form(
            "/account/password",
            {"current": "dealer-pass-1", "new": "new-dealer-pw", "again": "new-dealer-pw"},
        )
        assert changed.status_code == 302
        assert desk.get(f"/api/tables/{TCP}/snapshot").status_code == 200  # the one that changed it stays
    elif how == "admin-reset":
        admin.get("/admin/users")
        assert (
            admin.post_form(
                "/admin/users", {"op": "reset", "name": "dana", "password": "reset-pw-123"}
            ).status_code
            == 302
        )
    else:
        admin.get("/admin/users")
        assert admin.post_form("/admin/users", {"op": "disable", "name": "dana"}).status_code == 302
        assert admin.post_form("/admin/users", {"op": "enable", "name": "dana"}).status_code == 302
    assert tablet.get(f"/api/tables/{TCP}/snapshot").status_code == 401
    if how != "password-change":
        assert desk.get(f"/api/tables/{TCP}/snapshot").status_code == 401


def test_a_wrong_password_storm_on_one_name_does_not_lock_out_a_colleague(dash: Dashboard) -> None:
    stranger, supervisor = dash.client(), dash.client()
    for _ in range(8):
        stranger.login("dana", "wrong-password")
    assert stranger.login("dana", "dealer-pass-1").status_code == 429  # that name, from that client
    assert supervisor.login("sam", "super-pass-1").status_code == 302  # same address, another name


def test_secure_cookie_only_when_a_trusted_proxy_says_tls(tmp_path) -> None:
    board = make_dashboard(
        tmp_path,
        [load_table("three-card-poker")],
        config={"TRUSTED_PROXIES": ["127.0.0.1"]},
    )

    def cookie(remote: str, proto: str) -> str:
        client = board.app.test_client()
        page = client.get(
            "/login", environ_base={"REMOTE_ADDR": remote}, headers={"X-Forwarded-Proto": proto}
        )
        return page.headers.get("Set-Cookie", "")

    assert "Secure" in cookie("127.0.0.1", "https")
    assert "Secure" not in cookie("127.0.0.1", "http")
    assert "Secure" not in cookie("10.9.9.9", "https")  # not a trusted proxy: its header is ignored
