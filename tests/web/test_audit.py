"""Surveillance: history filters, a round's timeline with snapshots, exports, chain check, analytics."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest
from dashboard_fixtures import TCP, Dashboard, make_dashboard, play_tcp_round

from dealerassist.core.cards import Card
from dealerassist.events import CardRead
from dealerassist.tablefiles.tables import load_table
from dealerassist.web.analytics import build, percent_text
from dealerassist.web.history import RoundFilter, RoundSummary, shift_of


@pytest.fixture
def audited(tmp_path: Path) -> Dashboard:
    """Round 1 settled, round 2 voided by a supervisor, round 3 open with a camera snapshot."""
    snapshots = tmp_path / "snapshots"
    snapshots.mkdir()
    (snapshots / "seat1.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    (tmp_path / "secret.txt").write_text("outside the snapshot directory")
    board = make_dashboard(
        tmp_path, [load_table("three-card-poker")], config={"SNAPSHOT_DIR": str(snapshots)}
    )
    dealer = board.client("dana")
    play_tcp_round(board, dealer)
    dealer.act(TCP, "round-open")
    dealer.act(TCP, "wager", seat=3, bet="ante", amount=2000)
    board.client("sam").act(TCP, "approve-void", reason="card flashed")
    dealer.act(TCP, "round-open")
    dealer.act(TCP, "wager", seat=1, bet="ante", amount=1000)
    dealer.act(TCP, "betting-closed")
    board.shoe(TCP, "2C", "7D", "9S")
    board.pit.handle(
        TCP,
        CardRead(
            table=TCP,
            source="camera",
            card=Card.parse("2C"),
            position="seat-1",
            face_up=False,
            confidence=0.97,
            snapshot="seat1.jpg",
        ),
    )
    return board


def _rounds(board: Dashboard, query: str = "") -> list[str]:
    page = board.client("sue").get(f"/surveillance/?{query}").get_data(as_text=True)
    return [line.split(">")[1].split("<")[0] for line in page.split('<a href="/surveillance/rounds/')[1:]]


def test_history_filters(audited: Dashboard) -> None:
    assert _rounds(audited) == ["3", "2", "1"]
    assert _rounds(audited, "voids=1") == ["2"]
    assert _rounds(audited, "outcome=settled") == ["1"]
    assert _rounds(audited, "outcome=open") == ["3"]
    assert _rounds(audited, "seat=3") == ["2"]
    assert _rounds(audited, "seat=2&outcome=win") == ["1"]
    assert _rounds(audited, "game=three-card-poker&table=tcp-1") == ["3", "2", "1"]
    assert _rounds(audited, "game=pai-gow") == []
    assert _rounds(audited, "since=2999-01-01") == []
    assert _rounds(audited, "until=2000-01-01T00:00") == []


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("seat=two", "seat"),
        ("outcome=maybe", "outcome"),
        ("since=yesterday", "since"),
        ("table=nope", "table"),
    ],
)
def test_bad_filters_name_the_field(audited: Dashboard, query: str, field: str) -> None:
    response = audited.client("sue").get(f"/surveillance/?{query}")
    assert response.status_code == 400
    assert f"{field}:" in response.get_data(as_text=True)


def test_round_timeline_shows_every_record_and_its_snapshot(audited: Dashboard) -> None:
    watcher = audited.client("sue")
    page = watcher.get(f"/surveillance/rounds/{TCP}/3").get_data(as_text=True)
    assert "seat 1 ante $10.00 by dana" in page and "camera read 2C at seat-1" in page
    assert 'src="/surveillance/snapshots/seat1.jpg"' in page
    assert watcher.get("/surveillance/snapshots/seat1.jpg").data.startswith(b"\xff\xd8")
    assert watcher.get("/surveillance/snapshots/../secret.txt").status_code == 404
    assert watcher.get("/surveillance/snapshots/%2e%2e/secret.txt").status_code == 404
    assert audited.client("dana").get("/surveillance/snapshots/seat1.jpg").status_code == 403
    voided = watcher.get(f"/surveillance/rounds/{TCP}/2").get_data(as_text=True)
    assert "card flashed" in voided and "voided" in voided
    assert watcher.get(f"/surveillance/rounds/{TCP}/99").status_code == 404


def test_csv_and_jsonl_exports_follow_the_filter_and_are_logged(audited: Dashboard) -> None:
    watcher = audited.client("sue")
    text = watcher.get("/surveillance/export.csv?outcome=settled").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["round_id"], r["outcome"]) for r in rows] == [("1", "settled")]
    assert rows[0]["wagered_cents"] == "7500" and rows[0]["paid_cents"] == "48500"
    assert rows[0]["house_net_cents"] == "-41000" and rows[0]["dealer"] == "dana"
    lines = watcher.get("/surveillance/export.jsonl?voids=1").get_data(as_text=True).splitlines()
    records = [json.loads(line) for line in lines]
    assert {r["event"]["kind"] for r in records} >= {"round-open", "wager", "approve-void", "round-voided"}
    assert all(r["event"]["table"] == TCP for r in records)
    seqs = [r["seq"] for r in records]
    assert seqs == sorted(seqs) and all(len(r["hash"]) == 64 for r in records)
    # each line is the log's own export form of its record (written from the stored body, undecoded)
    stored = {r.seq: json.loads(json.dumps(r.to_dict(), default=str)) for r in audited.log.records()}
    assert records == [stored[seq] for seq in seqs]
    exports = [
        r.event.detail["format"] for r in audited.log.records() if getattr(r.event, "action", "") == "export"
    ]
    assert exports == ["csv", "jsonl"]


def test_chain_verification_reports_intact_then_the_first_tampered_record(audited: Dashboard) -> None:
    watcher = audited.client("sue")
    watcher.get("/surveillance/")
    ok = watcher.http.post(
        "/surveillance/verify", headers={"X-CSRF-Token": watcher.csrf, "Accept": "application/json"}
    )
    assert ok.get_json()["ok"] is True and ok.get_json()["checked"] > 10
    db = sqlite3.connect(audited.log.path)
    db.execute(
        "UPDATE events SET body = replace(body, '1000', '9000') WHERE kind = 'wager' AND seq = "
        "(SELECT min(seq) FROM events WHERE kind = 'wager')"
    )
    db.commit()
    db.close()
    bad = watcher.http.post(
        "/surveillance/verify", headers={"X-CSRF-Token": watcher.csrf, "Accept": "application/json"}
    )
    report = bad.get_json()
    assert report["ok"] is False and report["first_bad"] is not None
    status = audited.client("ada").get("/status").get_data(as_text=True)
    assert f"hash chain broken at seq {report['first_bad']}" in status


def test_analytics_page_draws_charts_server_side(audited: Dashboard) -> None:
    page = audited.client("sue").get("/surveillance/analytics").get_data(as_text=True)
    assert page.count("<svg") == 3 and "<script" not in page.split("<main>")[1]
    assert "-546.67%" in page  # the table lost $410 on $75 wagered in that shift
    assert 'class="bar negative"' in page


def test_hold_and_shift_arithmetic() -> None:
    def settled(table: str, at: str, wagered: int, paid: int, dealer: str, alarms: int = 0) -> RoundSummary:
        r = RoundSummary(table, 1, at, 1, outcome="settled", wagered=wagered, paid=paid)
        r.users[dealer] += 1
        r.alarms = ["misdeal"] * alarms
        r.results = [{"seat": 1}, {"seat": 2}]
        return r

    rounds = [
        settled("t1", "2026-11-29T07:10:00Z", 1000, 800, "dana"),
        settled("t1", "2026-11-29T07:50:00Z", 3000, 2900, "dana", alarms=2),
        settled("t1", "2026-11-29T15:00:00Z", 1000, 1500, "eve"),
    ]
    voided = RoundSummary("t1", 9, "2026-11-29T03:00:00Z", 50, outcome="voided", wagered=500, paid=500)
    voided.users["eve"] += 1
    report = build([*rounds, voided])
    hold = {(h.table, h.shift): (h.rounds, h.wagered, h.house_net, percent_text(h.hold)) for h in report.hold}
    assert hold == {
        ("t1", "2026-11-29 day"): (2, 4000, 300, "7.50%"),
        ("t1", "2026-11-29 swing"): (1, 1000, -500, "-50.00%"),
    }
    shifts = {(d.dealer, d.shift): (d.rounds, d.voids, d.alarms) for d in report.dealer_shifts}
    assert shifts[("eve", "2026-11-28 grave")] == (1, 1, 0)  # 03:00 belongs to the night before
    assert shifts[("dana", "2026-11-29 day")] == (2, 0, 2)
    assert report.hands_per_hour == [("t1", "2026-11-29 07:00", 2, 4), ("t1", "2026-11-29 15:00", 1, 2)]
    assert shift_of("2026-11-29T22:00:00Z") == "2026-11-29 grave"
    assert RoundFilter(alarms_only=True).matches(rounds[1], "g") and not RoundFilter(
        alarms_only=True
    ).matches(rounds[0], "g")


def test_envy_shows_per_seat_with_the_hand_that_earned_it_and_the_settings_on_the_timeline(
    tmp_path: Path,
) -> None:
    """No Envy chip: $5 Fortune bets at seats 1 and 3 earn $5 for each other four of a kind (seat 1:
    seat 2's; seat 3: seats 1's and 2's), shown on the dealer's panel, in the round page and its
    timeline, and in analytics."""
    fupg = "fupg-1"
    board = make_dashboard(tmp_path, [load_table("face-up-pai-gow")])
    dealer = board.client("dana")
    assert dealer.act(fupg, "round-open").status_code == 200
    wagers = [
        (1, "wager", 2500),
        (1, "fortune", 500),
        (2, "wager", 2500),
        (3, "wager", 2500),
        (3, "fortune", 500),
    ]
    for seat, bet, amount in wagers:
        assert dealer.act(fupg, "wager", seat=seat, bet=bet, amount=amount).status_code == 200
    assert dealer.act(fupg, "wager", seat=1, bet="envy", amount=100).status_code != 200
    assert dealer.act(fupg, "betting-closed").status_code == 200
    assert dealer.act(fupg, "dice", total=9).status_code == 200
    board.shoe(fupg, *"AS AH AD AC JK KC KD".split())
    board.shoe(fupg, *"9S 9H 9D 9C KS 2D 3H".split(), *"8S 8H 8D 8C QS 4D 5H".split())
    board.shoe(fupg, *"2S 2H 6D 7C JD TC 3C".split())
    for seat, front in [(1, ["KS", "3H"]), (2, ["QS", "5H"]), (3, ["JD", "TC"])]:
        assert (
            dealer.act(fupg, "decision", position=f"seat-{seat}", action="set-hand", cards=front).status_code
            == 200
        )
    panel = dealer.get(f"/tables/{fupg}/panel").get_data(as_text=True)
    assert panel.count("envy (seat-1)") == 1 and panel.count("envy (seat-2)") == 2
    auditor = board.client("sue")
    page = auditor.get(f"/surveillance/rounds/{fupg}/1").get_data(as_text=True)
    assert "envy (seat-1)" in page and "envy (seat-2)" in page
    assert "dealer five-card AS AH AD AC JK | two-card KD KC" in page
    assert "seat-3 five-card 2S 2H 6D 7C 3C | two-card JD TC" in page
    analytics = auditor.get("/surveillance/analytics").get_data(as_text=True)
    assert "<td>$15.00</td>" in analytics
