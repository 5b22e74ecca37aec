"""A seeded "dealer" that plays high-card rounds against an in-memory tracker and writes down every
input it sent: a long, varied, realistic input script (bad wagers, doubtful reads, confirmations,
camera checks, exposures, alarm acknowledgements) for crash and replay tests."""

from __future__ import annotations

import random
from typing import Any

from highcard_game import high_card_rules

from dealerassist.core.cards import FULL_DECK
from dealerassist.errors import DealerAssistError
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker import Tracker

TABLE = "hc-1"


class DealerBot:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.log = EventLog(":memory:")
        self.tracker = Tracker(high_card_rules(TABLE), self.log)
        self.script: list[dict[str, Any]] = []

    def send(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        data = {"table": TABLE, **data}
        self.script.append(data)
        try:
            return [e.to_dict() for e in self.tracker.handle_data(data)]
        except DealerAssistError:
            return []

    def play_round(self, round_id: int) -> None:
        rng = self.rng
        self.send({"kind": "round-open", "round_id": round_id})
        seats = sorted(rng.sample(range(1, 7), rng.randint(1, 6)))
        antes = {}
        for seat in seats:
            if rng.random() < 0.1:
                self.send({"kind": "wager", "seat": seat, "bet": "ante", "amount": 100, "user": "d1"})
            antes[seat] = rng.choice([500, 1000, 2500])
            self.send({"kind": "wager", "seat": seat, "bet": "ante", "amount": antes[seat], "user": "d1"})
        self.send({"kind": "betting-closed"})
        shoe = list(FULL_DECK)
        rng.shuffle(shoe)
        while (step := self.tracker.snapshot()["next_deal"]) is not None:
            card = shoe.pop().code
            if rng.random() < 0.1:
                out = self.send({"kind": "card-read", "source": "shoe", "card": card, "confidence": 0.4})
                read_id = next(e["read_id"] for e in out if e["kind"] == "read-needs-confirmation")
                self.send({"kind": "confirm-read", "read_id": read_id, "card": card, "user": "d1"})
            else:
                self.send({"kind": "card-read", "source": "shoe", "card": card})
            if step["position"] != "dealer" and rng.random() < 0.3:
                seen = card if rng.random() < 0.9 else shoe[-1].code
                self.send(
                    {"kind": "card-read", "source": "camera", "card": seen, "position": step["position"]}
                )
        if rng.random() < 0.05:
            dealer = self.tracker.snapshot()["positions"]["dealer"][0]["card"]
            self.send({"kind": "card-read", "source": "camera", "card": dealer, "position": "dealer"})
        while pending := self.tracker.snapshot()["pending_decisions"]:
            seat = int(pending[0].split("-")[1])
            if rng.random() < 0.3:
                self.send({"kind": "decision", "position": pending[0], "action": "fold"})
            else:
                self.send(
                    {"kind": "decision", "position": pending[0], "action": "raise", "amount": antes[seat]}
                )
        for alarm in self.tracker.snapshot()["alarms"]:
            if rng.random() < 0.2:
                self.send({"kind": "ack-alarm", "alarm_id": alarm["alarm_id"], "user": "d1", "reason": "try"})
            self.send(
                {
                    "kind": "ack-alarm",
                    "alarm_id": alarm["alarm_id"],
                    "user": "s1",
                    "role": "supervisor",
                    "reason": "ok",
                }
            )
        if rng.random() < 0.85:
            self.send({"kind": "round-close"})


def make_script(seed: int, rounds: int) -> list[dict[str, Any]]:
    bot = DealerBot(seed)
    for round_id in range(1, rounds + 1):
        bot.play_round(round_id)
    bot.log.close()
    return bot.script
