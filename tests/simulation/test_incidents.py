"""The demo's incidents through the real devices and tracker: a stacked shoe brings the progressive's
top hand (WIN on the sign, paid by the supervisor), an unreadable shoe card is confirmed by the
dealer, the camera catches a hidden dealer card face up and the round is void, and without the
auto-supervisor the dealer waits for a person to confirm a jackpot."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealerassist.simulation.dealer import Chances
from dealerassist.simulation.demo import Demo, DemoOptions
from tests.station.helpers import wait_for

NOTHING = Chances(exposure=0.0, misread=0.0, jackpot=0.0)


def _demo(tmp_path: Path, games: list[str], chances: Chances, **options: object) -> Demo:
    settings = {"rounds": 2, "camera": False, "seed": 5, **options}
    return Demo(
        DemoOptions(
            games=games, data_dir=tmp_path / "demo", port=0, pace="fast", chances=chances, **settings
        ),
        say=lambda _text: None,
    )


def _run(demo: Demo) -> list:
    demo.start()
    try:
        demo.wait()
    finally:
        demo.stop()
    from dealerassist.storage.eventlog import EventLog

    log = EventLog(demo.db_path)
    try:
        assert log.verify().ok
        return [r.event for r in log.records()]
    finally:
        log.close()


def _round_of(events: list) -> list[int]:
    """The round each event belongs to: the last round number logged before it (a camera read
    carries none)."""
    current, out = 0, []
    for event in events:
        current = getattr(event, "round_id", None) or current
        out.append(current)
    return out


def _kinds(events: list, kind: str, table: str | None = None) -> list:
    return [e for e in events if e.kind == kind and (table is None or e.table == table)]


def test_stacked_shoes_bring_jackpots_the_supervisor_pays_and_misreads_the_dealer_confirms(
    tmp_path: Path,
) -> None:
    demo = _demo(tmp_path, ["pairs-and-up", "face-up-pai-gow"], Chances(0.0, misread=1.0, jackpot=1.0))
    events = _run(demo)
    hits = {(e.table, e.round_id): e for e in _kinds(events, "progressive-hit") if e.award.endswith("meter")}
    assert hits[("pu-1", 1)].hand == "four-aces-flush"
    assert hits[("fupg-1", 1)].hand == "seven-card-straight-flush"
    paid = _kinds(events, "progressive-paid")
    assert {(p.table, p.user) for p in paid} >= {("pu-1", "demo-supervisor"), ("fupg-1", "demo-supervisor")}
    assert all(t.stopped_by == "" and t.rounds == 2 for t in demo.tallies().values())

    for table in ("pu-1", "fupg-1"):  # one card per round left the shoe unreadable
        asked = _kinds(events, "read-needs-confirmation", table)
        confirmed = _kinds(events, "confirm-read", table)
        assert len(asked) == len(confirmed) == 2
        assert [c.read_id for c in confirmed] == [a.read_id for a in asked]
        assert all(
            c.user == "demo-dealer" and a.source == "shoe" for a, c in zip(asked, confirmed, strict=True)
        )
        dealt = {e.read_id: e for e in _kinds(events, "card-dealt", table) if e.read_id}
        drawn = demo.shoes[table].drawn  # what the shoe really sent, by shoe sequence
        unread = [e for e in _kinds(events, "card-read", table) if e.card is None]
        for confirmation, read in zip(confirmed, unread, strict=True):
            assert dealt[confirmation.read_id].card == confirmation.card
            assert drawn[read.shoe_sequence] is None  # sent as unreadable
        assert len(_kinds(events, "round-settled", table)) == 2


def test_the_camera_checks_showdowns_and_catches_an_exposed_dealer_card(tmp_path: Path) -> None:
    demo = _demo(tmp_path, ["three-card-poker"], Chances(exposure=0.5, misread=0.0, jackpot=0.0), camera=True)
    events = _run(demo)
    voids = _kinds(events, "round-voided")
    settled = _kinds(events, "round-settled")
    assert len(voids) == len(settled) == 1  # this seed: one careless turn, one clean showdown
    assert "exposed-dealer-card" in voids[0].reason
    alarms = _kinds(events, "alarm")
    assert [a.code for a in alarms] == ["exposed-dealer-card"]
    acks = _kinds(events, "ack-alarm")
    assert [(a.alarm_id, a.user, a.role) for a in acks] == [
        (alarms[0].alarm_id, "demo-supervisor", "supervisor")
    ]
    rounds = _round_of(events)
    camera = [(rounds[i], e) for i, e in enumerate(events) if e.kind == "card-read" and e.source == "camera"]
    exposing = [e for r, e in camera if r == voids[0].round_id and e.position == "dealer" and e.face_up]
    assert exposing and all((tmp_path / "demo" / "snapshots" / e.snapshot).is_file() for _, e in camera)
    showdown = settled[0].round_id
    dealt = {
        (e.position, e.card) for i, e in enumerate(events) if e.kind == "card-dealt" and rounds[i] == showdown
    }
    seen = {(e.position, e.card) for r, e in camera if r == showdown}
    assert len(seen) >= 6 and seen <= dealt  # the showdown look: cards the shoe dealt there
    assert len(seen) >= 6  # the showdown look confirmed most of the round's cards


def test_the_camera_sees_the_layout_cleared_before_the_next_round_opens(tmp_path: Path) -> None:
    # Half a Pairs & Up deck is aces: a dealer card often has the code of the card that lay on the
    # same spot the round before. Unless the camera sees the cards collected between rounds, such a
    # card looks unchanged to it, and its exposure goes unreported.
    demo = _demo(
        tmp_path, ["pairs-and-up"], Chances(exposure=1.0, misread=0.0, jackpot=0.0), camera=True, rounds=3
    )
    events = _run(demo)
    opened = [i for i, e in enumerate(events) if e.kind == "round-open"]
    assert len(opened) == 3
    for before, after in itertools.pairwise(opened):
        between = events[before:after]
        last_close = max(i for i, e in enumerate(between) if e.kind == "round-close")
        dealer_read = [
            i
            for i, e in enumerate(between)
            if e.kind == "card-read" and e.source == "camera" and e.position == "dealer"
        ]
        cleared = [
            i
            for i, e in enumerate(between)
            if e.kind == "card-removed"
            and e.source == "camera"
            and e.position == "dealer"
            and i > max(dealer_read)
        ]
        assert dealer_read and cleared and max(cleared) < last_close


def test_a_hidden_dealer_card_turned_up_beside_its_twin_voids_the_round(tmp_path: Path) -> None:
    # Seed 7 deals the Pairs & Up dealer AS AS in round 2. Both face up must be two cards to the
    # camera, and the second ace the hidden one to the tracker, or the exposure goes unseen.
    demo = _demo(
        tmp_path, ["pairs-and-up"], Chances(exposure=1.0, misread=0.0, jackpot=0.0), camera=True, seed=7
    )
    events = _run(demo)
    rounds = _round_of(events)
    dealt = [e for i, e in enumerate(events) if e.kind == "card-dealt" and rounds[i] == 2]
    assert [e.card.code for e in dealt if e.position == "dealer"] == ["AS", "AS"], "pick another seed"
    aces = {
        e.track
        for i, e in enumerate(events)
        if e.kind == "card-read" and e.source == "camera" and rounds[i] == 2 and e.position == "dealer"
    }
    assert len(aces) == 2
    voids = _kinds(events, "round-voided")
    assert [v.round_id for v in voids] == [1, 2]
    assert all("exposed-dealer-card" in v.reason for v in voids)


@pytest.fixture
def waiting_demo(tmp_path: Path) -> Iterator[Demo]:
    demo = _demo(tmp_path, ["pairs-and-up"], Chances(0.0, 0.0, jackpot=1.0), auto_supervisor=False)
    messages: list[str] = []
    demo.say = messages.append
    demo.messages = messages  # type: ignore[attr-defined]
    yield demo
    demo.stop()


def test_without_the_auto_supervisor_the_dealer_waits_for_a_person(waiting_demo: Demo) -> None:
    demo = waiting_demo
    demo.start()
    controller = demo.station.controllers["pu-1"]  # type: ignore[union-attr]
    pending = wait_for(lambda: controller.state()["pending"], what="a jackpot waiting for payment")
    wait_for(lambda: any("JACKPOT waiting" in m for m in demo.messages), what="the console message")  # type: ignore[attr-defined]
    tracker = demo.station.pit.tracker("pu-1")  # type: ignore[union-attr]
    assert tracker.round_id == 1 and tracker.snapshot()["status"] == "closed"  # no new round meanwhile
    controller.confirm(pending[0], "floor-sup", "supervisor")
    finished = threading.Event()
    threading.Thread(target=lambda: (demo.wait(), finished.set()), daemon=True).start()
    assert finished.wait(30)
    assert demo.tallies()["pu-1"].rounds == 2


def test_a_shoe_cable_pulled_mid_round_pauses_the_dealer_and_loses_no_card(tmp_path: Path) -> None:
    demo = _demo(tmp_path, ["three-card-poker"], NOTHING, rounds=3)
    messages: list[str] = []
    demo.say = messages.append
    demo.start()
    try:
        tracker = demo.station.pit.tracker("tcp-1")  # type: ignore[union-attr]
        wait_for(lambda: tracker.round_id == 2 and tracker.snapshot()["positions"], what="round 2 dealing")
        demo.shoes["tcp-1"].unplug(for_seconds=2.0)
        demo.wait()
    finally:
        demo.stop()
    assert any("waiting for the shoe's card" in m for m in messages)
    from dealerassist.storage.eventlog import EventLog

    log = EventLog(demo.db_path)
    try:
        events = [r.event for r in log.records()]
    finally:
        log.close()
    assert len(_kinds(events, "round-settled")) == 3
    sequences = [e.shoe_sequence for e in _kinds(events, "card-read") if e.source == "shoe"]
    assert sequences == list(range(1, len(sequences) + 1))  # every card once, in order
    assert len(_kinds(events, "card-dealt")) == len(sequences)
    link = [a for a in _kinds(events, "alarm") if a.code == "device-link"]
    assert link and "shoe" in link[0].message
    assert link[0].alarm_id in {c.alarm_id for c in _kinds(events, "alarm-cleared")}
