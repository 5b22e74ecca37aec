"""``JackpotSign``: keeps an Alpha sign showing the progressive, whatever the line does.

Callers say what to show (``show_amount``, ``show_win``, ``show_pending``, ``set_fault``); one
writer thread sends the latest wish at most ``max_rate_hz`` times a second, rewriting only the
amount STRING file when the layout did not change. The sign never goes backwards: an amount below
the highest one shown is refused unless a hit was recorded since or the caller documents a
correction with ``allow_decrease=True`` and a reason.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import serial

from dealerassist.core.money import format_amount
from dealerassist.errors import DealerAssistError, StorageUnavailable
from dealerassist.events import DeviceLink, Event
from firmware_bridge.ports import DeviceConfig, PortError, close_port, open_port
from firmware_bridge.sign import alpha
from firmware_bridge.sign.layout import AMOUNT_LABEL, AMOUNT_SIZE, MAX_CENTS, MEMORY, TEXT_LABEL, SignState

log = logging.getLogger(__name__)

PROBE_SECONDS = 0.2


class SignError(DealerAssistError, ValueError):
    """A sign request that would mislead players (a lower amount without cause, a bad amount)."""


class JackpotSign:
    """Drives one sign (or a daisy chain addressed together) on one serial URL."""

    def __init__(
        self,
        url: str | DeviceConfig,
        *,
        address: str = alpha.ADDRESS_BROADCAST,
        type_code: str = alpha.TYPE_ALL_SIGNS,
        max_rate_hz: float = 4.0,
        title: str = "JACKPOT",
        table: str = "pit",
        on_event: Callable[[Event], None] | None = None,
        refresh_seconds: float = 5.0,
        backoff_start: float = 0.1,
        backoff_max: float = 2.0,
    ) -> None:
        if max_rate_hz <= 0:
            raise SignError(f"max_rate_hz must be positive, got {max_rate_hz!r}")
        self.config = url if isinstance(url, DeviceConfig) else DeviceConfig.for_url(url)
        self.header = {"type_code": type_code, "address": address}
        self.min_interval = 1.0 / max_rate_hz
        self.table = table
        self.on_event = on_event
        self.refresh_seconds = refresh_seconds
        self.backoff_start = backoff_start
        self.backoff_max = backoff_max
        self.corrections: list[dict[str, Any]] = []
        self.stats = {"writes": 0, "string_writes": 0, "text_writes": 0, "coalesced": 0, "refused": 0}
        self._wish = SignState(title=title)
        self._floor = 0
        self._hit_recorded = False
        self._sent: SignState | None = None
        self._sent_at: str | None = None
        self._last_write = 0.0
        self._link_up = False
        self._reported: bool | None = None
        self._changes = 0
        self._cond = threading.Condition()
        self._stop = False
        self._thread: threading.Thread | None = None

    # --- what callers ask for ----------------------------------------------------------------------

    def show_amount(self, cents: int, *, allow_decrease: bool = False, reason: str = "") -> None:
        """Show the meter; lower than the highest shown only after a hit or as a documented correction."""
        _check_cents(cents)
        with self._cond:
            if cents < self._floor and not self._hit_recorded:
                if not allow_decrease:
                    self.stats["refused"] += 1
                    raise SignError(
                        f"refusing to show {format_amount(cents)}: the sign already showed "
                        f"{format_amount(self._floor)} and no hit was recorded since "
                        "(pass allow_decrease=True with a reason for a correction)"
                    )
                if not reason.strip():
                    raise SignError("a correction that lowers the sign needs a reason")
                self.corrections.append(
                    {"at": _now(), "from": self._floor, "to": cents, "reason": reason.strip()}
                )
            self._hit_recorded = False  # a hit allows one step down: the reset that follows it
            self._floor = cents
            self._want(replace(self._wish, mode="amount", cents=cents, table=""))

    def show_win(self, table: str, cents: int) -> None:
        """Announce a hit at ``table`` for ``cents``; records the hit so the reset may go lower."""
        _check_cents(cents)
        with self._cond:
            self._hit_recorded = True
            self._want(replace(self._wish, mode="win", cents=cents, table=table))

    def show_pending(self, table: str) -> None:
        """A hit awaiting supervisor approval: the amount stays, the table is named."""
        with self._cond:
            self._hit_recorded = True
            self._want(replace(self._wish, mode="pending", table=table))

    def set_fault(self, text: str | None) -> None:
        """Alternate ``text`` with the amount (controller link lost); ``None`` clears it."""
        with self._cond:
            self._want(replace(self._wish, fault=text or None))

    @property
    def link_up(self) -> bool:
        return self._link_up

    def displayed(self) -> dict[str, Any]:
        """What was last sent to the sign (not merely asked for), for the dashboard and the tests."""
        with self._cond:
            sent = self._sent
            return {
                "link_up": self._link_up,
                "sent_at": self._sent_at,
                "mode": sent.mode if sent else None,
                "amount_cents": sent.cents if sent else None,
                "amount_text": sent.amount_text().decode() if sent else None,
                "table": sent.table if sent else None,
                "fault": sent.fault if sent else None,
                "text_file": sent.text_file().decode("ascii") if sent else None,
                "pending_update": sent != self._wish,
                "floor_cents": self._floor,
            }

    def _want(self, state: SignState) -> None:
        if state != self._wish:
            self._wish = state
            self._changes += 1
            self._cond.notify_all()

    # --- the writer thread ---------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("JackpotSign already started")
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="jackpot-sign", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        delay = self.backoff_start
        while not self._stopping():
            try:
                port = open_port(self.config, timeout=0)
            except PortError as exc:
                self._set_link(False, str(exc))
                self._sleep(delay)
                delay = min(delay * 2, self.backoff_max)
                continue
            try:
                self._write(port, alpha.memory_config(list(MEMORY), **self.header))
                with self._cond:
                    self._sent = None
                self._set_link(True, f"sign on {self.config.url} configured")
                delay = self.backoff_start
                self._serve(port)
            except (serial.SerialException, OSError) as exc:
                self._set_link(False, f"link lost: {exc}")
            finally:
                close_port(port)
            self._sleep(delay)

    def _serve(self, port: serial.SerialBase) -> None:
        last_refresh = time.monotonic()
        while True:
            with self._cond:
                while not self._stop and self._sent == self._wish:
                    left = self.refresh_seconds - (time.monotonic() - last_refresh)
                    if left <= 0:
                        break
                    self._cond.wait(min(left, PROBE_SECONDS))
                    self._probe(port)
                if self._stop:
                    return
                seen = self._changes
            wait = self._last_write + self.min_interval - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            with self._cond:
                wish, sent = self._wish, self._sent
                self.stats["coalesced"] += max(0, self._changes - seen)
            # the amount first: a new layout then never calls a string that is empty or stale
            self._write(port, alpha.write_string(AMOUNT_LABEL, wish.amount_text(), **self.header))
            self.stats["string_writes"] += 1
            if sent is None or not wish.same_layout(sent):
                self._write(port, alpha.write_text(TEXT_LABEL, wish.text_file(), **self.header))
                self.stats["text_writes"] += 1
            last_refresh = time.monotonic()
            with self._cond:
                self._sent, self._sent_at = wish, _now()

    def _probe(self, port: serial.SerialBase) -> None:
        """Read (and drop) anything the sign said: a pulled cable shows up here as an error."""
        port.read(4096)

    def _write(self, port: serial.SerialBase, data: bytes) -> None:
        port.write(data)
        port.flush()
        self._last_write = time.monotonic()
        self.stats["writes"] += 1

    def _set_link(self, up: bool, detail: str) -> None:
        self._link_up = up
        if self._reported == up:
            return
        self._reported = up
        if self.on_event is not None:
            event = DeviceLink(table=self.table, device="sign", up=up, detail=detail, url=self.config.url)
            try:
                self.on_event(event)
            except StorageUnavailable as exc:
                log.warning("sign link event not recorded: %s", exc)
            except Exception:
                log.exception("sign link event handler failed")

    def _stopping(self) -> bool:
        with self._cond:
            return self._stop

    def _sleep(self, seconds: float) -> None:
        with self._cond:
            if not self._stop:
                self._cond.wait(seconds)


def _check_cents(cents: int) -> None:
    if isinstance(cents, bool) or not isinstance(cents, int) or cents < 0:
        raise SignError(f"an amount must be whole cents >= 0, got {cents!r}")
    if cents > MAX_CENTS:
        raise SignError(f"{format_amount(cents)} does not fit the sign's {AMOUNT_SIZE}-character amount file")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")
