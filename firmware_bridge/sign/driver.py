"""``JackpotSign``: keeps an Alpha sign showing the progressive, whatever the line does.

Callers say what to show (``show_amount``, ``show_last_known``, ``show_win``, ``show_pending``,
``set_fault``); the line's writer thread sends each sign's latest wish at most ``max_rate_hz`` times
a second, in the order that never shows a wrong pair (see ``_write_state``). Nothing is shown until
an amount is given: a sign never shows a default amount. The sign never goes backwards: an amount
below the highest one shown is refused unless a hit was recorded since or the caller documents a
correction with ``allow_decrease=True`` and a reason.

Every ``refresh_seconds`` the driver reads the sign's memory table, TEXT and STRING files back and
rewrites the whole configuration when they differ from what it sent (a sign that lost its memory
with the cable in). A sign that does not answer reads gets the whole configuration rewritten every
``config_refresh_seconds`` instead.

Several signs on one line (RS-485/RS-422 multi-drop, told apart by address) share one
``SignLine``: the port is opened once and one thread writes, so no two signs' packets interleave.
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
from dealerassist.events import DeviceAlarm, DeviceLink, Event
from firmware_bridge.ports import DeviceConfig, PortError, close_port, open_port
from firmware_bridge.sign import alpha
from firmware_bridge.sign.layout import AMOUNT_LABEL, AMOUNT_SIZE, MAX_CENTS, MEMORY, TEXT_LABEL, SignState

log = logging.getLogger(__name__)

PROBE_SECONDS = 0.2
ANSWER_SECONDS = 0.25  # a sign's turn-around before its answer, on top of the answer's wire time
READ_BACK = (
    (alpha.READ_SPECIAL, alpha.SPECIAL_MEMORY),
    (alpha.READ_STRING, AMOUNT_LABEL),
    (alpha.READ_TEXT, TEXT_LABEL),
)


class SignError(DealerAssistError, ValueError):
    """A sign request that would mislead players (a lower amount without cause, a bad amount)."""


class SignLine:
    """One serial line, opened once, and the writer thread every sign on it shares."""

    def __init__(
        self,
        url: str | DeviceConfig,
        *,
        backoff_start: float = 0.1,
        backoff_max: float = 2.0,
        answer_seconds: float = ANSWER_SECONDS,
    ) -> None:
        self.config = url if isinstance(url, DeviceConfig) else DeviceConfig.for_url(url)
        self.backoff_start = backoff_start
        self.backoff_max = backoff_max
        self.answer_seconds = answer_seconds
        self.signs: list[JackpotSign] = []
        self.cond = threading.Condition()
        self._stop = False
        self._users = 0
        self._thread: threading.Thread | None = None
        self._link_up = False

    @property
    def link_up(self) -> bool:
        return self._link_up

    def attach(self, sign: JackpotSign) -> None:
        """Put ``sign`` on this line; its memory table goes out before its first write."""
        with self.cond:
            if sign in self.signs:
                return
            if any(s.header == sign.header for s in self.signs):
                raise SignError(
                    f"two signs on {self.config.url} with type {sign.header['type_code']!r} and address "
                    f"{sign.header['address']!r}: give each sign on a line its own address"
                )
            sign._sent = None
            self.signs.append(sign)
            self.cond.notify_all()

    def detach(self, sign: JackpotSign) -> None:
        with self.cond:
            if sign in self.signs:
                self.signs.remove(sign)

    # --- life cycle: the line runs while any of its signs is started -------------------------------

    def start(self) -> None:
        with self.cond:
            self._users += 1
            if self._thread is not None:
                return
            self._stop = False
            self._thread = threading.Thread(target=self._run, name="jackpot-sign", daemon=True)
            self._thread.start()

    def release(self, timeout: float = 2.0) -> None:
        """One sign stopped; the last one stops the thread."""
        with self.cond:
            self._users = max(0, self._users - 1)
            last = self._users == 0
        if last:
            self.stop(timeout)

    def stop(self, timeout: float = 2.0) -> None:
        with self.cond:
            self._stop = True
            self._users = 0
            self.cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    # --- the writer thread ---------------------------------------------------------------------------

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
                for sign in self._signs():
                    sign._configure(port)
                self._set_link(True, f"sign on {self.config.url} configured")
                delay = self.backoff_start
                self._serve(port)
            except (serial.SerialException, OSError) as exc:
                self._set_link(False, f"link lost: {exc}")
            finally:
                close_port(port)
            self._sleep(delay)

    def _serve(self, port: serial.SerialBase) -> None:
        while True:
            with self.cond:
                while not self._stop:
                    now = time.monotonic()
                    wait = min((s._due_in(now) for s in self.signs), default=PROBE_SECONDS)
                    if wait <= 0:
                        break
                    self.cond.wait(min(wait, PROBE_SECONDS))
                    self._probe(port)
                if self._stop:
                    return
                signs = list(self.signs)
            for sign in signs:
                sign._service(port, time.monotonic())

    def _probe(self, port: serial.SerialBase) -> None:
        """Read (and drop) anything the line carries between reads: a pulled cable shows up here."""
        port.read(4096)

    def exchange(
        self, port: serial.SerialBase, address: str, requests: list[bytes]
    ) -> list[alpha.AlphaPacket]:
        """Send read requests and collect the answers from ``address`` until all came or time is up.

        Nothing else is written meanwhile, so the answer never collides with our own writes on a
        two-wire line. Returns the answers received (fewer than asked when the sign is silent)."""
        self._probe(port)
        for request in requests:
            port.write(request)
        port.flush()
        decoder = alpha.AlphaDecoder()
        answers: list[alpha.AlphaPacket] = []
        expected_bytes = sum(len(r) for r in requests) + 40 * len(requests) + alpha.MAX_PACKET // 8
        deadline = time.monotonic() + self.answer_seconds + expected_bytes * self.config.byte_time
        while len(answers) < len(requests) and time.monotonic() < deadline:
            data = port.read(4096)
            if not data:
                time.sleep(0.003)
                continue
            for item in decoder.feed(data):
                if (
                    isinstance(item, alpha.AlphaPacket)
                    and item.type_code == alpha.TYPE_RESPONSE
                    and address in (alpha.ADDRESS_BROADCAST, item.address)
                ):
                    answers.append(item)
        return answers

    def _signs(self) -> list[JackpotSign]:
        with self.cond:
            return list(self.signs)

    def _set_link(self, up: bool, detail: str) -> None:
        self._link_up = up
        for sign in self._signs():
            sign._set_link(up, detail)

    def _stopping(self) -> bool:
        with self.cond:
            return self._stop

    def _sleep(self, seconds: float) -> None:
        with self.cond:
            if not self._stop:
                self.cond.wait(seconds)


class JackpotSign:
    """Drives one sign (or a daisy chain addressed together) at ``address`` on a line.

    ``url`` is a device URL or config (the sign gets a line of its own) or a ``SignLine`` shared
    with other signs at other addresses."""

    def __init__(
        self,
        url: str | DeviceConfig | SignLine,
        *,
        address: str = alpha.ADDRESS_BROADCAST,
        type_code: str = alpha.TYPE_ALL_SIGNS,
        max_rate_hz: float = 4.0,
        title: str = "JACKPOT",
        table: str = "pit",
        on_event: Callable[[Event], None] | None = None,
        refresh_seconds: float = 5.0,
        config_refresh_seconds: float = 60.0,
        backoff_start: float = 0.1,
        backoff_max: float = 2.0,
    ) -> None:
        if max_rate_hz <= 0:
            raise SignError(f"max_rate_hz must be positive, got {max_rate_hz!r}")
        problem = alpha.header_problem(type_code, address)
        if problem:
            raise SignError(problem)
        if isinstance(url, SignLine):
            self.line = url
        else:
            self.line = SignLine(url, backoff_start=backoff_start, backoff_max=backoff_max)
        self.config = self.line.config
        self.header = {"type_code": type_code, "address": address}
        self.min_interval = 1.0 / max_rate_hz
        self.table = table
        self.on_event = on_event
        self.refresh_seconds = refresh_seconds
        self.config_refresh_seconds = config_refresh_seconds
        self.corrections: list[dict[str, Any]] = []
        self.stats = {
            "writes": 0,
            "string_writes": 0,
            "text_writes": 0,
            "coalesced": 0,
            "refused": 0,
            "checks": 0,
            "restored": 0,
            "configured": 0,
        }
        self.answers: bool | None = None  # does the sign answer reads? unknown until the first check
        self._cond = self.line.cond
        self._wish = SignState(title=title)
        self._floor = 0
        self._hit_recorded = False
        self._sent: SignState | None = None
        self._sent_at: str | None = None
        self._files = {"text": b"", "string": b""}  # what the sign holds, as we wrote it
        self._last_write = 0.0
        self._last_check = 0.0
        self._last_configured = 0.0
        self._reported: bool | None = None
        self._started = False
        self.line.attach(self)

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

    def show_last_known(self, cents: int) -> None:
        """Show an amount recorded earlier (the meter cannot be read now), marked ``LAST KNOWN``.

        It does not raise the floor: the meter read later may be lower (a correction made meanwhile)."""
        _check_cents(cents)
        with self._cond:
            self._want(replace(self._wish, mode="last-known", cents=cents, table=""))

    def show_win(self, table: str, cents: int) -> None:
        """Announce a hit at ``table`` for ``cents``; records the hit so the reset may go lower."""
        _check_cents(cents)
        with self._cond:
            self._hit_recorded = True
            self._want(replace(self._wish, mode="win", cents=cents, table=table))

    def show_pending(self, table: str, cents: int | None = None) -> None:
        """A hit awaiting supervisor approval: the table is named with the jackpot (``cents``, or
        the amount already shown)."""
        if cents is not None:
            _check_cents(cents)
        with self._cond:
            self._hit_recorded = True
            shown = self._wish.cents if cents is None else cents
            self._want(replace(self._wish, mode="pending", table=table, cents=shown))

    def set_fault(self, text: str | None) -> None:
        """Alternate ``text`` with the amount (controller link lost); ``None`` clears it."""
        with self._cond:
            self._want(replace(self._wish, fault=text or None))

    @property
    def link_up(self) -> bool:
        return self.line.link_up

    def displayed(self) -> dict[str, Any]:
        """What was last sent to the sign (not merely asked for), for the dashboard and the tests."""
        with self._cond:
            sent = self._sent
            shown = sent is not None and sent.cents is not None
            return {
                "link_up": self.line.link_up,
                "sent_at": self._sent_at,
                "mode": sent.mode if sent else None,
                "amount_cents": sent.cents if sent else None,
                "amount_text": sent.amount_text().decode() if shown and sent else None,
                "table": sent.table if sent else None,
                "fault": sent.fault if sent else None,
                "text_file": sent.text_file().decode("ascii") if sent else None,
                "pending_update": sent != self._wish,
                "floor_cents": self._floor,
                "answers_reads": self.answers,
            }

    def _want(self, state: SignState) -> None:
        if state != self._wish:
            if self._wish != self._sent:
                self.stats["coalesced"] += 1  # the wish it replaces never reached the sign
            self._wish = state
            self._cond.notify_all()

    # --- life cycle ------------------------------------------------------------------------------------

    def start(self) -> None:
        if self._started:
            raise RuntimeError("JackpotSign already started")
        self._started = True
        self.line.attach(self)
        self.line.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop driving this sign; the line stops with the last sign on it."""
        if self._started:
            self._started = False
            self.line.detach(self)
            self.line.release(timeout)

    # --- on the line's thread --------------------------------------------------------------------------

    def _due_in(self, now: float) -> float:
        """Seconds until this sign has something to do (<= 0: now)."""
        if self._sent is None:
            return 0.0  # joined a line already running: not configured yet
        if self._wish != self._sent:
            return self._last_write + self.min_interval - now
        return self._last_check + self.refresh_seconds - now

    def _service(self, port: serial.SerialBase, now: float) -> None:
        with self._cond:
            wish, sent = self._wish, self._sent
            pending = wish != sent
        if sent is None:
            self._configure(port)
            return
        if pending and now >= self._last_write + self.min_interval:
            self._write_state(port, wish)
        elif not pending and now >= self._last_check + self.refresh_seconds:
            self._check(port, now)

    def _configure(self, port: serial.SerialBase) -> None:
        """Write the memory table (which clears every file), then what the sign should show."""
        self._write(port, alpha.memory_config(list(MEMORY), **self.header))
        self._files = {"text": b"", "string": b""}
        self.stats["configured"] += 1
        self._last_configured = self._last_check = time.monotonic()
        with self._cond:
            wish = self._wish
        self._write_state(port, wish)

    def _write_state(self, port: serial.SerialBase, wish: SignState) -> None:
        """Bring the sign to ``wish`` so that every moment in between shows a right pair.

        A face that calls the STRING gets the amount first: the face still up either calls it too
        (the live meter, only its fault page may lag a write) or does not show it at all. A face that
        carries its own amount (win, pending, last known) is one TEXT write: it replaces everything
        at once, and the STRING it does not call is left as it was."""
        text, string = wish.text_file(), wish.amount_text()
        if wish.calls_amount() and string != self._files["string"]:
            self._write(port, alpha.write_string(AMOUNT_LABEL, string, **self.header))
            self._files["string"] = string
            self.stats["string_writes"] += 1
        if text != self._files["text"]:
            self._write(port, alpha.write_text(TEXT_LABEL, text, **self.header))
            self._files["text"] = text
            self.stats["text_writes"] += 1
        with self._cond:
            self._sent, self._sent_at = wish, _now()

    def _check(self, port: serial.SerialBase, now: float) -> None:
        """Read the sign's files back and restore them if they differ; rewrite a silent sign."""
        self._last_check = now
        self.stats["checks"] += 1
        config_due = now - self._last_configured >= self.config_refresh_seconds
        if self.answers is False and not config_due:
            return
        requests = [alpha.read_file(cmd, label, **self.header) for cmd, label in READ_BACK]
        answers = self.line.exchange(port, self.header["address"], requests)
        if len(answers) < len(requests):
            if self.answers is not False:
                log.info(
                    "sign %s on %s does not answer reads: its whole configuration is rewritten every %g s",
                    self.header["address"],
                    self.config.url,
                    self.config_refresh_seconds,
                )
            self.answers = False
            if config_due:
                self._configure(port)
            return
        self.answers = True
        problem = self._differs(answers)
        if problem:
            log.warning(
                "sign %s on %s: %s; rewriting its whole configuration",
                self.header["address"],
                self.config.url,
                problem,
            )
            self.stats["restored"] += 1
            self._configure(port)
            # Lost memory with the cable in means the sign blanked or showed stale text on the
            # floor: surveillance needs it in the record, not only in a counter.
            self._emit(
                DeviceAlarm(table=self.table, device="sign", code="reset", detail=f"{problem}; restored")
            )

    def _differs(self, answers: list[alpha.AlphaPacket]) -> str | None:
        """What the sign's answers show that we did not send, else None."""
        expected = {
            alpha.WRITE_SPECIAL: alpha.SPECIAL_MEMORY.encode() + alpha.memory_table(list(MEMORY)),
            alpha.WRITE_STRING: AMOUNT_LABEL.encode() + self._files["string"],
            alpha.WRITE_TEXT: TEXT_LABEL.encode() + self._files["text"],
        }
        for item in answers:
            want = expected.get(item.command)
            if want is None:
                return f"unexpected answer {item.command!r}"
            got = item.data
            if item.command == alpha.WRITE_SPECIAL:
                same = _entries(got[1:]) == _entries(want[1:])
            else:
                same = got == want
            if not same:
                return f"its {_FILE_NAMES[item.command]} reads {got!r}, we sent {want!r}"
        return None

    def _write(self, port: serial.SerialBase, data: bytes) -> None:
        port.write(data)
        port.flush()
        self._last_write = time.monotonic()
        self.stats["writes"] += 1

    def _set_link(self, up: bool, detail: str) -> None:
        if self._reported == up:
            return
        self._reported = up
        self._emit(DeviceLink(table=self.table, device="sign", up=up, detail=detail, url=self.config.url))

    def _emit(self, event: Event) -> None:
        """Hand a device event to the station; a log that cannot take it never stops the sign."""
        if self.on_event is None:
            return
        try:
            self.on_event(event)
        except StorageUnavailable as exc:
            log.warning("sign %s event not recorded: %s", event.kind, exc)
        except Exception:
            log.exception("sign %s event handler failed", event.kind)


_FILE_NAMES = {
    alpha.WRITE_SPECIAL: "memory table",
    alpha.WRITE_STRING: "amount STRING",
    alpha.WRITE_TEXT: "TEXT",
}


def _entries(table: bytes) -> set[bytes]:
    """A memory table as its set of 11-byte entries (a sign may list them in its own order)."""
    return {table[i : i + 11] for i in range(0, len(table), 11)}


def _check_cents(cents: int) -> None:
    if isinstance(cents, bool) or not isinstance(cents, int) or cents < 0:
        raise SignError(f"an amount must be whole cents >= 0, got {cents!r}")
    if cents > MAX_CENTS:
        raise SignError(f"{format_amount(cents)} does not fit the sign's {AMOUNT_SIZE}-character amount file")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")
