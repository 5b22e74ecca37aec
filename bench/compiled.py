"""What numba (the ``fast`` extra) buys the reader and Four Card Poker's count, against plain Python.

Each variant runs in a process of its own on the same frames and hands: the loops compiled; the
loops compiled but the features worked by the OpenCV passes instead of ``window_kernel`` (what
the kernel alone buys); and everything uncompiled (``DEALERASSIST_NO_NUMBA=1``, as an install
without the extra runs). Printed: CPU ms per frame (each frame's least over ``--repeat`` passes,
BLAS and OpenCV on one thread), whether the sightings are the compiled reader's, and the
ratios measured in this run; then CPU ms per Four Card Poker review (``dealer_hands_above``).

    nice dealerassist bench compiled                        # the shipped deck, 40 scenes
    nice dealerassist bench compiled --design cardsjs --deck var/val-decks/cardsjs-60x120x2-f3.npz
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from dealerassist.compiled import NO_NUMBA

VARIANTS = {  # name: (environment, features by the OpenCV passes)
    "compiled": ({NO_NUMBA: "0"}, False),
    "compiled, features by passes": ({NO_NUMBA: "0"}, True),
    "uncompiled": ({NO_NUMBA: "1"}, False),
}


def _read_frames(design: str, deck: str, scenes: int, seed: int, repeat: int, passes: bool) -> dict:
    from dealerassist.simulation import artwork
    from dealerassist.vision import index_features
    from dealerassist.vision.deck import DeckModel
    from dealerassist.vision.process import prepare_for_reading
    from dealerassist.vision.reader import CardReader
    from dealerassist.vision.scenes import load_design, make_scene

    if passes:
        index_features.is_compiled = lambda: False
    prepare_for_reading()
    cards = load_design(artwork.design_dir(design))
    rng = np.random.default_rng(seed)
    frames = [make_scene(cards, rng)[0] for _ in range(scenes)]
    read = CardReader(DeckModel.load(Path(deck))).read
    read(frames[0])  # the loops load (or compile) once, as a camera's reader starts
    costs = np.full(scenes, np.inf)
    sightings = []
    for turn in range(repeat):
        for i, frame in enumerate(frames):
            started = time.process_time()
            found = read(frame)
            costs[i] = min(costs[i], time.process_time() - started)
            if turn == 0:
                sightings.append([s.to_json() for s in found])
    return {"ms": 1000 * float(costs.mean()), "sightings": sightings}


def _count_hands(hands: int) -> dict:
    from dealerassist.core.cards import FULL_DECK
    from dealerassist.protection.four_card_poker import dealer_hands_above, four_card_ranks

    four_card_ranks()
    dealt = [random.Random(seed).sample(FULL_DECK, 6) for seed in range(hands + 1)]
    dealer_hands_above(frozenset(dealt[-1][:5]), dealt[-1][5])  # loads (or compiles) the loop
    started = time.process_time()
    counts = [dealer_hands_above(frozenset(cards[:5]), cards[5])[0] for cards in dealt[:hands]]
    return {"ms": 1000 * (time.process_time() - started) / hands, "counts": counts}


def _worker(args: argparse.Namespace) -> int:
    if args.worker == "poker":
        result = _count_hands(args.hands)
    else:
        result = _read_frames(args.design, args.deck, args.scenes, args.seed, args.repeat, args.passes)
    json.dump(result, sys.stdout)
    return 0


def _run(variant: str, task: str, argv: list[str]) -> dict:
    environment, passes = VARIANTS[variant]
    command = [sys.executable, __file__, "--worker", task, *argv, *(["--passes"] if passes else [])]
    done = subprocess.run(
        command, env={**os.environ, **environment}, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"bench compiled: the {variant} run failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    from dealerassist.simulation import artwork
    from dealerassist.vision.deck import bundled_deck

    parser = argparse.ArgumentParser(prog="bench compiled", description=__doc__.splitlines()[0])
    parser.add_argument("--design", default=artwork.TUNING_DESIGN, help="design the scenes are made of")
    parser.add_argument("--deck", help="the design's enrolled deck file (default: the shipped deck)")
    parser.add_argument("--scenes", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeat", type=int, default=2, help="passes over the frames, compiled runs")
    parser.add_argument("--hands", type=int, default=5, help="Four Card Poker reviews counted")
    parser.add_argument("--worker", choices=["vision", "poker"], help=argparse.SUPPRESS)
    parser.add_argument("--passes", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.deck = args.deck or str(bundled_deck(args.design))
    if args.worker:
        return _worker(args)
    shared = ["--design", args.design, "--deck", args.deck, "--scenes", str(args.scenes)]
    shared += ["--seed", str(args.seed)]
    reads = {
        variant: _run(
            variant, "vision", [*shared, "--repeat", str(1 if "uncompiled" in variant else args.repeat)]
        )
        for variant in VARIANTS
    }
    base = reads["compiled"]
    print(f"# {args.design}, {args.scenes} scenes (seed {args.seed}), deck {args.deck}")
    print(f"{'reader':<30} {'cpu ms/frame':>12} {'x compiled':>10}  sightings")
    for variant, read in reads.items():
        same = sum(a == b for a, b in zip(read["sightings"], base["sightings"], strict=True))
        ratio = read["ms"] / base["ms"]
        print(f"{variant:<30} {read['ms']:>12.2f} {ratio:>10.2f}  {same}/{args.scenes} frames alike")
    hands = ["--hands", str(args.hands)]
    counts = {variant: _run(variant, "poker", hands) for variant in ("compiled", "uncompiled")}
    alike = counts["uncompiled"]["counts"] == counts["compiled"]["counts"]
    ratio = counts["uncompiled"]["ms"] / counts["compiled"]["ms"]
    print(
        f"four-card-poker review: {counts['compiled']['ms']:.1f} ms compiled, "
        f"{counts['uncompiled']['ms']:.1f} ms uncompiled ({ratio:.1f}x), counts "
        f"{'alike' if alike else 'DIFFER'} over {args.hands} hands"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
