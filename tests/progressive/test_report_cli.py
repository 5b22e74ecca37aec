"""The reconciliation report and the ``dealerassist progressive`` commands on a real log."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from dealerassist.cli import main
from dealerassist.progressive.controller import ProgressiveController
from dealerassist.progressive.events import ProgressiveContribution
from dealerassist.progressive.params import params_from_table
from dealerassist.progressive.report import exact_text, reconcile
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from tests.progressive.support import TableFeed, attach, make_params

TABLE = "fupg-1"  # the bundled tables/face-up-pai-gow.toml


def played_log(path: Path) -> EventLog:
    log = EventLog(path)
    feed = TableFeed(TABLE, log)
    ctl = attach(feed, ProgressiveController(TABLE, make_params(), log))
    feed.round(1, {1: 100, 2: 100, 3: 100})
    feed.settle(1, {2: "royal-match", 3: "five-aces"})
    ctl.confirm(f"{TABLE}:1:2", "sam", "supervisor")
    feed.round(2, {1: 100})
    feed.void(2)
    return log


def pairs(log: EventLog) -> list:
    return [(r.seq, r.event) for r in log.records()]


def test_a_clean_log_reconciles_door_by_door(tmp_path: Path) -> None:
    log = played_log(tmp_path / "e.db")
    rec = reconcile(pairs(log), "fortune-link", sign_amount=900_042)
    assert rec.ok, rec.variances
    assert rec.seeds == 1_000_000 and rec.wagers == 4
    assert rec.contributions == 4 * Fraction("19.75")
    assert rec.awards == 100_004 + Fraction("12.75")  # 10% of the meter, and the reserve toward $1,000
    assert rec.corrections == -Fraction("19.75")
    assert rec.replayed.pools == rec.expected_pools
    assert "variances: none" in rec.lines()


def test_variances_are_named(tmp_path: Path) -> None:
    log = played_log(tmp_path / "e.db")
    events = pairs(log)
    at = next(i for i, (_, e) in enumerate(events) if isinstance(e, ProgressiveContribution))
    seq, first = events[at]
    events[at] = (seq, replace(first, amount_after=first.amount_after + 100))
    events.append(events[at + 1])  # the same contribution logged twice
    controller = replace(reconcile(pairs(log), "fortune-link").replayed, meter=Fraction(1))
    rec = reconcile(events, "fortune-link", controller=controller, sign_amount=123)
    text = "\n".join(rec.variances)
    assert f"record {seq} (progressive-contribution" in text and "recorded the meter at" in text
    assert "logged twice; counted once" in text
    assert "controller meter $0.01" in text
    assert "the sign shows $1.23" in text
    assert exact_text(Fraction(247, 2)) == "$1.23 + 1/2¢"


def test_the_commands_show_confirm_and_reconcile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "sim.db"
    assert main(["progressive", "simulate", "--table", "face-up-pai-gow", "--db", str(db), "--rounds", "3",
                 "--jackpot-round", "9", "--interval", "0"]) == 0  # fmt: skip
    out = capsys.readouterr()
    assert "round 3: meter $10,00" in out.out and "no [progressive] section" not in out.err
    log = EventLog(db)
    feed = TableFeed(TABLE, log)
    ctl = attach(feed, ProgressiveController(TABLE, params_from_table(load_table("face-up-pai-gow")), log))
    feed.round(4, {5: 100})
    feed.settle(4, {5: "seven-card-straight-flush"})
    ctl.stop()
    assert main(["progressive", "status", "--table", "face-up-pai-gow", "--db", str(db), "--json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["pending"] == [f"{TABLE}:4:5"] and state["status"] == "win"
    base = ["--table", "face-up-pai-gow", "--db", str(db)]
    assert main(["progressive", "confirm", f"{TABLE}:4:5", *base, "--user", "dana"]) == 1
    assert "only a supervisor" in capsys.readouterr().err
    assert (
        main(["progressive", "confirm", f"{TABLE}:4:5", *base, "--user", "sam", "--role", "supervisor"]) == 0
    )
    assert "confirmed: jackpot" in capsys.readouterr().out
    assert main(["progressive", "status", *base]) == 0
    assert "NORMAL" in capsys.readouterr().out
    assert main(["progressive", "report", *base]) == 0
    assert "variances: none" in capsys.readouterr().out
    assert main(["progressive", "report", *base, "--sign-amount", "$1.00"]) == 1
    assert "the sign shows $1.00" in capsys.readouterr().out
    assert main(["progressive", "report", *base, "--sign-amount", "lots"]) == 1
    assert "--sign-amount" in capsys.readouterr().err


def test_a_missing_log_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["progressive", "status", "--table", "face-up-pai-gow", "--db", str(tmp_path / "none.db")]) == 1
    )
    assert "no event log there" in capsys.readouterr().err


def test_status_leaves_the_log_exactly_as_it_found_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``progressive status`` only looks: not even the controller's parameter record is written,
    for a table that has records in the log or for one that has none."""
    db = tmp_path / "sim.db"
    assert main(["progressive", "simulate", "--table", "face-up-pai-gow", "--db", str(db), "--rounds", "2",
                 "--jackpot-round", "9", "--interval", "0"]) == 0  # fmt: skip
    capsys.readouterr()
    before = db.read_bytes()
    for table in ("face-up-pai-gow", "pairs-and-up"):
        assert main(["progressive", "status", "--table", table, "--db", str(db), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["table"] in ("fupg-1", "pu-1")
    assert db.read_bytes() == before
    log = EventLog(db)
    assert log.verify().ok
    log.close()
