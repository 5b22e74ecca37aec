"""Checkpoints: a start from one comes to exactly the state a full read of the log gives, for every
game; a checkpoint that is damaged, edited, stale or of another log is ignored with one warning."""

from __future__ import annotations

import json
import logging
import random
import shutil
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from dealerassist.errors import DealerAssistError
from dealerassist.progressive.events import PROGRESSIVE_KINDS
from dealerassist.simulation.bets import plan_wagers
from dealerassist.simulation.dealer import PACES, Chances, SimulatedDealer
from dealerassist.simulation.direct_shoe import DirectShoe
from dealerassist.station.station import DB_NAME, Station
from dealerassist.station.tables import StationTable, check_table
from dealerassist.storage.chain import canonical_json
from dealerassist.storage.checkpoint import digest
from dealerassist.storage.eventlog import EventLog, LogError
from dealerassist.tablefiles.tables import table_from_mapping
from dealerassist.tracker import events as ev
from tests.pgserver import ThrowawayPostgres
from tests.station.helpers import table_data, wait_for

EDIT = "UPDATE events SET body = replace(body, '\"table\"', '\"table\" ') WHERE seq = ?"  # one byte more
GAMES = ["three-card-poker", "four-card-poker", "face-up-pai-gow", "perfect-pairs-blackjack", "pairs-and-up"]


def _table(slug: str) -> StationTable:
    """The game's example table; Pairs & Up and Face Up Pai Gow come with their progressive (the
    other games' side bets pay odds, which a progressive cannot)."""
    return check_table(table_from_mapping(table_data(slug, None), f"{slug} (test)"))


def _abandon(station: Station) -> None:
    """Stop without the clean stop's checkpoint, as a kill -9 would."""
    station.checkpoints.stop()
    station.checkpoints = None
    station.stop()


def _state(station: Station, table: str) -> dict[str, Any]:
    state: dict[str, Any] = {"snapshot": station.pit.tracker(table).snapshot()}
    controller = station.controllers.get(table)
    if controller is not None:
        state["progressive"] = controller.state()
        state["meter"] = controller.meter.to_dict()
        state["books"] = controller.checkpoint_state()
    return state


def _play(station: Station, table: StationTable, rounds: int, seed: int) -> None:
    """Whole rounds with misreads and stacked jackpots; a supervisor confirms some jackpots."""
    rng = random.Random(seed)
    dealer = SimulatedDealer(
        table.config,
        station.pit,
        DirectShoe(station.pit, table.table_id),
        rng=rng,
        pace=PACES["fast"],
        chances=Chances(exposure=0.0, misread=0.2, jackpot=0.4),
        say=lambda _text: None,
    )
    controller = station.controllers.get(table.table_id)
    for number in range(rounds):
        dealer.run(threading.Event(), rounds=number + 1)
        for hit_id in list(controller.meter.pending) if controller and number % 2 else []:
            controller.confirm(hit_id, "sam", "supervisor")


def _open_round(station: Station, table: StationTable, seed: int) -> None:
    """A round left in play: wagers, betting closed, two cards from the shoe."""
    pit, table_id = station.pit, table.table_id
    pit.handle(table_id, ev.RoundOpen(table=table_id))
    for wager in plan_wagers(table.config.rules, random.Random(seed)):
        try:
            pit.handle(
                table_id, ev.Wager(table=table_id, seat=wager.seat, bet=wager.bet, amount=wager.amount)
            )
        except DealerAssistError:
            pass  # a locked progressive refuses its wager; the refusal is in the log
    pit.handle(table_id, ev.BettingClosed(table=table_id))
    if pit.tracker(table_id).snapshot()["phase"] == "dice":
        pit.handle(table_id, ev.Dice(table=table_id, total=9))
    shoe = DirectShoe(pit, table_id)
    for card in table.config.rules.deck.cards()[-2:]:
        shoe.deal(card)


class _DiesBeforeTheLog:
    """A progressive's log whose writes never land: the process dies between the shared meter's
    commit and the table log's."""

    def __init__(self, log: Any) -> None:
        self._log = log

    def append_many(self, events: Any) -> list[Any]:
        return []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._log, name)


def _history(folder: Path, table: StationTable, seed: int = 3, *, lose_open_round: bool = False) -> int:
    """Rounds with checkpoints every few records, a round left open, then a kill: the seq of the
    last checkpoint, which lies before the log's end. ``lose_open_round``: the open round's
    progressive events reach the shared meter but not the log."""
    station = Station([table], folder, checkpoint_every=25)
    station.start()
    _play(station, table, 5, seed)
    keeper = station.checkpoints
    wait_for(lambda: keeper.written >= 2, what="periodic checkpoints")
    keeper.stop()  # the open round comes after the last checkpoint
    if lose_open_round:
        controller = station.controllers[table.table_id]
        controller.log = _DiesBeforeTheLog(controller.log)
    _open_round(station, table, seed)
    _abandon(station)
    return _stored(folder)["seq"]


def _stored(folder: Path) -> dict[str, Any]:
    with sqlite3.connect(folder / DB_NAME) as db:
        row = db.execute("SELECT name, seq, hash, parts, digest FROM log_checkpoint").fetchone()
    return dict(zip(("name", "seq", "hash", "parts", "digest"), row, strict=True))


def _store(folder: Path, row: dict[str, Any]) -> None:
    with sqlite3.connect(folder / DB_NAME) as db:
        db.execute("DELETE FROM log_checkpoint")
        db.execute(
            "INSERT INTO log_checkpoint (name, seq, hash, parts, digest) VALUES (?, ?, ?, ?, ?)",
            (row["name"], row["seq"], row["hash"], row["parts"], row["digest"]),
        )


def _start(folder: Path, table: StationTable) -> tuple[dict[str, Any], Any]:
    station = Station([table], folder)
    station.start()
    try:
        return _state(station, table.table_id), station.log.checkpoint
    finally:
        _abandon(station)


def _full_read(folder: Path, table: StationTable) -> dict[str, Any]:
    """The state from the whole log, on a copy without the checkpoint."""
    copy = folder.parent / f"{folder.name}-full"
    shutil.copytree(folder, copy)
    with sqlite3.connect(copy / DB_NAME) as db:
        db.execute("DELETE FROM log_checkpoint")
    state, checkpoint = _start(copy, table)
    assert checkpoint is None
    return state


@pytest.mark.parametrize("slug", GAMES)
def test_a_start_from_a_checkpoint_is_the_full_replay(tmp_path: Path, slug: str) -> None:
    table = _table(slug)
    folder = tmp_path / "data"
    at = _history(folder, table)
    with EventLog(folder / DB_NAME) as log:
        assert 0 < at < log.last_seq()
    resumed, checkpoint = _start(folder, table)
    assert checkpoint is not None and checkpoint.seq == at
    full = _full_read(folder, table)
    assert resumed == full
    snapshot = resumed["snapshot"]
    assert snapshot["status"] == "open" and sum(len(c) for c in snapshot["positions"].values()) == 2
    if table.progressive is not None:
        assert resumed["progressive"]["meters"]["qualifying_wagers"] > 0


def _checkpointed(tmp_path: Path) -> tuple[Path, StationTable]:
    table = _table("pairs-and-up")
    folder = tmp_path / "data"
    _history(folder, table)
    return folder, table


def _ignored(folder: Path, table: StationTable, caplog: pytest.LogCaptureFixture, why: str) -> None:
    full = _full_read(folder, table)
    with caplog.at_level(logging.WARNING, logger="dealerassist.checkpoint"):
        state, checkpoint = _start(folder, table)
    assert checkpoint is None
    warnings = [r.getMessage() for r in caplog.records if r.name == "dealerassist.checkpoint"]
    assert len(warnings) == 1 and why in warnings[0] and "\n" not in warnings[0]
    assert state == full


def test_an_edited_checkpoint_is_ignored(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder, table = _checkpointed(tmp_path)
    row = _stored(folder)
    parts = json.loads(row["parts"])
    parts["progressive:pu-1"]["store"]["meter"]["meter"] = "99999999"
    _store(folder, {**row, "parts": canonical_json(parts)})
    _ignored(folder, table, caplog, "digest does not match")


def test_a_checkpoint_newer_than_the_log_is_ignored(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A log restored from a backup with a checkpoint taken after the backup."""
    folder, table = _checkpointed(tmp_path)
    backup = tmp_path / "backup"
    shutil.copytree(folder, backup)
    station = Station([table], folder)
    station.start()
    void = ev.ApproveVoid(table="pu-1", user="sam", role="supervisor", reason="left open by the kill")
    station.pit.handle("pu-1", void)
    _play(station, table, 2, seed=9)
    station.stop()  # the clean stop's checkpoint, at the new end
    with EventLog(backup / DB_NAME) as log:
        assert _stored(folder)["seq"] > log.last_seq()
    _store(backup, _stored(folder))
    _ignored(backup, table, caplog, "newer than the log")


def test_a_checkpoint_of_another_log_is_ignored(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder, table = _checkpointed(tmp_path)
    other = tmp_path / "other"
    _history(other, table, seed=4)
    row = _stored(other)
    with EventLog(folder / DB_NAME) as log:
        assert row["seq"] <= log.last_seq() and log.stored_hash(row["seq"]) != row["hash"]
    _store(folder, row)
    _ignored(folder, table, caplog, "another hash")


def test_a_checkpoint_whose_record_was_rehashed_is_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder, table = _checkpointed(tmp_path)
    row = _stored(folder)
    forged = {**row, "hash": "f" * 64, "digest": digest(row["seq"], "f" * 64, row["parts"])}
    _store(folder, forged)
    _ignored(folder, table, caplog, "another hash")


def test_a_record_changed_after_the_checkpoint_stops_the_start(tmp_path: Path) -> None:
    folder, _ = _checkpointed(tmp_path)
    at = _stored(folder)["seq"]
    with sqlite3.connect(folder / DB_NAME) as db:
        db.execute(
            "UPDATE events SET body = replace(body, '\"table\"', '\"table\" ') WHERE seq = ?", (at + 1,)
        )
    before = (folder / DB_NAME).read_bytes()
    with pytest.raises(LogError, match=f"record {at + 1} does not match its hash"):
        EventLog(folder / DB_NAME)
    assert (folder / DB_NAME).read_bytes() == before


def test_a_record_changed_before_the_checkpoint_is_left_to_audit_verify(tmp_path: Path) -> None:
    """What the docs say a start does not check: the records a checkpoint vouches for."""
    folder, _ = _checkpointed(tmp_path)
    with sqlite3.connect(folder / DB_NAME) as db:
        db.execute(EDIT, (3,))
    with EventLog(folder / DB_NAME) as log:
        assert log.checkpoint is not None
    with EventLog(folder / DB_NAME, readonly=True) as log:
        report = log.verify()
    assert not report.ok and report.first_bad == 3


def test_a_start_without_a_checkpoint_checks_the_whole_chain(tmp_path: Path) -> None:
    folder, _ = _checkpointed(tmp_path)
    with sqlite3.connect(folder / DB_NAME) as db:
        db.execute("DELETE FROM log_checkpoint")
        db.execute(EDIT, (3,))
    with pytest.raises(LogError, match="record 3 does not match its hash"):
        EventLog(folder / DB_NAME)


@pytest.mark.postgres
def test_a_linked_progressive_starts_from_its_checkpoint_and_copies_nothing_twice(tmp_path: Path) -> None:
    """A shared meter's table starts from the checkpoint like a standalone one: the same state as a
    full read, no finished round's ledger event copied into the log again; and an event the ledger
    holds for an unfinished round but the log lost (a kill between the two commits) comes back once."""
    with ThrowawayPostgres(durable=False) as pg:
        data = table_data("pairs-and-up", None)
        data["progressive"].update(name="checkpoint-link", link=pg.url)
        table = check_table(table_from_mapping(data, "pairs-and-up (linked test)"))
        folder = tmp_path / "data"
        at = _history(folder, table)
        with EventLog(folder / DB_NAME) as log:
            before = [r.event for r in log.records() if r.event.kind in PROGRESSIVE_KINDS]
            assert 0 < at < log.last_seq() and before
        resumed, checkpoint = _start(folder, table)
        assert checkpoint is not None and checkpoint.seq == at
        assert resumed["books"]["keys_from_round"] > 1  # finished rounds' keys were dropped
        with EventLog(folder / DB_NAME) as log:
            after = [r.event for r in log.records() if r.event.kind in PROGRESSIVE_KINDS]
        assert after == before
        assert resumed == _full_read(folder, table)

    with ThrowawayPostgres(durable=False) as pg:  # again, the open round's events lost from the log
        data["progressive"].update(link=pg.url)
        table = check_table(table_from_mapping(data, "pairs-and-up (linked test)"))
        folder = tmp_path / "lost"
        _history(folder, table, lose_open_round=True)
        with EventLog(folder / DB_NAME) as log:
            open_round = max(r.event.round_id for r in log.records() if r.event.kind == "round-open")
            assert not [
                r
                for r in log.records()
                if r.event.kind in PROGRESSIVE_KINDS and getattr(r.event, "round_id", None) == open_round
            ]
        resumed, checkpoint = _start(folder, table)
        assert checkpoint is not None
        with EventLog(folder / DB_NAME) as log:
            recopied = [
                r.event
                for r in log.records()
                if r.event.kind in PROGRESSIVE_KINDS and getattr(r.event, "round_id", None) == open_round
            ]
        assert recopied and len({e.key for e in recopied}) == len(recopied)
        assert resumed == _full_read(folder, table)
