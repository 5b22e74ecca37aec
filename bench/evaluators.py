"""Hand evaluators: ours against treys and pokerkit on the same random hands, as time ratios.

Measured in one run, on one core, as CPU time (``time.process_time``, best of ``--repeat``, the
contenders taking turns), so other load on the machine distorts the ratios less than wall-clock
would. Each result is used and dropped at once, as at a table:

* five-card, two lines. Full API: ``evaluate_five`` (Card objects in, validated, HandValue out)
  against treys ``Evaluator.evaluate`` (its own pre-built integer cards) and pokerkit
  ``StandardHighHand``. Like for like: ``five_card_strength`` on ``card_codes`` ints (strength
  out, duplicates still refused) against the same treys call and treys' bare five-card routine
  (``Evaluator._five``, one list of five ints, no checks);
* best five of seven: ``best_five`` against treys (7 cards) and pokerkit ``from_game``;
* three-card: ``evaluate_three``. Neither peer ranks Three Card Poker, so the peers are treys on
  five cards (its cheapest call) and the slow reference evaluator from the tests;
* batch: ``five_card_strengths`` over all 2,598,960 five-card hands, and best-five-of-seven
  over random seven-card hands from 53 cards, against treys per hand.

The ratio columns are peer time / our time: above 1 we are faster. It also reports whether our
ordering of the sampled hands agrees with treys'. Run: ``python bench/evaluators.py`` or
``dealerassist bench evaluators [--hands 20000 --sevens 4000 --repeat 5]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
from pokerkit import Card as PokerkitCard
from pokerkit import StandardHighHand
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from dealerassist.core.cards import FULL_DECK, JOKER, Card
from dealerassist.hands import best_five, card_codes, evaluate_five, evaluate_three, five_card_strength
from dealerassist.hands.batch import (
    best_five_strengths,
    card_indices,
    combinations_array,
    five_card_strengths,
)

REFERENCE = Path(__file__).resolve().parents[1] / "tests" / "reference_evaluators.py"


def cpu_seconds(work: Callable[[], Any], repeat: int) -> float:
    """Best CPU time of ``repeat`` runs of ``work``."""
    return interleaved({"work": work}, repeat)["work"]


def interleaved(works: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Best CPU time of each work, the works taking turns so that a busy spell on the machine
    hits all of them alike rather than one."""
    best = dict.fromkeys(works, float("inf"))
    for _ in range(repeat):
        for name, work in works.items():
            started = time.process_time()
            work()
            best[name] = min(best[name], time.process_time() - started)
    return best


def each(judge: Callable[..., Any], hands: Sequence[Any], *, spread: bool = False) -> Callable[[], None]:
    """One timing run: judge every hand and drop the result at once, as a table does. (Keeping
    thousands of result objects alive would also time the garbage collector walking them.)
    ``spread`` passes each item's parts as separate arguments (treys' hand and board)."""

    def run() -> None:
        if spread:
            for parts in hands:
                judge(*parts)
        else:
            for hand in hands:
                judge(hand)

    return run


def treys_cards(hand: Sequence[Card]) -> list[int]:
    return [TreysCard.new(card.code[0] + card.code[1].lower()) for card in hand]


def pokerkit_cards(hand: Sequence[Card]) -> list[PokerkitCard]:
    return list(PokerkitCard.parse("".join(card.code[0] + card.code[1].lower() for card in hand)))


def load_reference() -> Any | None:
    """The tests' slow reference evaluators, when the checkout has them."""
    if not REFERENCE.is_file():
        return None
    spec = importlib.util.spec_from_file_location("reference_evaluators", REFERENCE)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def same_order(ours: Sequence[int], theirs_lower_is_better: Sequence[int]) -> bool:
    """True when both rank every pair of hands alike (treys: smaller is stronger)."""
    pairs = sorted(zip(ours, theirs_lower_is_better, strict=True))
    groups: dict[int, set[int]] = {}
    for mine, theirs in pairs:
        groups.setdefault(mine, set()).add(theirs)
    if any(len(v) != 1 for v in groups.values()):
        return False
    mapped = [next(iter(groups[k])) for k in sorted(groups)]
    return all(a > b for a, b in pairwise(mapped))


def row(label: str, ours: float, count: int, peers: dict[str, float]) -> None:
    cells = [f"{label:26} ours {ours / count * 1e6:8.3f} us/hand"]
    for name, seconds in peers.items():
        cells.append(f"{name} {seconds / count * 1e6:9.3f} us  ratio {seconds / ours:7.2f}")
    print("  ".join(cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/evaluators.py", description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000, help="random five- and three-card hands")
    parser.add_argument("--sevens", type=int, default=4_000, help="random seven-card hands per hand timing")
    parser.add_argument("--pokerkit-sevens", type=int, default=300, help="pokerkit is slow on seven cards")
    parser.add_argument("--batch-sevens", type=int, default=1_000_000, help="seven-card hands for the batch")
    parser.add_argument("--repeat", type=int, default=5, help="runs per timing; the best is kept")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if min(args.hands, args.sevens, args.pokerkit_sevens, args.batch_sevens, args.repeat) < 1:
        parser.error("counts must be at least 1")

    rng = random.Random(args.seed)
    fives = [tuple(rng.sample(FULL_DECK, 5)) for _ in range(args.hands)]
    sevens = [tuple(rng.sample(FULL_DECK, 7)) for _ in range(args.sevens)]
    threes = [tuple(rng.sample(FULL_DECK, 3)) for _ in range(args.hands)]
    treys = TreysEvaluator()
    treys_fives = [(treys_cards(h[:2]), treys_cards(h[2:])) for h in fives]
    treys_bare = [treys_cards(h) for h in fives]
    code_of = dict(zip(FULL_DECK, card_codes(FULL_DECK), strict=True))
    code_fives = [tuple(code_of[card] for card in h) for h in fives]
    treys_sevens = [(treys_cards(h[:2]), treys_cards(h[2:])) for h in sevens]
    kit_fives = [pokerkit_cards(h) for h in fives]
    kit_sevens = [(pokerkit_cards(h[:2]), pokerkit_cards(h[2:])) for h in sevens[: args.pokerkit_sevens]]
    best_five(sevens[0])  # best-of-seven tables are built on first use: not part of the timing

    print(f"hand evaluators, CPU time per hand, best of {args.repeat}; ratio = peer time / ours")
    n, r = len(fives), args.repeat
    timed = interleaved(
        {
            "ours": each(evaluate_five, fives),
            "ints": each(five_card_strength, code_fives),
            "treys": each(treys.evaluate, treys_fives, spread=True),
            "treys-bare": each(treys._five, treys_bare),
            "three": each(evaluate_three, threes),
        },
        r,
    )
    ours, treys_time, ours3 = timed["ours"], timed["treys"], timed["three"]
    kit = cpu_seconds(each(StandardHighHand, kit_fives), 1) * n / len(kit_fives)
    row("five-card full API", ours, n, {"treys": treys_time, "pokerkit": kit})
    row("five-card ints", timed["ints"], n, {"treys": treys_time, "treys-bare": timed["treys-bare"]})
    pairs = zip(code_fives, fives, strict=True)
    same = all(five_card_strength(codes) == evaluate_five(hand).strength for codes, hand in pairs)
    print(f"{'':26} ints give evaluate_five's strength on {n} hands: {'yes' if same else 'NO'}")
    agree = same_order(
        [evaluate_five(h).strength for h in fives], [treys.evaluate(a, b) for a, b in treys_fives]
    )
    print(f"{'':26} order agrees with treys on {n} hands: {'yes' if agree else 'NO'}")

    n7 = len(sevens)
    timed = interleaved(
        {
            "ours": each(best_five, sevens),
            "treys": each(treys.evaluate, treys_sevens, spread=True),
        },
        r,
    )
    ours7, treys7 = timed["ours"], timed["treys"]
    kit7 = cpu_seconds(each(StandardHighHand.from_game, kit_sevens, spread=True), 1) * n7 / len(kit_sevens)
    row("best five of seven", ours7, n7, {"treys": treys7, "pokerkit": kit7})
    agree7 = same_order(
        [best_five(h).strength for h in sevens], [treys.evaluate(a, b) for a, b in treys_sevens]
    )
    print(f"{'':26} order agrees with treys on {n7} hands: {'yes' if agree7 else 'NO'}")

    peers3 = {"treys-5card": treys_time}
    reference = load_reference()
    if reference is not None:
        sample = threes[: min(len(threes), 5000)]
        peers3["reference"] = cpu_seconds(each(reference.ref_three, sample), 1) * n / len(sample)
    row("three-card", ours3, n, peers3)

    print("batch (numpy), CPU time")
    all_fives = combinations_array(52, 5)
    five_card_strengths(all_fives[:10])
    batch5 = cpu_seconds(lambda: five_card_strengths(all_fives), min(r, 3))
    treys_all = treys_time / n * len(all_fives)
    print(
        f"{'all 2,598,960 five-card':26} ours {batch5:8.3f} s  ({batch5 / len(all_fives) * 1e9:.0f} ns/hand)"
        f"  treys per hand {treys_all:7.2f} s  ratio {treys_all / batch5:7.1f}"
    )
    deck = np.array([c.index for c in (*FULL_DECK, JOKER)])
    np_rng = np.random.default_rng(args.seed)
    batch_sevens = np.argsort(np_rng.random((args.batch_sevens, len(deck))), axis=1)[:, :7]
    best_five_strengths(card_indices([sevens[0]]), wheel_second=True)
    batch7 = cpu_seconds(lambda: best_five_strengths(batch_sevens, wheel_second=True), min(r, 3))
    per7 = batch7 / len(batch_sevens)
    treys_per7 = treys7 / n7
    print(
        f"{'best five of 7 (53 cards)':26} ours {per7 * 1e9:8.0f} ns/hand"
        f"  treys per hand {treys_per7 * 1e9:8.0f} ns"
        f"  ratio {treys_per7 / per7:7.1f}  (all 154,143,080 hands: ~{per7 * 154_143_080:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
