"""``ShoeReader``: supervises one shoe's serial link and turns its messages into table events.

It survives anything the line does: damaged frames are NAKed (the shoe repeats them at once),
whole frames it cannot take are refused once (the shoe drops them) and raised as a device alarm,
immediate repeats are recognised by link sequence number, and a silent or vanished port is
reopened with growing back-off while a ``DeviceLink(up=False)`` tells the tracker.

Each card carries the shoe's power-up (``boot_id``) and card number; the reader resumes from the
position the table's log holds (``resume``), so a card the shoe resends after a restart reaches
the table, which records it as a repeat instead of dealing it again. A card is acknowledged only
after ``on_event`` took it, so the shoe keeps repeating any card the table has not got. An
unannounced reboot or a counter that went back (seen in a heartbeat or a card) is re-handshaken
(HELLO) and raised as a ``reset`` device alarm.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable

import serial

from dealerassist.errors import DealerAssistError, StorageUnavailable
from dealerassist.events import CardRead, DealerButton, DeviceAlarm, DeviceLink, Event, ShoeStatus
from firmware_bridge.ports import DeviceConfig, PortError, close_port, open_port
from firmware_bridge.shoe.framing import FrameProblem
from firmware_bridge.shoe.health import LineHealth
from firmware_bridge.shoe.messages import (
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    ButtonPressed,
    CardDrawn,
    DaShoeProtocol,
    Heartbeat,
    Hello,
    Malformed,
    ShoeMessage,
    ShoeProtocol,
    StatusReport,
    device_time,
)

log = logging.getLogger(__name__)

RECENT_CARDS_KEPT = 64
HELLO_RETRY_S = 0.5
STALL_S = 3.0  # heartbeats counting more cards than arrived for this long: a gap, re-handshake
_UNKNOWN = object()


class ShoeReader:
    """Reads one shoe; ``on_event`` is called from the reader's own thread, one event at a time."""

    def __init__(
        self,
        url: str | DeviceConfig,
        table: str,
        on_event: Callable[[Event], None],
        *,
        protocol: Callable[[], ShoeProtocol] = DaShoeProtocol,
        silence_timeout: float = 3.0,
        backoff_start: float = 0.1,
        backoff_max: float = 2.0,
        resume: tuple[int | None, int] = (None, 0),
        line_alarm_per_minute: int = 60,
    ) -> None:
        """``resume`` is the (boot id, card number) of the last shoe card the table took."""
        self.config = url if isinstance(url, DeviceConfig) else DeviceConfig.for_url(url)
        self.table = table
        self.on_event = on_event
        self.protocol_factory = protocol
        self.silence_timeout = silence_timeout
        self.backoff_start = backoff_start
        self.backoff_max = backoff_max
        self.stats: Counter[str] = Counter()
        self.device: Hello | None = None
        self.health = LineHealth(f"shoe {table}", log, alarm_per_minute=line_alarm_per_minute)
        self._reported_up: bool | None = None
        self._last_message: ShoeMessage | None = None  # the last sequenced frame taken, to spot its repeats
        self._boot, self._last_card = resume
        self._recent: dict[int, object] = {}
        self._drawn_reported = 0
        self._alarmed: set[str] = set()
        self._pending_check: tuple[int | None, int] | None = None
        self._checked: tuple[int | None, int] | None = None
        self._hello_asked_at = -float("inf")
        self._behind_since: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def link_up(self) -> bool:
        return bool(self._reported_up)

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("ShoeReader already started")
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"shoe-{self.table}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    # --- link supervision -----------------------------------------------------------------------

    def _run(self) -> None:
        delay = self.backoff_start
        while not self._stop.is_set():
            try:
                port = open_port(self.config)
            except PortError as exc:
                self._report_link(False, str(exc))
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff_max)
                continue
            self.stats["opens"] += 1
            if self.stats["opens"] > 1:
                self.health.note("reconnects")
            try:
                reason, talked = self._serve(port)
            finally:  # a bug in a protocol or handler must not leave the port held open
                close_port(port)
            if self._stop.is_set():
                break
            self._report_link(False, reason)
            delay = self.backoff_start if talked else min(delay * 2, self.backoff_max)
            self._stop.wait(delay)

    def _serve(self, port: serial.SerialBase) -> tuple[str, bool]:
        """Read until the port fails, the shoe falls silent or we are stopped.

        Returns why we left and whether the shoe said anything valid (which resets the back-off).
        """
        protocol = self.protocol_factory()
        talked = False
        last_valid = time.monotonic()
        try:
            self._send(port, protocol.greeting())
            while not self._stop.is_set():
                data = port.read(1)
                if data:
                    waiting = port.in_waiting
                    if waiting:
                        data += port.read(waiting)
                    if self._handle(port, protocol, data):
                        last_valid = time.monotonic()
                        talked = True
                self.health.flush_log()
                if time.monotonic() - last_valid > self.silence_timeout:
                    self.stats["silences"] += 1
                    return f"no valid frame for {self.silence_timeout:.1f} s", talked
        except (serial.SerialException, OSError) as exc:
            self.stats["port_errors"] += 1
            return f"link lost: {exc}", talked
        return "stopped", talked

    def _send(self, port: serial.SerialBase, data: bytes) -> None:
        if data:
            port.write(data)

    def _report_link(self, up: bool, detail: str) -> None:
        if self._reported_up == up:
            return
        self._reported_up = up
        self.stats["link_up" if up else "link_down"] += 1
        self._emit(DeviceLink(table=self.table, device="shoe", up=up, detail=detail, url=self.config.url))

    # --- messages ---------------------------------------------------------------------------------

    def _handle(self, port: serial.SerialBase, protocol: ShoeProtocol, data: bytes) -> bool:
        """Process one burst of bytes; True if at least one whole frame was in it."""
        valid = False
        for item in protocol.feed(data):
            if isinstance(item, FrameProblem):
                self._discarded(port, protocol, item)
                continue
            valid = True
            if not self._reported_up:
                if isinstance(item, Hello):
                    self.device = item
                model = f"{self.device.model} v{self.device.version}" if self.device else "shoe"
                self._report_link(True, f"{model} answering on {self.config.url}")
            if isinstance(item, Malformed):
                self._refuse(port, protocol, item)
            elif self._accept(port, protocol, item):
                self._send(port, protocol.acknowledge(item))
        return valid

    def _discarded(self, port: serial.SerialBase, protocol: ShoeProtocol, problem: FrameProblem) -> None:
        self.stats[problem.reason] += 1
        self._line_trouble("discarded", problem.reason)
        reply = protocol.reject(problem)
        if reply:
            self.stats["naks_sent"] += 1
            self._line_trouble("naks")
            self._send(port, reply)

    def _refuse(self, port: serial.SerialBase, protocol: ShoeProtocol, message: Malformed) -> None:
        """Understood and refused: answered once (never NAKed), alarmed, and the line moves on."""
        self.stats["malformed"] += 1
        self._line_trouble("refusals", message.refusal)
        if message.link_seq and message == self._last_message:
            self._send(port, protocol.reject(message))  # the answer was lost: answer the same again
            return
        if message.link_seq:
            self._last_message = message
        self._send(port, protocol.reject(message))
        self._device_alarm("protocol", f"refused {message.reason} (not to be resent)", message.reason)

    def _line_trouble(self, trouble: str, detail: str = "") -> None:
        if self.health.note(trouble, detail):
            self._device_alarm(
                "line-health",
                f"{self.health.per_minute()} line troubles in the last minute "
                f"(threshold {self.health.alarm_per_minute}): {dict(self.health.counts)}",
            )

    def _accept(self, port: serial.SerialBase, protocol: ShoeProtocol, message: ShoeMessage) -> bool:
        """Deliver a message once; True when it may be acknowledged (delivered now or before)."""
        if isinstance(message, Hello):
            self.stats["hellos"] += 1
            return self._greeted(message)
        if isinstance(message, Heartbeat):
            self.stats["heartbeats"] += 1
            self._check_heartbeat(port, protocol, message)
            return False
        if isinstance(message, CardDrawn) and message.boot_id not in (None, self._boot):
            if self._boot is not None:
                self._resync(port, protocol, f"a card names boot {message.boot_id:08X}, not {self._boot:08X}")
            self._new_boot(message.boot_id)
        if message.link_seq and message == self._last_message:
            self.stats["duplicates"] += 1  # the same frame again: our ACK was lost
            return True
        if isinstance(message, CardDrawn):
            delivered = self._take_card(port, protocol, message)
        else:
            delivered = self._deliver(message)
        if delivered and message.link_seq:
            self._last_message = message
        return delivered

    # --- the shoe's identity and card counter ---------------------------------------------------------

    def _greeted(self, hello: Hello) -> bool:
        """A HELLO: check its version, and start the count again if it is a new power-up."""
        if hello.version not in SUPPORTED_VERSIONS:
            self.stats["malformed"] += 1
            self._line_trouble("refusals", "unsupported-version")
            self._device_alarm(
                "protocol",
                f"the shoe speaks protocol version {hello.version}; this host speaks "
                f"{min(SUPPORTED_VERSIONS)}..{PROTOCOL_VERSION} (refused; the shoe should fall back)",
                f"version {hello.version}",
            )
            return True  # the protocol's answer to an unsupported HELLO is its refusal
        if self._pending_check is not None:
            self._checked, self._pending_check = self._pending_check, None
        if self._boot is not None and hello.boot_id != self._boot:
            self._new_boot(hello.boot_id)
        self._boot = hello.boot_id if self._boot is None else self._boot
        self.device = hello
        return True

    def _new_boot(self, boot: int | None) -> None:
        """The shoe powered up afresh: its link and card counters start again."""
        lost = self._drawn_reported - self._last_card
        self.stats["reboots"] += 1
        self._line_trouble("resyncs", "new boot")
        if lost > 0:
            self._device_alarm(
                "reset", f"the shoe restarted with {lost} card(s) drawn before it never sent: check the rack"
            )
        self._boot, self._last_card, self._drawn_reported = boot, 0, 0
        self._recent.clear()
        self._last_message = None

    def _check_heartbeat(self, port: serial.SerialBase, protocol: ShoeProtocol, beat: Heartbeat) -> None:
        known = self._boot  # the power-up of the last HELLO or version-2 card
        if beat.boot_id is not None and known is not None and beat.boot_id != known:
            self._resync(
                port, protocol, f"the shoe's heartbeat names boot {beat.boot_id:08X}, not {known:08X}"
            )
            return
        if beat.cards_drawn < self._last_card:
            self._resync(
                port,
                protocol,
                f"the shoe says {beat.cards_drawn} card(s) drawn but card #{self._last_card} was received",
            )
            return
        self._drawn_reported = beat.cards_drawn
        self._check_gap(port, protocol, beat.cards_drawn)

    def _check_gap(self, port: serial.SerialBase, protocol: ShoeProtocol, drawn: int) -> None:
        """Cards the shoe counts but never sends: a stop-and-wait shoe repeats its card in flight
        every 250 ms, so a count that stays ahead for ``STALL_S`` is a gap, not a card on its way."""
        now = time.monotonic()
        if drawn <= self._last_card:
            self._behind_since = None
        elif self._behind_since is None:
            self._behind_since = now
        elif now - self._behind_since > STALL_S:
            self._behind_since = now
            why = f"the shoe counts {drawn} card(s) drawn but the last received is #{self._last_card}"
            self._resync(port, protocol, why, "gap")

    def _resync(self, port: serial.SerialBase, protocol: ShoeProtocol, why: str, code: str = "reset") -> None:
        """The shoe was reset without a HELLO reaching us, or fell behind: ask for a HELLO (which
        also makes it resend its frame in flight), and raise the alarm once."""
        if self._ask_hello(port, protocol):
            self._device_alarm(code, f"{why}: re-handshaking", why)

    def _ask_hello(self, port: serial.SerialBase, protocol: ShoeProtocol) -> bool:
        now = time.monotonic()
        if now - self._hello_asked_at < HELLO_RETRY_S:
            return False
        self._hello_asked_at = now
        self._line_trouble("resyncs", "HELLO asked")
        self._send(port, protocol.greeting())
        return True

    def _take_card(self, port: serial.SerialBase, protocol: ShoeProtocol, card: CardDrawn) -> bool:
        """A card: new ones and ones the table must judge go to it; session repeats are ACKed quietly."""
        boot = card.boot_id if card.boot_id is not None else self._boot
        number = card.shoe_sequence
        if boot == self._boot and number <= self._last_card:
            if self._recent.get(number, _UNKNOWN) == card.card:
                self.stats["duplicates"] += 1
                return True
            if card.boot_id is None and number < self._last_card and self._checked != (boot, number):
                # A version-1 card cannot say which power-up it is from: ask before judging it.
                self._pending_check = (boot, number)
                self._resync(port, protocol, f"card #{number} arrived after card #{self._last_card}")
                return False
        if not self._deliver(card, boot):
            return False
        self._behind_since = None
        if number > self._last_card:
            self._last_card = number
            self._recent[number] = card.card
            while len(self._recent) > RECENT_CARDS_KEPT:
                del self._recent[min(self._recent)]
        return True

    # --- events -------------------------------------------------------------------------------------------

    def _deliver(self, message: ShoeMessage, boot: int | None = None) -> bool:
        event: Event
        if isinstance(message, CardDrawn):
            self.stats["cards"] += 1
            event = CardRead(
                table=self.table,
                source="shoe",
                card=message.card,
                shoe_sequence=message.shoe_sequence,
                shoe_boot=boot,
                device_time=device_time(message.device_ms),
            )
        elif isinstance(message, ButtonPressed):
            self.stats["buttons"] += 1
            event = DealerButton(table=self.table)
        elif isinstance(message, StatusReport):
            self.stats["statuses"] += 1
            event = ShoeStatus(table=self.table, status=message.status, detail=message.detail)  # type: ignore[arg-type]
        else:
            return False
        return self._emit(event)

    def _device_alarm(self, code: str, detail: str, key: str = "") -> None:
        """One alarm per distinct trouble for the life of this reader (the table dedupes open ones)."""
        key = f"{code}:{key or detail}"
        if key in self._alarmed:
            return
        self._alarmed.add(key)
        log.warning("shoe %s: %s: %s", self.table, code, detail)
        self._emit(DeviceAlarm(table=self.table, device="shoe", code=code, detail=detail))  # type: ignore[arg-type]

    def _emit(self, event: Event) -> bool:
        """Hand an event over; a refusal counts as delivered (it is logged), a crash does not."""
        try:
            self.on_event(event)
        except StorageUnavailable:
            return False  # not recorded (full or read-only disk): the shoe repeats it; the station says why
        except DealerAssistError as exc:
            log.info("shoe %s: %s refused: %s", self.table, event.kind, exc)
            self.stats["refused_by_table"] += 1
        except Exception:
            self.stats["handler_errors"] += 1
            log.exception("shoe %s: handler failed on %s; the shoe will repeat it", self.table, event.kind)
            return False
        return True

    def line_figures(self) -> dict[str, int]:
        """Line trouble since start and in the last minute (for /healthz and the status page)."""
        return self.health.figures()
