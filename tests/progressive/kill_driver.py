"""A standalone table playing a fixed, seeded sequence of rounds into a durable event log.

``python -m tests.progressive.kill_driver LOG ROUNDS`` resumes wherever the log says it stopped,
so the kill test can SIGKILL it at random instants and start it again until it finishes. Each step
is one append, as the tracker logs one input; the controller reacts to it right after, which is
exactly the window a kill -9 may cut.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from dealerassist.events import Event
from dealerassist.progressive.controller import ProgressiveController
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker.events import BettingClosed, RoundClose, RoundOpen, RoundSettled, RoundVoided, Wager
from tests.progressive.support import TableFeed, attach, make_params

TABLE = "fupg-kill"
HANDS = (
    (0.03, "seven-card-straight-flush"),
    (0.06, "royal-match"),
    (0.10, "straight-flush"),
    (0.14, "five-aces"),
)


def round_steps(round_id: int, table: str = TABLE) -> list[Event]:
    """One round's tracker records, the same every time for the same table and round."""
    rng = random.Random(f"{table}:{round_id}")
    steps: list[Event] = [RoundOpen(table=table, round_id=round_id)]
    seats = []
    for seat in range(1, 7):
        draw = rng.random()
        if draw < 0.6:
            seats.append(seat)
            steps.append(Wager(table=table, round_id=round_id, seat=seat, bet="progressive", amount=100))
        elif draw < 0.65:
            steps.append(Wager(table=table, round_id=round_id, seat=seat, bet="progressive", amount=500))
    steps.append(BettingClosed(table=table, round_id=round_id))
    if rng.random() < 0.1:
        steps.append(RoundVoided(table=table, round_id=round_id, reason="misdeal"))
    else:
        results = []
        for seat in seats:
            draw, hand = rng.random(), "nothing"
            for chance, name in HANDS:
                if draw < chance:
                    hand = name
                    break
            results.append({"seat": seat, "position": f"seat-{seat}", "bet": "progressive", "hand": hand})
        steps.append(RoundSettled(table=table, round_id=round_id, results=tuple(results)))
    steps.append(RoundClose(table=table, round_id=round_id))
    return steps


def play(log_path: Path, rounds: int, table: str = TABLE, link: str | None = None) -> ProgressiveController:
    """Play ``rounds`` rounds at ``table`` (standalone, or on the shared meter at ``link``)."""
    log = EventLog(log_path)
    feed = TableFeed(table, log)
    params = make_params(limit="10020", **({"link": link} if link else {}))
    controller = attach(feed, ProgressiveController(table, params, log))
    done = sum(1 for r in log.records(table=table) if not r.event.kind.startswith(("progressive-", "table-")))
    steps = [step for round_id in range(1, rounds + 1) for step in round_steps(round_id, table)]
    for index, step in enumerate(steps):
        confirm_pending(controller)
        if index >= done:
            feed.emit(step)
    confirm_pending(controller)
    return controller


def confirm_pending(controller: ProgressiveController) -> None:
    """The supervisor confirms this table's own jackpots (a linked meter may hold others' too)."""
    for hit_id in controller.meter.pending:
        if hit_id.startswith(f"{controller.table}:"):
            controller.confirm(hit_id, "sam", "supervisor")


if __name__ == "__main__":
    args = sys.argv[1:]
    play(Path(args[0]), int(args[1]), *args[2:4])
