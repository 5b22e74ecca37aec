"""The floor supervisor of the demo: a person on the dashboard, or ``demo-supervisor`` acting alone.

Some things only a supervisor may do: acknowledge an alarm, void a stuck round, confirm that a
progressive jackpot was paid (the meter stays locked until then). With ``auto`` on, this class does
them itself after a short, human-looking delay and logs them as user ``demo-supervisor``, so an
unattended demo keeps dealing. With ``auto`` off it only waits, says on the console what it waits
for, and gives up after ``timeout_s`` so the demo never hangs forever.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from dealerassist.errors import DealerAssistError
from dealerassist.tracker import events as ev

log = logging.getLogger(__name__)

SUPERVISOR_USER = "demo-supervisor"
REASON = "demo auto-supervisor"


class DemoSupervisor:
    def __init__(
        self,
        pit: Any,
        progressive: Mapping[str, Any],
        *,
        auto: bool,
        delay_s: float,
        timeout_s: float = 120.0,
        say: Callable[[str], None] = print,
    ) -> None:
        self.pit = pit
        self.progressive = dict(progressive)
        self.auto = auto
        self.delay_s = delay_s
        self.timeout_s = timeout_s
        self.say = say
        self._timers: list[threading.Timer] = []
        self._lock = threading.Lock()
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> None:
        if self.auto:
            self._unsubscribe = self.pit.subscribe(self._on_record)

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        with self._lock:
            for timer in self._timers:
                timer.cancel()
            self._timers.clear()

    def finish(self, timeout: float) -> None:
        """Let the acknowledgements already due run, so a demo that ends after its last round does
        not leave behind an alarm its supervisor was about to clear."""
        deadline = time.monotonic() + timeout
        with self._lock:
            timers = list(self._timers)
        for timer in timers:
            timer.join(max(0.0, deadline - time.monotonic()))

    # --- alarms -----------------------------------------------------------------------------------

    def _on_record(self, record: Any) -> None:
        event = record.event
        if event.kind == "alarm":
            self._later(lambda: self._ack(event.table, event.alarm_id))

    def _later(self, action: Callable[[], None]) -> None:
        timer = threading.Timer(self.delay_s, action)
        timer.daemon = True
        with self._lock:
            self._timers = [t for t in self._timers if t.is_alive()]
            self._timers.append(timer)
        timer.start()

    def _ack(self, table: str, alarm_id: str) -> None:
        """Acknowledge the alarm if it is still open (a link that came back clears its own)."""
        open_ids = {a["alarm_id"] for a in self.pit.tracker(table).snapshot()["alarms"]}
        if alarm_id not in open_ids:
            return
        try:
            self.pit.handle(
                table,
                ev.AckAlarm(
                    table=table, alarm_id=alarm_id, user=SUPERVISOR_USER, role="supervisor", reason=REASON
                ),
            )
        except DealerAssistError as exc:
            log.info("%s: alarm %s not acknowledged: %s", table, alarm_id, exc)

    # --- what the dealer waits for ----------------------------------------------------------------

    def wait_for_jackpot(self, table: str, stop: threading.Event) -> None:
        """Before a new round: a jackpot waiting for payment is confirmed (or waited for)."""
        controller = self.progressive.get(table)
        if controller is None or not controller.state()["pending"]:
            return
        if self.auto:
            if stop.wait(self.delay_s):
                return
            for hit_id in list(controller.state()["pending"]):
                try:
                    controller.confirm(hit_id, SUPERVISOR_USER, "supervisor")
                    self.say(f"{table}: {SUPERVISOR_USER} confirmed jackpot {hit_id} paid")
                except DealerAssistError as exc:
                    log.info("%s: jackpot %s not confirmed: %s", table, hit_id, exc)
            return
        self.say(
            f"{table}: JACKPOT waiting: a supervisor must confirm the payment on the dashboard "
            f"(Progressive page); the table waits up to {self.timeout_s:.0f} s"
        )
        self._wait(lambda: not controller.state()["pending"], stop)

    def request_void(self, table: str, reason: str, stop: threading.Event) -> None:
        """The round cannot go on: void it (auto) or wait for a supervisor to do it."""
        tracker = self.pit.tracker(table)
        if self.auto:
            if stop.wait(self.delay_s):
                return
            try:
                self.pit.handle(
                    table,
                    ev.ApproveVoid(
                        table=table, user=SUPERVISOR_USER, role="supervisor", reason=f"{REASON}: {reason}"
                    ),
                )
                self.say(f"{table}: {SUPERVISOR_USER} voided the round ({reason})")
            except DealerAssistError as exc:
                log.warning("%s: void refused: %s", table, exc)
            return
        self.say(f"{table}: {reason}: a supervisor must void the round on the dashboard")
        self._wait(lambda: tracker.snapshot()["status"] != "open", stop)

    def _wait(self, done: Callable[[], bool], stop: threading.Event) -> None:
        deadline = time.monotonic() + self.timeout_s
        while not done():
            if stop.wait(0.2) or time.monotonic() > deadline:
                return
