"""Hand-written rounds of every game replay to their stated results; exported rounds replay to the
settlement they were recorded with; the export and replay commands behave on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from dealer_bot import make_script
from highcard_game import high_card_rules

from dealerassist.errors import DealerAssistError
from dealerassist.events import EventError
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker import Tracker
from dealerassist.tracker.replay import Replayer, ReplayLine, read_replay_file

ROUNDS = Path(__file__).resolve().parents[2] / "tests" / "rounds"
FIXTURES = sorted(ROUNDS.glob("*.jsonl"))


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dealerassist", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def _stated_refusals(path: Path) -> int:
    count = 0
    for line in read_replay_file(path):
        expect = line.data.get("data", {}).get("expect", {}) if line.data.get("kind") == "meta" else {}
        count += len(expect.get("refused", []))
    return count


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_hand_written_rounds_settle_as_stated(path: Path) -> None:
    report = Replayer(base_dir=path.parent).run(read_replay_file(path))
    failed = [c.message for c in report.checks if not c.ok]
    assert not failed
    assert len(report.checks) >= 3, "each game's file states the result of several rounds"
    assert len(report.refused) == _stated_refusals(path), report.refused


def test_all_five_games_have_hand_written_rounds() -> None:
    from dealerassist.tablefiles.tables import load_table

    games = set()
    for path in FIXTURES:
        table_file = json.loads(path.read_text().splitlines()[0])["data"]["table_file"]
        games.add(load_table(table_file).rules.game)
    assert games == {
        "three-card-poker",
        "four-card-poker",
        "face-up-pai-gow",
        "perfect-pairs-blackjack",
        "pairs-and-up",
    }


def _play_into(db: Path, seed: int, rounds: int) -> int:
    with EventLog(db) as log:
        tracker = Tracker(high_card_rules("hc-1"), log)
        for data in make_script(seed, rounds):
            try:
                tracker.handle_data(data)
            except DealerAssistError:
                pass
        return log.last_seq()


def _export_lines(db: Path, *extra: str) -> list[ReplayLine]:
    result = _cli("export", "--db", str(db), *extra)
    assert result.returncode == 0, result.stderr
    path = db.with_suffix(".jsonl")
    path.write_text(result.stdout, encoding="utf-8")
    return read_replay_file(path)


def test_exported_rounds_replay_to_the_recorded_settlements(tmp_path: Path) -> None:
    db = tmp_path / "events.db"
    records = _play_into(db, seed=11, rounds=12)
    lines = _export_lines(db)
    assert len(lines) == records
    report = Replayer({"hc-1": high_card_rules("hc-1")}).run(lines)
    compared = [c for c in report.checks if c.line == 0]
    assert len(compared) == 12 and all(c.ok for c in compared), [c.message for c in compared]


def test_an_altered_export_no_longer_settles_as_recorded(tmp_path: Path) -> None:
    db = tmp_path / "events.db"
    _play_into(db, seed=5, rounds=4)
    lines = _export_lines(db)
    reads = [line for line in lines if line.data["kind"] == "card-read" and line.data["source"] == "shoe"]
    dealer_card = reads[-1]
    dealer_card.data["card"] = "2C" if dealer_card.data["card"] != "2C" else "AC"
    report = Replayer({"hc-1": high_card_rules("hc-1")}).run(lines)
    assert not report.ok
    assert any("DIFFERS" in c.message for c in report.checks)


def test_export_and_replay_commands_round_trip_a_real_game(tmp_path: Path) -> None:
    db = tmp_path / "events.db"
    fixture = ROUNDS / "three-card-poker.jsonl"
    with EventLog(db) as log:
        assert Replayer(base_dir=ROUNDS, log=log).run(read_replay_file(fixture)).ok
    export = tmp_path / "tcp.jsonl"
    assert _cli("export", "--db", str(db), "--table", "tcp-1", "-o", str(export)).returncode == 0
    replay = _cli("replay", str(export), cwd=tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert replay.stdout.count("settles as recorded") == 6
    assert "ALARM tcp-1 round 3 exposed-dealer-card" in replay.stdout
    as_json = _cli("replay", str(export), "--json", cwd=tmp_path)
    kinds = [json.loads(line)["kind"] for line in as_json.stdout.splitlines()]
    assert kinds.count("round-settled") == 4 and kinds.count("round-voided") == 2


def test_csv_export_and_time_window(tmp_path: Path) -> None:
    db = tmp_path / "events.db"
    records = _play_into(db, seed=3, rounds=2)
    csv_out = _cli("export", "--db", str(db), "--format", "csv")
    rows = csv_out.stdout.splitlines()
    assert rows[0] == "seq,recorded_at,table,round_id,kind,user,event,prev_hash,hash"
    assert len(rows) == records + 1
    assert _export_lines(db, "--to", "2000-01-01") == []
    assert len(_export_lines(db, "--from", "2000-01-01T00:00:00+02:00")) == records
    bad = _cli("export", "--db", str(db), "--from", "yesterday")
    assert bad.returncode == 1 and "--from: not an ISO-8601" in bad.stderr


def test_replay_file_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"kind": "round-open", "table": "hc-1"}\n{"kind": oops}\n', encoding="utf-8")
    with pytest.raises(EventError, match=r"bad\.jsonl:2: not a JSON line"):
        read_replay_file(path)
    result = _cli("replay", str(path))
    assert result.returncode == 1 and "bad.jsonl:2" in result.stderr
    path.write_text(
        '{"kind": "round-settled", "table": "hc-1", "round_id": 1, "results": []}\n'
        '{"kind": "round-open", "table": "nowhere"}\n',
        encoding="utf-8",
    )
    report = Replayer().run(read_replay_file(path))
    assert [r.line for r in report.refused] == [1, 2]
    assert "not an input" in report.refused[0].message and "no configuration" in report.refused[1].message
    assert [r.record.rule for r in report.refused] == ["not-an-input", "ConfigError"]


def test_tracker_benchmark_runs_and_reports_both_sides(tmp_path: Path) -> None:
    result = _cli("bench", "tracker", "--rounds", "2", "--slices", "2", "--json", "--dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["tracker"]["inputs"] == figures["raw"]["rows"] > 0
    assert figures["tracker"]["records"] > figures["tracker"]["inputs"]
    assert figures["ratio"] > 0 and figures["tracker"]["p99_ms"] >= figures["tracker"]["p50_ms"]


def _envy_chip_round(declared: bool) -> str:
    expect: dict = {"round_id": 1, "outcome": "open", "alarms": []}
    if declared:
        expect["refused"] = ["envy-no-stake"]
    lines = [
        {"kind": "meta", "table": "fupg-1", "data": {"table_file": "face-up-pai-gow"}},
        {"table": "fupg-1", "kind": "round-open"},
        {"table": "fupg-1", "kind": "wager", "seat": 1, "bet": "wager", "amount": 2500, "user": "d1"},
        {"table": "fupg-1", "kind": "wager", "seat": 1, "bet": "envy", "amount": 100, "user": "d1"},
        {"kind": "meta", "table": "fupg-1", "data": {"expect": expect}},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.mark.parametrize("declared", [True, False])
def test_replay_json_gives_the_refused_records_fields_and_only_an_undeclared_refusal_fails(
    tmp_path: Path, declared: bool
) -> None:
    path = tmp_path / "envy-chip.jsonl"
    path.write_text(_envy_chip_round(declared), encoding="utf-8")
    result = _cli("replay", "--json", str(path), cwd=Path(__file__).resolve().parents[2])
    assert result.returncode == (0 if declared else 1), result.stdout + result.stderr
    printed = [json.loads(line) for line in result.stdout.splitlines()]
    refused = [p for p in printed if p["kind"] == "refused"]
    assert len(refused) == 1
    record = refused[0]
    assert record["line"] == 4 and record["rule"] == "envy-no-stake" and record["round_id"] == 1
    assert record["field"] == "" and record["input_kind"] == "wager" and record["declared"] is declared
    assert record["input"] == {
        "table": "fupg-1",
        "kind": "wager",
        "seat": 1,
        "bet": "envy",
        "amount": 100,
        "user": "d1",
    }
    failed = [p for p in printed if p["kind"] == "check" and not p["ok"]]
    assert bool(failed) is not declared


def test_replay_command_settles_envy_without_a_stake_and_records_the_settings() -> None:
    """The hand-written pai gow round as a process: Envy paid to each qualifying Fortune bettor
    once per other four of a kind, none for its own hand or the dealer's five aces, nothing lost,
    and each position's two-card and five-card hands in the settlement record."""
    path = ROUNDS / "face-up-pai-gow.jsonl"
    result = _cli("replay", "--json", str(path), cwd=Path(__file__).resolve().parents[2])
    assert result.returncode == 0, result.stdout + result.stderr
    printed = [json.loads(line) for line in result.stdout.splitlines()]
    settled = [p for p in printed if p["kind"] == "round-settled" and p["round_id"] == 4]
    assert len(settled) == 1
    record = settled[0]
    envy = sorted(
        (r["seat"], r["earned_by"], r["win"], r["stake"]) for r in record["results"] if r["bet"] == "envy"
    )
    assert envy == [(1, "seat-2", 500, 0), (3, "seat-1", 500, 0), (3, "seat-2", 500, 0)]
    assert all(r["outcome"] == "win" for r in record["results"] if r["bet"] == "envy")
    assert record["settings"]["dealer"] == {
        "two-card": ["KD", "KC"],
        "five-card": ["AS", "AH", "AD", "AC", "JK"],
    }
    assert set(record["settings"]) == {"dealer", "seat-1", "seat-2", "seat-3", "seat-4"}
    for position, hands in record["settings"].items():
        assert len(hands["two-card"]) == 2 and len(hands["five-card"]) == 5, position
    refused = [p for p in printed if p["kind"] == "refused" and p["round_id"] == 4]
    assert [(r["rule"], r["declared"]) for r in refused] == [("envy-no-stake", True)]
