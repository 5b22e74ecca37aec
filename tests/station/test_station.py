"""A station over real emulators on loopback: cards through the shoe driver, the sign fed by the
progressive, a pulled shoe cable raising and clearing the link alarm with no card lost, health."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dealerassist.station.station import Station
from dealerassist.station.tables import check_table
from dealerassist.tablefiles.tables import table_from_mapping
from dealerassist.tracker import events as ev
from firmware_bridge.emulators.shoe import ShoeEmulator
from firmware_bridge.emulators.sign import SignEmulator
from tests.station.helpers import shoe_on_tcp, table_data, wait_for


@pytest.fixture
def shoe(tmp_path: Path) -> Iterator[ShoeEmulator]:
    with shoe_on_tcp(tmp_path / "shoe.json", seed=5) as emulator:
        yield emulator


@pytest.fixture
def sign() -> Iterator[SignEmulator]:
    emulator = SignEmulator()
    emulator.serve_tcp("127.0.0.1", 0)
    emulator.start()
    yield emulator
    emulator.stop()


@pytest.fixture
def station(tmp_path: Path, shoe: ShoeEmulator, sign: SignEmulator) -> Iterator[Station]:
    data = table_data("pairs-and-up", shoe.url, sign.url)
    table = check_table(table_from_mapping(data, "pairs-and-up (test)"))
    running = Station([table], tmp_path / "data", sign_rate_hz=20.0, shoe_silence_s=0.6)
    running.start()
    yield running
    running.stop()


def _records(station: Station, kind: str) -> list[ev.Event]:
    return [r.event for r in station.log.records(table="pu-1") if r.event.kind == kind]


def test_links_come_up_and_health_names_every_device(station: Station, shoe: ShoeEmulator) -> None:
    wait_for(lambda: station.health()["ok"], what="shoe and sign links up")
    health = station.health()
    table = health["tables"]["pu-1"]
    line = table["devices"]["shoe"].pop("line")
    assert table["devices"]["shoe"] == {"up": True, "url": shoe.url}
    assert set(line) == {"discarded", "naks", "refusals", "resyncs", "reconnects", "per_minute"}
    assert table["devices"]["sign"]["up"] is True
    assert table["progressive"]["amount"] == 100_000
    assert health["log"]["ok"] and health["log"]["last_seq"] >= 1


def test_the_sign_shows_the_progressive_meter(station: Station, sign: SignEmulator) -> None:
    wait_for(lambda: "1,000" in sign.text(), what="the base amount on the sign")


def test_pulled_shoe_cable_alarms_recovers_and_loses_no_card(station: Station, shoe: ShoeEmulator) -> None:
    wait_for(lambda: station.shoes["pu-1"].link_up, what="shoe link up")
    pit = station.pit
    pit.handle("pu-1", ev.RoundOpen(table="pu-1"))
    pit.handle("pu-1", ev.Wager(table="pu-1", seat=1, bet="ante", amount=500, user="d"))
    pit.handle("pu-1", ev.Wager(table="pu-1", seat=2, bet="ante", amount=500, user="d"))
    pit.handle("pu-1", ev.BettingClosed(table="pu-1"))
    cards = ["AS", "2H", "3D", "AC", "4S", "2C"]  # seat 1, seat 2, dealer; twice round
    for card in cards[:2]:
        shoe.deal(card)
    tracker = pit.tracker("pu-1")
    wait_for(lambda: tracker.snapshot()["positions"].get("seat-2"), what="two cards dealt")

    shoe.unplug()
    wait_for(lambda: not station.health()["ok"], what="health to notice the pulled cable")
    assert station.health()["tables"]["pu-1"]["devices"]["shoe"]["up"] is False
    for card in cards[2:]:
        shoe.deal(card)  # the shoe keeps them until the host acknowledges
    alarms = wait_for(lambda: _records(station, "alarm"), what="the device-link alarm")
    assert alarms[0].code == "device-link" and "shoe" in alarms[0].message

    shoe.replug()
    wait_for(lambda: station.health()["ok"], what="the shoe link back")
    wait_for(lambda: tracker.snapshot()["phase"] == "decisions", what="all six cards dealt")
    dealt = [r.event for r in station.log.records(table="pu-1") if r.event.kind == "card-dealt"]
    assert [d.card.code for d in dealt] == cards
    reads = [e for e in _records(station, "card-read") if e.source == "shoe"]
    assert sorted(e.shoe_sequence for e in reads) == [1, 2, 3, 4, 5, 6]  # each card once, none lost
    cleared = wait_for(lambda: _records(station, "alarm-cleared"), what="the alarm cleared")
    assert cleared[0].alarm_id == alarms[0].alarm_id
    links = [(e.device, e.up) for e in _records(station, "device-link") if e.device == "shoe"]
    assert links[-3:] == [("shoe", True), ("shoe", False), ("shoe", True)]


def test_tables_sharing_one_sign_open_it_once(tmp_path: Path, shoe: ShoeEmulator, sign: SignEmulator) -> None:
    first = check_table(table_from_mapping(table_data("pairs-and-up", None, sign.url), "pu (test)"))
    second = check_table(table_from_mapping(table_data("face-up-pai-gow", None, sign.url), "fupg (test)"))
    running = Station([first, second], tmp_path / "data", sign_rate_hz=20.0)
    running.start()
    try:
        assert running.signs["pu-1"] is running.signs["fupg-1"]
        wait_for(lambda: running.health()["ok"], what="the shared sign up")
        devices = {t: running.health()["tables"][t]["devices"] for t in ("pu-1", "fupg-1")}
        assert devices["pu-1"]["sign"] == devices["fupg-1"]["sign"] == {"up": True, "url": sign.url}
    finally:
        running.stop()


class _BrokenCamera:
    """A camera whose status call fails, as a driver bug would."""

    def status(self) -> dict[str, object]:
        raise RuntimeError("frame counter gone")


def test_a_failing_status_probe_reports_its_link_down_instead_of_raising(
    tmp_path: Path, shoe: ShoeEmulator, sign: SignEmulator
) -> None:
    data = table_data("pairs-and-up", shoe.url, sign.url)
    table = check_table(table_from_mapping(data, "pairs-and-up (test)"))
    running = Station([table], tmp_path / "data", cameras={"pu-1": _BrokenCamera()})
    running.start()
    try:
        wait_for(lambda: running.health()["tables"]["pu-1"]["devices"]["shoe"]["up"], what="shoe link up")
        health = running.health()
        camera = health["tables"]["pu-1"]["devices"]["camera"]
        assert camera["up"] is False and "frame counter gone" in camera["problem"]
        assert health["ok"] is False
    finally:
        running.stop()


def test_signs_at_two_addresses_on_one_line_show_their_own_tables(tmp_path: Path, sign: SignEmulator) -> None:
    other = SignEmulator(address="02")
    sign.join_line(other)  # a second sign on the same pair of wires
    first_data = table_data("pairs-and-up", None, sign.url)
    first_data["devices"]["sign"]["address"] = "01"
    second_data = table_data("face-up-pai-gow", None, sign.url)
    second_data["devices"]["sign"]["address"] = "02"
    second_data["progressive"]["base"] = "2000"
    first = check_table(table_from_mapping(first_data, "pu (test)"))
    second = check_table(table_from_mapping(second_data, "fupg (test)"))
    running = Station([first, second], tmp_path / "data", sign_rate_hz=20.0)
    running.start()
    try:
        assert running.signs["pu-1"] is not running.signs["fupg-1"]
        assert running.signs["pu-1"].line is running.signs["fupg-1"].line  # the port opened once
        wait_for(lambda: sign.text() == "JACKPOT $1,000.00", what="the first table's sign")
        wait_for(lambda: other.text() == "JACKPOT $2,000.00", what="the second table's sign")
        wait_for(lambda: running.health()["ok"], what="both signs up")
        # the second sign joined a line already running: its memory table went out before its files
        assert "no-string-file" not in other.problems and "no-string-file" not in sign.problems
        other.reset_memory()  # a power glitch with the cable in: blank, the link still up
        assert other.text() == "" and running.health()["ok"]
        wait_for(lambda: other.text() == "JACKPOT $2,000.00", timeout=8, what="restored by the 5 s refresh")
        probe = running.device_probes()["sign:fupg-1"]()
        assert probe["restored"] == 1 and probe["answers_reads"] is True
        assert running.device_probes()["sign:pu-1"]()["restored"] == 0
        # surveillance sees the blank sign in the record: a device alarm, and the alarm it raised
        resets = [r.event for r in running.log.records(table="fupg-1") if r.event.kind == "device-alarm"]
        assert [(e.device, e.code) for e in resets] == [("sign", "reset")]
        alarms = [r.event for r in running.log.records(table="fupg-1") if r.event.kind == "alarm"]
        assert any("sign reset" in a.message for a in alarms)
        assert not [r for r in running.log.records(table="pu-1") if r.event.kind == "device-alarm"]
    finally:
        running.stop()
