"""Game protection power and false alarms: rounds to flag a hole-carder and a counter, honest flags.

Two measurements per game, both with the tests ``dealerassist protect`` runs (p-value below the
default significance, 1e-4 per session, at least 10 decisions / 20 counted rounds):

* through the tracker: simulated tables (``simulation.players``) write a real log, one cheat and
  five perfect honest players per table, ``--table-rounds`` rounds each; the log is read back by
  ``protection.records`` and every seat session is tested after every round (hole-card) or every
  10 rounds (counting). Printed: rounds until the cheat's first flag, honest sessions flagged.
* false alarms at scale, from the exact null, ``--null-sessions`` honest sessions of ``--rounds``
  rounds: an honest player's match with the informed choice (Three Card Poker, Pairs & Up) is a
  coin of known bias per deal (``follow_chance``), so deals are drawn at random and the coins
  thrown (Three Card Poker: the dealer's cards are drawn and every alternative the test runs,
  all three cards seen or one, is judged on the same deal); for counting, honest bets are drawn
  at random against the true counts the tracker tables recorded (joined one after the other to
  the session's length). Printed: the share of honest sessions flagged at the end, and at any
  look (after every round; every 10 for counting).

Targets: false alarms at most 1 % per 1,000-round session; median rounds to flag a hole-carder who
sees every hidden card under 200, a 1-8 counter under 2,000. The one-card hole-carder (Three Card
Poker: sees the dealer's first card only) is reported beside them, with no target.

    dealerassist bench protection                 # about two to four minutes on a busy 2-core host
    dealerassist bench protection --table-rounds 100 --tables 1 --null-sessions 100   # a quick look
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from dealerassist.core.cards import Card
from dealerassist.protection.counting import counting_test, counts_before, shoes_before
from dealerassist.protection.decisions import FULL_VIEW, DecisionPoint, HoleCardTests
from dealerassist.protection.records import RoundRecord, read_rounds
from dealerassist.protection.report import (
    MIN_COUNTED_ROUNDS,
    MIN_DECISIONS,
    Settings,
    hole_card_steps,
    hole_card_views,
)
from dealerassist.protection.sessions import Session, sessions_of
from dealerassist.protection.stats import rank_correlation
from dealerassist.protection.three_card_poker import Deal, card_mask, deal_of, hand_index, suit_class
from dealerassist.simulation.bets import MAIN_BET, MAIN_MULTIPLES
from dealerassist.simulation.players import TableSession, seated
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import Tracker

SETTINGS = Settings()
CASES = (
    ("three-card-poker", "hole-carder"),
    ("three-card-poker", "one-card-hole-carder"),
    ("pairs-and-up", "hole-carder"),
    ("four-card-poker", "hole-carder"),
    ("perfect-pairs-blackjack", "counter"),
    ("perfect-pairs-blackjack", "hole-carder"),
)
GAMES = tuple(dict.fromkeys(game for game, _ in CASES))
# Four Card Poker deals are too many to price every draw of the null (1,370,754 dealer hands
# each): its null sessions draw from ``--null-deals`` deals priced once (a bootstrap of the deal).
POOLED = frozenset({"four-card-poker"})
SEATS = 6
COUNT_LOOK = 10
CardCount = Counter[Card]


def simulate(
    game: str, cheat: str, tables: int, rounds: int, seed: int, sees: float = 1.0
) -> list[tuple[str, Session, dict[int, CardCount]]]:
    """Seat sessions of simulated tables through the real tracker: ``(player kind, session, the
    cards out of the table's shoe before each round)``."""
    out = []
    for t in range(tables):
        log = EventLog(":memory:")
        tracker = Tracker(load_table(game), log)
        kinds = {seat: "perfect" for seat in range(1, SEATS + 1)}
        kinds[1 + t % SEATS] = cheat
        players = {
            seat: seated(kind, random.Random(seed * 100 + t * 10 + seat), sees)
            for seat, kind in kinds.items()
        }
        session = TableSession(tracker, players, random.Random(seed + t))
        for _ in range(rounds):
            session.play_round()
        dealt = read_rounds(log)
        shoes = shoes_before(sorted(dealt, key=lambda r: r.round_id))
        for found in sessions_of(dealt, SETTINGS.gap):
            out.append((kinds[found.seat], found, shoes))
        log.close()
    return out


def hole_card_flag_round(session: Session, shoes: Mapping[int, CardCount]) -> int | None:
    """The round at which the hole-card test first flags, looking after every round."""
    for round_, test in hole_card_steps(session, shoes):
        if test.decisions >= MIN_DECISIONS and test.p_value < SETTINGS.hole_card_alpha:
            return round_.round_id - session.first_round + 1
    return None


def counting_flag_round(session: Session, rounds: Sequence[RoundRecord]) -> int | None:
    """The round at which the counting test first flags, looking every ``COUNT_LOOK`` rounds."""
    counts = counts_before(rounds)
    for end in range(MIN_COUNTED_ROUNDS, len(session.rounds) + 1, COUNT_LOOK):
        test = counting_test(session.rounds[:end], counts, session.seats, "main")
        if test.p_value < SETTINGS.counting_alpha:
            return end
    return None


# --- the exact null, drawn directly -------------------------------------------------------------


class HonestNull:
    """A perfect honest player's chance of matching each alternative's informed choice, per deal
    (cached), and whether they matched.

    Three Card Poker: the seat's three cards, cached up to suits (the dealer's are all hidden); the
    dealer's three cards are drawn each deal and every alternative (all three seen, one of them
    seen) judged on the same cards, so the null holds the alternatives' dependence. Pairs & Up: the
    seat's two cards and the dealer's turned card. Four Card Poker: the seat's five cards and the
    dealer's face-up card, one of ``pool`` deals drawn once. Those two have one alternative: a coin.
    """

    def __init__(self, game: str, rng: random.Random, pool: int) -> None:
        self.game = game
        self.rules = load_table(game).rules
        self.deck = self.rules.deck.cards()
        self.views = hole_card_views(game)
        self.cache: dict[tuple, tuple[list[float], str, Deal | None, list[Card]]] = {}
        self.pool = [self._sample(rng) for _ in range(pool if game in POOLED else 0)]

    def _sample(self, rng: random.Random) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple]:
        own_count = {"three-card-poker": 3, "pairs-and-up": 2, "four-card-poker": 5}.get(self.game, 2)
        cards = tuple(rng.sample(self.deck, own_count + (self.game != "three-card-poker")))
        own, up = cards[:own_count], cards[own_count:]
        if self.game == "three-card-poker":
            return own, up, suit_class(tuple(sorted(own, key=lambda c: c.index)))
        return own, up, (tuple(sorted(c.code for c in own)), up[0].code)

    def deal(self, rng: random.Random) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple]:
        return rng.choice(self.pool) if self.pool else self._sample(rng)

    def _honest(self, own: tuple[Card, ...], up: tuple[Card, ...]) -> DecisionPoint:
        """The perfect player's decision on this deal, the dealer's hidden cards unknown."""
        stake = {MAIN_BET[self.game]: 100}
        blind = self.views[FULL_VIEW](
            DecisionPoint("t", 1, 1, "seat-1", own, up, (), stake, "stand"), self.rules
        )
        option = sorted(blind.optimal)[0]
        action, amount, choice = "play", None, None
        if option in ("fold", "hit", "stand", "double", "split"):
            action = option
        elif option.endswith("x") and option[:-1].isdigit():
            amount = int(option[:-1]) * 100
        elif option != "play":
            choice = option
        return DecisionPoint("t", 1, 1, "seat-1", own, up, (), stake, action, amount=amount, choice=choice)

    def coins(self, rng: random.Random) -> list[tuple[float, bool]]:
        """One deal: per alternative, the chance of a match and whether the player matched."""
        own, up, key = self.deal(rng)
        if key not in self.cache:
            point = self._honest(own, up)
            chances = [reviewer(point, self.rules).follow_chance for reviewer in self.views.values()]
            deal = deal_of(point, self.rules) if self.game == "three-card-poker" else None
            self.cache[key] = (chances, point.action, deal, [c for c in self.deck if c not in own])
        chances, chosen, deal, rest = self.cache[key]
        if deal is None:
            return [(chances[0], rng.random() < chances[0])]
        hidden = rng.sample(rest, 3)
        row = hand_index()[card_mask(tuple(hidden))]
        nets = np.array([deal.play[row], *(deal.play_by_card[c.index] for c in hidden)])
        return list(zip(chances, deal.best(chosen, nets).tolist(), strict=True))

    def session(self, rng: random.Random, rounds: int) -> tuple[bool, bool]:
        """One honest session: (flagged at the end, flagged at any look)."""
        tests = HoleCardTests.of(list(self.views))
        ever = False
        for _ in range(rounds):
            for test, (p, matched) in zip(tests.tests.values(), self.coins(rng), strict=True):
                test.null.add(p)
                test.matches += matched
            if tests.decisions >= MIN_DECISIONS and tests.p_value < SETTINGS.hole_card_alpha:
                ever = True
        return tests.p_value < SETTINGS.hole_card_alpha, ever


def counting_null(
    series: list[list[float]], sessions: int, rounds: int, rng: random.Random
) -> tuple[float, float]:
    """Honest bets (random multiples) against recorded true counts: flag shares (end, any look)."""
    joined = [tc for one in series for tc in one]
    end = ever = 0
    for _ in range(sessions):
        start = rng.randrange(len(joined))
        counts = [joined[(start + i) % len(joined)] for i in range(rounds)]
        bets = [rng.choice(MAIN_MULTIPLES) for _ in counts]
        looks = [
            rank_correlation(counts[:n], bets[:n]).p_value < SETTINGS.counting_alpha
            for n in range(MIN_COUNTED_ROUNDS, len(counts) + 1, COUNT_LOOK)
        ]
        end += rank_correlation(counts, bets).p_value < SETTINGS.counting_alpha
        ever += any(looks)
    return end / sessions, ever / sessions


def run(args: argparse.Namespace) -> dict[str, dict[str, object]]:
    results: dict[str, dict[str, object]] = {}
    hole_nulls: dict[str, tuple[float, float]] = {}
    rng = random.Random(args.seed)
    for game, kind_of_cheat in CASES:
        if game not in args.games:
            continue
        holes = kind_of_cheat != "counter"
        started = time.monotonic()
        sessions = simulate(game, kind_of_cheat, args.tables, args.table_rounds, args.seed, args.sees)
        cheat, honest = [], []
        series = []
        for kind, session, shoes in sessions:
            if holes:
                flagged = hole_card_flag_round(session, shoes)
            else:
                rounds = sorted(session.rounds, key=lambda r: r.round_id)
                flagged = counting_flag_round(session, rounds)
                counts = counts_before(rounds)
                series.append([counts[r.round_id].true_count for r in rounds if r.round_id in counts])
            (honest if kind == "perfect" else cheat).append(flagged)
        if holes and game in hole_nulls:  # one null per game: the same test, whichever cheat
            fa_end, fa_any = hole_nulls[game]
        elif holes:
            null = HonestNull(game, rng, args.null_deals)
            draws = [null.session(rng, args.rounds) for _ in range(args.null_sessions)]
            fa_end = sum(d[0] for d in draws) / len(draws)
            fa_any = sum(d[1] for d in draws) / len(draws)
            hole_nulls[game] = fa_end, fa_any
        else:
            fa_end, fa_any = counting_null(series, args.null_sessions, args.rounds, rng)
        flagged_rounds = [r for r in cheat if r is not None]
        results[f"{game} {kind_of_cheat}"] = {
            "game": game,
            "cheat": kind_of_cheat,
            "hole_carder_sees": args.sees,
            "cheat_sessions": len(cheat),
            "cheat_flagged": len(flagged_rounds),
            "median_rounds_to_flag": statistics.median(flagged_rounds) if flagged_rounds else None,
            "rounds_to_flag": cheat,
            "honest_sessions_through_tracker": len(honest),
            "honest_flagged_through_tracker": sum(r is not None for r in honest),
            "null_sessions": args.null_sessions,
            "false_alarm_at_end": fa_end,
            "false_alarm_any_look": fa_any,
            "rounds_per_session": args.rounds,
            "rounds_per_table": args.table_rounds,
            "seconds": round(time.monotonic() - started, 1),
        }
    return results


def report(results: dict[str, dict[str, object]], rounds: int) -> str:
    lines = [
        f"{'game':<24} {'cheat':<20} {'median rounds to flag':>22} {'honest flagged (tracker)':>25} "
        f"{'false alarms: end / any look':>29} {'s':>6}"
    ]
    for r in results.values():
        game = r["game"]
        median = r["median_rounds_to_flag"]
        to_flag = f"{'-' if median is None else median} ({r['cheat_flagged']}/{r['cheat_sessions']})"
        honest = f"{r['honest_flagged_through_tracker']}/{r['honest_sessions_through_tracker']}"
        alarms = f"{r['false_alarm_at_end']:.2%} / {r['false_alarm_any_look']:.2%} of {r['null_sessions']}"
        lines.append(f"{game:<24} {r['cheat']:<20} {to_flag:>22} {honest:>25} {alarms:>29} {r['seconds']:>6}")
    lines.append(
        f"targets: false alarms <= 1% per {rounds}-round session; median rounds to flag: hole-carder < 200, "
        "counter < 2000"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="dealerassist bench protection", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--tables", type=int, default=3, help="simulated tables per game (one cheat each)")
    parser.add_argument("--table-rounds", type=int, default=300, help="rounds per simulated table")
    parser.add_argument(
        "--rounds", type=int, default=1000, help="rounds per honest session drawn from the null"
    )
    parser.add_argument("--null-sessions", type=int, default=1000, help="honest sessions drawn from the null")
    parser.add_argument(
        "--null-deals", type=int, default=2000, help="Four Card Poker deals the null sessions draw from"
    )
    parser.add_argument(
        "--sees", type=float, default=1.0, help="the hole-carder's chance to see a round's hidden cards"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = run(args)
    print(json.dumps(results) if args.json else report(results, args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
