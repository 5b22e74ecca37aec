"""The JSON action API against a real tracker: a whole round, and every way a request can be bad."""

from __future__ import annotations

import pytest
from dashboard_fixtures import TCP, Dashboard, play_tcp_round


def test_a_whole_three_card_poker_round_through_the_api(dash: Dashboard) -> None:
    dealer = dash.client("dana")
    play_tcp_round(dash, dealer)
    snap = dash.pit.tracker(TCP).snapshot()
    assert snap["status"] == "settled"
    pay = {}
    for r in snap["settlement"]["results"]:
        pay[r["seat"]] = pay.get(r["seat"], 0) + r["win"] + r["returned"]
    # seat 1: Ante 10 wins 10 + stake, Play pushes, Ante Bonus 5:1 on the straight flush = 50
    # seat 2: Ante 25 + 25, Play 25 back, Ante Bonus 125, Pair Plus 40:1 on 5 = 200 + 5
    assert pay == {1: 1000 + 1000 + 1000 + 5000, 2: 2500 + 2500 + 2500 + 12500 + 20000 + 500}
    assert dealer.act(TCP, "round-close").status_code == 200
    inputs = [r.event for r in dash.log.records() if r.event.kind in ("wager", "decision", "round-open")]
    assert inputs and all(e.user == "dana" and e.role == "dealer" for e in inputs)


@pytest.mark.parametrize(
    ("kind", "body", "status", "field"),
    [
        ("wager", {"seat": 1, "bet": "ante"}, 422, "amount"),
        ("wager", {"seat": "one", "bet": "ante", "amount": 500}, 422, "seat"),
        ("wager", {"seat": 1, "bet": "ante", "amount": "12.345"}, 422, "amount"),
        ("wager", {"seat": 1, "bet": "ante", "amount": 500, "colour": "red"}, 422, "colour"),
        ("wager", {"seat": 0, "bet": "ante", "amount": 500}, 422, "seat"),
        ("decision", {"position": "seat-1"}, 422, "action"),
        ("decision", {"position": "seat-1", "action": "play", "cards": "AS ZZ"}, 422, "cards"),
        ("confirm-read", {"read_id": "r1", "card": "11h"}, 422, "card"),
        ("dice", {"total": 1}, 422, "total"),
        ("no-such-action", {}, 404, "action"),
    ],
)
def test_bad_input_gets_a_4xx_naming_the_field(
    dash: Dashboard, kind: str, body: dict, status: int, field: str
) -> None:
    dealer = dash.client("dana")
    dealer.act(TCP, "round-open")
    response = dealer.act(TCP, kind, **body)
    assert response.status_code == status
    reply = response.get_json()
    assert reply["field"] == field, reply
    assert reply["message"]
    if status == 422:  # refused before the tracker: the dashboard logs the attempt itself
        note = list(dash.log.records())[-1].event
        assert (note.kind, note.action, note.user) == ("user-action", "rejected-input", "dana")
        assert note.detail["input_kind"] == kind and note.detail["field"] == field


def test_non_object_bodies_and_unknown_tables(dash: Dashboard) -> None:
    dealer = dash.client("dana")
    response = dealer.post_json(f"/api/tables/{TCP}/actions/wager", [1, 2, 3])
    assert response.status_code == 400 and response.get_json()["field"] == "body"
    response = dealer.http.post(
        f"/api/tables/{TCP}/actions/wager",
        data="{not json",
        headers={"X-CSRF-Token": dealer.csrf, "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    response = dealer.act("no-table", "round-open")
    assert response.status_code == 404 and response.get_json()["field"] == "table"
    assert dealer.get("/api/tables/nope/snapshot").status_code == 404


def test_a_rule_refusal_is_a_409_naming_the_rule_and_is_logged(dash: Dashboard) -> None:
    dealer = dash.client("dana")
    dealer.act(TCP, "round-open")
    response = dealer.act(TCP, "wager", seat=1, bet="ante", amount=100)  # below the $5 minimum
    assert response.status_code == 409
    reply = response.get_json()
    assert reply["error"] == "refused" and reply["rule"]
    refused = [r.event for r in dash.log.records() if r.event.kind == "refused"]
    assert refused and refused[-1].input_kind == "wager"
    assert dealer.act(TCP, "round-open").status_code == 409  # a round is already open


def test_the_dealer_cannot_do_supervisor_work_but_the_supervisor_can(dash: Dashboard) -> None:
    dealer, boss = dash.client("dana"), dash.client("sam")
    dealer.act(TCP, "round-open")
    dealer.act(TCP, "wager", seat=1, bet="ante", amount=1000)
    for kind, body in [
        ("approve-void", {"reason": "misdeal"}),
        ("forfeit", {"seat": 1, "reason": "x"}),
        ("ack-alarm", {"alarm_id": "a1", "reason": "x"}),
        ("correct-wager", {"seat": 1, "bet": "ante", "amount": 500, "reason": "x"}),
        ("correct-card", {"position": "seat-1", "index": 0, "card": "AS", "reason": "x"}),
        ("card-read", {"card": "AS"}),
    ]:
        response = dealer.act(TCP, kind, **body)
        assert response.status_code == 403, kind
        assert response.get_json()["field"] == "role"
    assert dash.client("sue").act(TCP, "round-open").status_code == 403
    missing = boss.act(TCP, "approve-void", reason="   ")
    assert missing.status_code == 422 and missing.get_json()["field"] == "reason"
    assert boss.act(TCP, "approve-void", reason="dealer dropped the deck").status_code == 200
    voided = [r.event for r in dash.log.records() if r.event.kind == "approve-void"]
    assert voided[0].user == "sam" and voided[0].role == "supervisor"
    assert dash.pit.tracker(TCP).snapshot()["status"] == "voided"


def test_supervisor_clears_an_alarm_with_a_reason(dash: Dashboard) -> None:
    from dealerassist.events import DeviceLink

    dash.pit.handle(TCP, DeviceLink(table=TCP, device="shoe", up=False, detail="cable pulled"))
    alarm = dash.pit.tracker(TCP).snapshot()["alarms"][0]
    boss = dash.client("sam")
    page = boss.get("/supervisor").get_data(as_text=True)
    assert "cable pulled" in page and alarm["alarm_id"] in page
    assert boss.act(TCP, "ack-alarm", alarm_id=alarm["alarm_id"], reason="cable replaced").status_code == 200
    assert dash.pit.tracker(TCP).snapshot()["alarms"] == []
    cleared = [r.event for r in dash.log.records() if r.event.kind == "alarm-cleared"]
    assert cleared[0].user == "sam"


def test_manual_card_entry_is_attributed_to_the_supervisor(dash: Dashboard) -> None:
    boss = dash.client("sam")
    boss.act(TCP, "round-open")
    boss.act(TCP, "wager", seat=1, bet="ante", amount=1000)
    boss.act(TCP, "betting-closed")
    assert boss.act(TCP, "card-read", card="as").status_code == 200
    records = list(dash.log.records())
    read = next(r for r in records if r.event.kind == "card-read")
    assert read.event.source == "manual" and read.event.card.code == "AS"
    note = records[[r.seq for r in records].index(read.seq) - 1].event
    assert note.kind == "user-action" and note.user == "sam" and note.action == "card-read"


def test_openapi_describes_every_action_with_its_fields(dash: Dashboard) -> None:
    spec = dash.client().get("/api/openapi.json").get_json()
    assert spec["openapi"].startswith("3.")
    wager = spec["paths"]["/api/tables/{table}/actions/wager"]["post"]
    schema = wager["requestBody"]["content"]["application/json"]["schema"]
    assert set(schema["required"]) == {"seat", "bet", "amount"}
    assert "user" not in schema["properties"] and "role" not in schema["properties"]
    assert "409" in wager["responses"] and "422" in wager["responses"]
    actions = {p.rsplit("/", 1)[-1] for p in spec["paths"] if "/actions/" in p}
    assert {"round-open", "wager", "approve-void", "correct-card", "confirm-read", "round-close"} <= actions
    void = spec["paths"]["/api/tables/{table}/actions/approve-void"]["post"]
    assert "reason" in void["requestBody"]["content"]["application/json"]["schema"]["required"]


def test_the_dealer_names_a_seats_player_and_a_new_shoe_for_game_protection(dash: Dashboard) -> None:
    from dealerassist.protection.records import read_rounds

    dealer = dash.client("dana")
    assert dealer.act(TCP, "seat-player", seat=2, player="4417-0021").status_code == 200
    assert dealer.act(TCP, "new-shoe").status_code == 200
    bad = dealer.act(TCP, "seat-player", seat=2, player=" 4417")
    assert bad.status_code == 422 and bad.get_json()["field"] == "player"
    play_tcp_round(dash, dealer)
    assert dealer.act(TCP, "round-close").status_code == 200
    assert dealer.act(TCP, "round-open").status_code == 200
    assert dealer.act(TCP, "new-shoe").status_code == 409  # not while a round is in play
    first, second = read_rounds(dash.log)
    assert first.shuffled_before and first.players == {2: "4417-0021"}
    assert not second.shuffled_before
    named = [r.event for r in dash.log.records() if r.event.kind in ("seat-player", "new-shoe")]
    assert [(e.kind, e.user, e.role) for e in named] == [
        ("seat-player", "dana", "dealer"),
        ("new-shoe", "dana", "dealer"),
    ]
