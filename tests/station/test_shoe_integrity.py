"""A station and the shoe emulator over TCP through the shoe's own failures: a reboot whose HELLO is
lost, a card number sent again with another card, a frame type and a status code from newer
firmware. Every card reaches the table once, in order; the alarms are the ones the docs name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dealerassist.station.station import Station
from dealerassist.station.tables import check_table
from dealerassist.tablefiles.tables import table_from_mapping
from dealerassist.tracker import events as ev
from firmware_bridge.emulators.shoe import ShoeEmulator
from tests.station.helpers import table_data, wait_for

TABLE = "pu-1"
CARDS = ["AS", "2H", "3D", "AC", "4S", "2C"]  # seat 1, seat 2, dealer; twice round


def start_station(tmp_path: Path, shoe: ShoeEmulator) -> Station:
    table = check_table(table_from_mapping(table_data("pairs-and-up", shoe.url), "pairs-and-up (test)"))
    station = Station([table], tmp_path / "data", shoe_silence_s=1.5)
    station.start()
    wait_for(lambda: station.shoes[TABLE].link_up, what="shoe link up")
    return station


@pytest.fixture(params=[2, 1], ids=["v2", "v1-firmware"])
def shoe(request: pytest.FixtureRequest) -> Iterator[ShoeEmulator]:
    version = request.param
    emulator = ShoeEmulator(deck="pairs-and-up-52", seed=5, heartbeat=0.2, retransmit=0.1, version=version)
    emulator.serve_tcp("127.0.0.1", 0)
    emulator.start()
    yield emulator
    emulator.stop()


@pytest.fixture
def station(tmp_path: Path, shoe: ShoeEmulator) -> Iterator[Station]:
    running = start_station(tmp_path, shoe)
    pit = running.pit
    pit.handle(TABLE, ev.RoundOpen(table=TABLE))
    for seat in (1, 2):
        pit.handle(TABLE, ev.Wager(table=TABLE, seat=seat, bet="ante", amount=500, user="d"))
    pit.handle(TABLE, ev.BettingClosed(table=TABLE))
    yield running
    running.stop()


def records(station: Station, kind: str) -> list[ev.Event]:
    return [r.event for r in station.log.records(table=TABLE) if r.event.kind == kind]


def dealt(station: Station) -> list[str]:
    return [e.card.code for e in records(station, "card-dealt")]  # type: ignore[attr-defined]


def alarms(station: Station) -> list[tuple[str, str]]:
    return [(a.code, a.message) for a in records(station, "alarm")]  # type: ignore[attr-defined]


def deal(shoe: ShoeEmulator, station: Station, cards: list[str]) -> None:
    start = len(dealt(station))
    for card in cards:
        shoe.deal(card)
    wait_for(lambda: len(dealt(station)) >= start + len(cards), what=f"{cards} dealt")


def test_reboot_with_a_lost_hello_loses_no_card(station: Station, shoe: ShoeEmulator) -> None:
    deal(shoe, station, CARDS[:3])
    boot_before = shoe.boot_id
    shoe.reboot(hello=False)  # the new power-up's cards are numbered 1, 2, 3 again
    deal(shoe, station, CARDS[3:])
    assert dealt(station) == CARDS
    reads = [(e.shoe_boot, e.shoe_sequence) for e in records(station, "card-read")]  # type: ignore[attr-defined]
    assert reads == [(boot_before, n) for n in (1, 2, 3)] + [(shoe.boot_id, n) for n in (1, 2, 3)]
    resets = [message for code, message in alarms(station) if code == "device-alarm"]
    assert resets and all("shoe reset" in m for m in resets), alarms(station)
    assert not records(station, "refused")
    assert station.shoes[TABLE].line_figures()["resyncs"] >= 1


def test_a_number_sent_again_with_another_card_is_an_alarm(station: Station, shoe: ShoeEmulator) -> None:
    deal(shoe, station, CARDS[:2])
    shoe.inject("repeat-card")  # card #2 again, but not 2H
    alarm = wait_for(
        lambda: [m for code, m in alarms(station) if code == "shoe-sequence"], what="the integrity alarm"
    )
    assert "#2 arrived again as a different card" in alarm[0]
    deal(shoe, station, CARDS[2:])
    assert dealt(station) == CARDS  # the other card was not dealt, nothing behind it was lost
    wait_for(lambda: shoe.pending() == 0, what="every frame acknowledged")


@pytest.mark.parametrize("fault", ["unknown-type", "unknown-status"])
def test_a_frame_from_newer_firmware_is_refused_once_and_cards_behind_it_flow(
    station: Station, shoe: ShoeEmulator, fault: str
) -> None:
    deal(shoe, station, CARDS[:2])
    shoe.inject(fault)
    deal(shoe, station, CARDS[2:])
    assert dealt(station) == CARDS
    assert shoe.naks_received == 0  # a refusal is not "damaged, resend"
    wait_for(lambda: shoe.pending() == 0, what="every frame acknowledged or refused")
    if shoe.version >= 2:
        assert shoe.refused == [(0x13 if fault == "unknown-type" else 0x12, fault)]
    protocol = [m for code, m in alarms(station) if code == "device-alarm"]
    assert len(protocol) == 1 and "shoe protocol: refused unknown" in protocol[0]
    assert station.shoes[TABLE].line_figures()["refusals"] == 1


def test_line_trouble_shows_in_health_and_alarms_past_the_threshold(tmp_path: Path) -> None:
    shoe = ShoeEmulator(deck="pairs-and-up-52", seed=5, heartbeat=0.2, retransmit=0.1)
    shoe.serve_tcp("127.0.0.1", 0)
    shoe.start()
    data = table_data("pairs-and-up", shoe.url)
    data["devices"]["shoe"]["line_alarm_per_minute"] = 5
    table = check_table(table_from_mapping(data, "pairs-and-up (test)"))
    station = Station([table], tmp_path / "data", shoe_silence_s=1.5)
    station.start()
    try:
        wait_for(lambda: station.shoes[TABLE].link_up, what="shoe link up")
        for _ in range(4):
            shoe.inject("bad-crc")
            shoe.deal()  # each damaged card is NAKed and resent whole
        wait_for(lambda: shoe.pending() == 0, what="every card through")
        line = station.health()["tables"][TABLE]["devices"]["shoe"]["line"]
        assert line["discarded"] == 4 and line["naks"] == 4 and line["per_minute"] == 8
        figures = station.device_probes()[f"shoe:{TABLE}"]()
        assert figures["naks"] == 4  # the status page shows each figure in the shoe's row
        messages = [m for code, m in alarms(station) if code == "device-alarm"]
        assert len(messages) == 1 and "shoe line-health: " in messages[0]
    finally:
        station.stop()
        shoe.stop()


def test_a_card_counted_but_never_sent_is_a_gap_alarm(station: Station, shoe: ShoeEmulator) -> None:
    deal(shoe, station, CARDS[:2])
    shoe.inject("lose-card")  # card #3 is counted in the heartbeats but never sent
    gap = wait_for(
        lambda: [m for code, m in alarms(station) if code == "device-alarm" and "gap" in m],
        timeout=15,
        what="the heartbeat gap alarm",
    )
    assert "3 card(s) drawn but the last received is #2" in gap[0]
    deal(shoe, station, CARDS[2:])  # numbered 4.. : the table deals them and names the missing #3
    assert dealt(station) == CARDS
    missing = [m for code, m in alarms(station) if code == "shoe-sequence"]
    assert len(missing) == 1 and "#3 were drawn but never received" in missing[0]
