"""``ShoeReader``: supervises one shoe's serial link and turns its messages into table events.

It survives anything the line does: garbage and damaged frames are counted (and NAKed so the shoe
repeats at once), repeats are recognised by link sequence number and cards additionally by the
shoe's own card counter, and a silent or vanished port is reopened with growing back-off while a
``DeviceLink(up=False)`` tells the tracker. A card is acknowledged only after ``on_event`` took it,
so the shoe keeps repeating any card the table has not got.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable

import serial

from dealerassist.errors import DealerAssistError, StorageUnavailable
from dealerassist.events import CardRead, DealerButton, DeviceLink, Event, ShoeStatus
from firmware_bridge.ports import DeviceConfig, PortError, close_port, open_port
from firmware_bridge.shoe.framing import FrameProblem
from firmware_bridge.shoe.messages import (
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

SEEN_CARDS_KEPT = 4096


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
    ) -> None:
        self.config = url if isinstance(url, DeviceConfig) else DeviceConfig.for_url(url)
        self.table = table
        self.on_event = on_event
        self.protocol_factory = protocol
        self.silence_timeout = silence_timeout
        self.backoff_start = backoff_start
        self.backoff_max = backoff_max
        self.stats: Counter[str] = Counter()
        self.device: Hello | None = None
        self._reported_up: bool | None = None
        self._last_link_seq: int | None = None
        self._seen_cards: set[int] = set()
        self._seen_order: deque[int] = deque()
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
        """Process one burst of bytes; True if at least one valid message was in it."""
        valid = False
        for item in protocol.feed(data):
            if isinstance(item, FrameProblem | Malformed):
                self._count_problem(item)
                reply = protocol.reject(item)
                if reply:
                    self.stats["naks_sent"] += 1
                    self._send(port, reply)
                continue
            valid = True
            if isinstance(item, Hello):
                self._greeted(item)
            if not self._reported_up:
                model = f"{self.device.model} v{self.device.version}" if self.device else "shoe"
                self._report_link(True, f"{model} answering on {self.config.url}")
            if self._accept(item):
                self._send(port, protocol.acknowledge(item))
        return valid

    def _count_problem(self, problem: FrameProblem | Malformed) -> None:
        key = problem.reason if isinstance(problem, FrameProblem) else "malformed"
        self.stats[key] += 1
        log.info("shoe %s: discarded %s", self.table, key)

    def _accept(self, message: ShoeMessage) -> bool:
        """Deliver a message once; True when it may be acknowledged (delivered now or before)."""
        if isinstance(message, Hello | Heartbeat):
            self.stats["heartbeats" if isinstance(message, Heartbeat) else "hellos"] += 1
            return False
        if message.link_seq and message.link_seq == self._last_link_seq:
            self.stats["duplicates"] += 1
            return True
        if isinstance(message, CardDrawn) and message.shoe_sequence in self._seen_cards:
            self.stats["duplicates"] += 1
            self._last_link_seq = message.link_seq
            return True
        if not self._deliver(message):
            return False
        self._last_link_seq = message.link_seq
        if isinstance(message, CardDrawn):
            self._remember_card(message.shoe_sequence)
        return True

    def _deliver(self, message: ShoeMessage) -> bool:
        event: Event
        if isinstance(message, CardDrawn):
            self.stats["cards"] += 1
            event = CardRead(
                table=self.table,
                source="shoe",
                card=message.card,
                shoe_sequence=message.shoe_sequence,
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

    def _emit(self, event: Event) -> bool:
        """Hand an event over; a refusal counts as delivered (it is logged), a crash does not."""
        try:
            self.on_event(event)
        except StorageUnavailable:
            return False  # not recorded (full or read-only disk): the shoe repeats it; the station says why
        except DealerAssistError as exc:
            log.warning("shoe %s: %s refused: %s", self.table, event.kind, exc)
        except Exception:
            self.stats["handler_errors"] += 1
            log.exception("shoe %s: handler failed on %s; the shoe will repeat it", self.table, event.kind)
            return False
        return True

    def _greeted(self, hello: Hello) -> None:
        if self.device is not None and self.device.boot_id != hello.boot_id:
            self._forget_history()
        self.device = hello

    def _remember_card(self, shoe_sequence: int) -> None:
        self._seen_cards.add(shoe_sequence)
        self._seen_order.append(shoe_sequence)
        if len(self._seen_order) > SEEN_CARDS_KEPT:
            self._seen_cards.discard(self._seen_order.popleft())

    def _forget_history(self) -> None:
        """The shoe rebooted: its link and card counters start again."""
        self.stats["reboots"] += 1
        self._last_link_seq = None
        self._seen_cards.clear()
        self._seen_order.clear()
