"""ShoeReader against the shoe emulator over a real pty and a real TCP socket."""

from __future__ import annotations

import itertools
import os
import random
import time

import pytest

from dealerassist.core.cards import Card
from dealerassist.errors import DealerAssistError
from dealerassist.events import Event
from firmware_bridge.emulators import registry
from firmware_bridge.emulators.shoe import ShoeEmulator
from firmware_bridge.ports import DeviceConfig, PortError, open_port
from firmware_bridge.shoe import ShoeReader
from firmware_bridge.shoe.framing import Frame, encode_frame
from firmware_bridge.shoe.messages import T_CARD, card_payload

from .conftest import Collector, plug, wait_for


def reader(url: str, collector: Collector, **kwargs: float) -> ShoeReader:
    options = {"silence_timeout": 1.0, "backoff_start": 0.02, "backoff_max": 0.2} | kwargs
    shoe = ShoeReader(url, "TCP-1", collector, **options)  # type: ignore[arg-type]
    shoe.start()
    return shoe


def test_cards_buttons_and_status_become_events(collector: Collector, cable: str) -> None:
    shoe_emulator = ShoeEmulator(seed=11, script="AS 10h", retransmit=0.1, heartbeat=0.2)
    shoe = reader(plug(shoe_emulator, cable), collector)
    try:
        wait_for(lambda: collector.links() == [True], what="link up")
        assert shoe_emulator.deal() == 1
        assert shoe_emulator.deal() == 2
        shoe_emulator.deal(unreadable=True)
        shoe_emulator.press_button()
        shoe_emulator.report_status("cover-open", "lid")
        shoe_emulator.inject("jam")
        shoe_emulator.inject("unreadable")
        wait_for(lambda: len(collector.of("shoe-status")) == 3, what="statuses")
        reads = collector.of("card-read")
        assert [r.card for r in reads] == [Card.parse("AS"), Card.parse("TH"), None, None]  # type: ignore[attr-defined]
        assert all(r.source == "shoe" and r.table == "TCP-1" and r.device_time for r in reads)  # type: ignore[attr-defined]
        assert len(collector.of("dealer-button")) == 1
        statuses = [(s.status, s.detail) for s in collector.of("shoe-status")]  # type: ignore[attr-defined]
        assert statuses == [
            ("cover-open", "lid"),
            ("jam", "injected"),
            ("card-unreadable", "card passed unread"),
        ]
        assert shoe.device is not None and shoe.device.model == "DA-EMU-SHOE"
    finally:
        shoe.stop()
        shoe_emulator.stop()


@pytest.mark.parametrize("fault", ["bad-crc", "drop", "duplicate", "truncate", "garbage"])
def test_line_faults_lose_and_repeat_nothing(
    shoe_emulator: ShoeEmulator, collector: Collector, cable: str, fault: str
) -> None:
    shoe = reader(plug(shoe_emulator, cable), collector)
    try:
        wait_for(lambda: shoe.link_up, what="link up")
        for _ in range(3):
            shoe_emulator.inject(fault)
            shoe_emulator.deal()
            shoe_emulator.deal()
        wait_for(lambda: shoe_emulator.pending() == 0, what="all cards acknowledged")
        assert collector.cards() == [1, 2, 3, 4, 5, 6]
        assert shoe_emulator.acked == [1, 2, 3, 4, 5, 6]
        expected = {"bad-crc": "bad-crc", "drop": None, "duplicate": "duplicates", "truncate": "truncated"}
        if expected.get(fault):
            assert shoe.stats[expected[fault]] == 3
        if fault == "bad-crc":
            assert shoe.stats["naks_sent"] == 3 and shoe_emulator.naks_received == 3
        if fault == "drop":
            assert shoe_emulator.retransmissions >= 3
    finally:
        shoe.stop()


def test_unplug_and_replug_keeps_every_card(
    shoe_emulator: ShoeEmulator, collector: Collector, cable: str
) -> None:
    shoe = reader(plug(shoe_emulator, cable), collector)
    try:
        wait_for(lambda: shoe.link_up, what="link up")
        shoe_emulator.deal()
        wait_for(lambda: shoe_emulator.acked == [1], what="first card acknowledged")
        shoe_emulator.unplug()
        wait_for(lambda: collector.links() == [True, False], what="link down")
        if shoe_emulator.link_path is not None:  # the stable name leaves with the device, like udev's
            assert not shoe_emulator.link_path.exists() and not shoe_emulator.link_path.is_symlink()
        drawn_while_down = [shoe_emulator.deal() for _ in range(3)]
        time.sleep(0.1)
        assert collector.cards() == [1]
        shoe_emulator.replug()
        wait_for(lambda: collector.links() == [True, False, True], what="link back up")
        if shoe_emulator.link_path is not None:
            assert os.readlink(shoe_emulator.link_path) == shoe_emulator.pty_path
        wait_for(lambda: shoe_emulator.pending() == 0, what="queued cards delivered")
        assert drawn_while_down == [2, 3, 4]
        assert collector.cards() == [1, 2, 3, 4]
        assert shoe.stats["link_down"] == 1
        assert "link lost" in collector.of("device-link")[1].detail  # type: ignore[attr-defined]
    finally:
        shoe.stop()


def test_disconnect_mid_frame_then_retransmission(shoe_emulator: ShoeEmulator, collector: Collector) -> None:
    """Half a card frame, then the cable goes: after replug the whole card arrives exactly once."""
    shoe = reader(plug(shoe_emulator, "tcp:"), collector)
    try:
        wait_for(lambda: shoe.link_up, what="link up")
        half = encode_frame(Frame(200, T_CARD, card_payload(99, Card.parse("QS"), 0)))[:8]
        shoe_emulator.call(lambda: shoe_emulator.send(half))
        shoe_emulator.inject("drop")
        shoe_emulator.deal("KH")
        shoe_emulator.inject("disconnect", 0.2)
        wait_for(lambda: shoe_emulator.pending() == 0, what="card after reconnect")
        assert collector.cards() == [1]
        assert collector.of("card-read")[0].card == Card.parse("KH")  # type: ignore[attr-defined]
        assert collector.links() == [True, False, True]
    finally:
        shoe.stop()


def test_emulator_restart_on_same_pty_link(collector: Collector, tmp_path: object) -> None:
    """Stopping the emulator process and starting a new one behind the same udev-style name."""
    link = f"{tmp_path}/shoe0"
    first = ShoeEmulator(seed=1, heartbeat=0.2)
    first.serve_pty(link)
    first.start()
    shoe = reader(link, collector)
    try:
        wait_for(lambda: shoe.link_up, what="link up")
        first.deal()
        wait_for(lambda: first.acked == [1], what="first card")
        first.stop()
        wait_for(lambda: collector.links() == [True, False], what="link down")
        second = ShoeEmulator(seed=2, heartbeat=0.2)
        second.serve_pty(link)
        second.start()
        try:
            wait_for(lambda: collector.links() == [True, False, True], what="link up again")
            second.deal()
            wait_for(lambda: second.acked == [1], what="card from the new shoe")
            assert shoe.stats["reboots"] == 1
            assert collector.cards() == [1, 1]
        finally:
            second.stop()
    finally:
        shoe.stop()


def test_silent_shoe_is_reported_down(shoe_emulator: ShoeEmulator, collector: Collector) -> None:
    shoe = reader(plug(shoe_emulator, "tcp:"), collector, silence_timeout=0.3)
    try:
        wait_for(lambda: shoe.link_up, what="link up")
        shoe_emulator.inject("silence", 1.0)
        wait_for(lambda: collector.links()[:2] == [True, False], what="silence detected")
        assert "no valid frame" in collector.of("device-link")[1].detail  # type: ignore[attr-defined]
        wait_for(lambda: collector.links() == [True, False, True], what="recovered")
    finally:
        shoe.stop()


def test_endless_garbage_counts_as_silence(collector: Collector) -> None:
    """A line that only ever carries noise (wrong baud rate, say) is a down link, not a live one."""
    emu = ShoeEmulator(heartbeat=0.02)
    emu.on_tick = lambda now: emu.send(b"\x55\xaa" * 8)  # type: ignore[method-assign]
    shoe = reader(plug(emu, "tcp:"), collector, silence_timeout=0.3)
    try:
        # the shoe's HELLO on connection is valid; the noise after it must bring the link down
        wait_for(lambda: collector.links()[:2] == [True, False], what="noise reported as a down link")
        assert "no valid frame for 0.3 s" in collector.of("device-link")[1].detail  # type: ignore[attr-defined]
        assert shoe.stats["garbage"] > 0
    finally:
        shoe.stop()
        emu.stop()


def test_unreachable_url_reports_down_once_and_keeps_trying(collector: Collector) -> None:
    shoe = reader("socket://127.0.0.1:9", collector)
    try:
        wait_for(lambda: shoe.stats["link_down"] == 1, what="down")
        time.sleep(0.3)
        assert collector.links() == [False]
        assert "cannot open socket://127.0.0.1:9" in collector.of("device-link")[0].detail  # type: ignore[attr-defined]
    finally:
        shoe.stop()


def test_handler_crash_is_not_acknowledged_and_is_retried(shoe_emulator: ShoeEmulator) -> None:
    seen: list[Event] = []
    failures = [2]

    def flaky(event: Event) -> None:
        if event.kind == "card-read" and failures[0]:
            failures[0] -= 1
            raise RuntimeError("tracker busy")
        seen.append(event)

    shoe = ShoeReader(plug(shoe_emulator, "tcp:"), "T", flaky, backoff_start=0.02)
    shoe.start()
    try:
        shoe_emulator.deal("9C")
        wait_for(lambda: shoe_emulator.acked == [1], what="ack after retries")
        assert [e.kind for e in seen if e.kind == "card-read"] == ["card-read"]
        assert shoe.stats["handler_errors"] == 2
    finally:
        shoe.stop()


def test_refused_card_counts_as_delivered(shoe_emulator: ShoeEmulator) -> None:
    def refuse(event: Event) -> None:
        if event.kind == "card-read":
            raise DealerAssistError("no round open")

    shoe = ShoeReader(plug(shoe_emulator, "tcp:"), "T", refuse)
    shoe.start()
    try:
        wait_for(lambda: shoe.link_up, what="link up")
        shoe_emulator.deal()
        wait_for(lambda: shoe_emulator.acked == [1], what="refused card acknowledged")
        assert shoe_emulator.retransmissions == 0
    finally:
        shoe.stop()


def test_emu_url_scheme(collector: Collector) -> None:
    shoe = reader("emu://shoe?name=t9&deck=pairs-and-up-52&seed=3&script=AS+2d", collector)
    try:
        wait_for(lambda: shoe.link_up, what="link up")
        emu = registry.lookup("shoe", "t9")
        assert isinstance(emu, ShoeEmulator) and emu.deck.name == "pairs-and-up-52"
        emu.deal()
        emu.deal()
        emu.unplug(0.2)
        emu.deal()
        wait_for(lambda: len(collector.cards()) == 3, what="three cards")
        reads = collector.of("card-read")
        assert [r.card.code for r in reads[:2]] == ["AS", "2D"]  # type: ignore[attr-defined]
        assert reads[2].card in emu.deck.counts  # type: ignore[attr-defined]
        assert collector.links() == [True, False, True]
    finally:
        shoe.stop()


def test_seeded_shoes_repeat_and_scripts_come_first() -> None:
    a = ShoeEmulator(deck="shoe-6", seed=5)
    b = ShoeEmulator(deck="shoe-6", seed=5)
    assert [a.deal() for _ in range(3)] == [1, 2, 3]
    [b.deal() for _ in range(3)]
    assert a.drawn == b.drawn
    assert a.remaining() == 312 - 3
    c = ShoeEmulator(script="JK 7d", deck="standard-53-joker", seed=1)
    c.deal()
    c.deal()
    assert [c.drawn[1], c.drawn[2]] == [Card.parse("JK"), Card.parse("7D")]
    with pytest.raises(ValueError, match="unknown fault"):
        c.inject("lightning")


@pytest.mark.parametrize("seed", [1, 2])
def test_random_faults_and_cable_pulls_lose_and_double_nothing(collector: Collector, seed: int) -> None:
    """A seeded storm of every line fault plus short cable pulls while cards, buttons and statuses flow."""
    rng = random.Random(seed)
    emu = ShoeEmulator(seed=seed, retransmit=0.05, heartbeat=0.2)
    shoe = reader(plug(emu, "tcp:"), collector)
    try:
        wait_for(lambda: shoe.link_up, what="link up")
        buttons = pulls = 0
        for _ in range(40):
            roll = rng.random()
            if roll < 0.4:
                emu.inject(rng.choice(["garbage", "bad-crc", "drop", "duplicate", "truncate"]))
            elif roll < 0.5:
                pulls += 1
                emu.inject("disconnect", rng.uniform(0.02, 0.15))
            emu.deal()
            if roll > 0.9:
                emu.press_button()
                buttons += 1
            time.sleep(rng.uniform(0, 0.01))
        wait_for(lambda: emu.pending() == 0, timeout=15, what="every frame acknowledged")
        assert collector.cards() == list(range(1, 41))
        assert emu.acked == list(range(1, 41))
        assert [e.card for e in collector.of("card-read")] == [emu.drawn[i] for i in range(1, 41)]  # type: ignore[attr-defined]
        assert len(collector.of("dealer-button")) == buttons
        links = collector.links()
        assert pulls >= 2 and links.count(False) >= 1
        assert links[0] is True and links[-1] is True
        assert all(a != b for a, b in itertools.pairwise(links))  # strictly alternating
    finally:
        shoe.stop()
        emu.stop()


def test_unattended_dealer_empties_and_refills_the_shoe(collector: Collector) -> None:
    shoe = reader("emu://shoe?name=auto&auto=0.005&seed=9", collector)
    try:
        wait_for(lambda: len(collector.cards()) > 53, what="a whole deck and more")
        statuses = [e.status for e in collector.of("shoe-status")]  # type: ignore[attr-defined]
        assert statuses[:1] == ["empty"]
        first_deck = [e.card for e in collector.of("card-read")][:52]  # type: ignore[attr-defined]
        assert len(set(first_deck)) == 52
    finally:
        shoe.stop()
    with pytest.raises(PortError, match="auto must be seconds"):
        open_port(DeviceConfig.for_url("emu://shoe?name=bad&auto=soon"))
