"""Analysis wall time: every game's every bet by complete enumeration, next to its target.

Each analysis runs in a fresh Python process, so one bet never inherits another's cached
enumeration (Face Up Pai Gow's three bets share one pass over the seven-card hands) and every
time is what a user waits for ``dealerassist analyze GAME --bet BET`` after start-up. The time is
taken inside that process around the analysis alone (imports excluded) and includes its CPU and
any wait for a busy machine: run it with ``nice`` on a shared host and read it as wall time.

Targets: Three Card Poker ante-play under 60 s; Face Up Pai Gow fortune under 10 min. Other bets
have none and show ``-``. Printed per bet: seconds, target, time as a share of the target, and
the house edge found (so a fast wrong answer shows). ``--json`` prints one object instead.

    dealerassist bench analyze                          # everything (several minutes)
    dealerassist bench analyze --only three-card-poker:ante-play
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass

from dealerassist.analysis import AnalysisError, AnalysisRequest, analyze, analyzers

TARGETS_S: dict[tuple[str, str], float] = {
    ("three-card-poker", "ante-play"): 60.0,
    ("face-up-pai-gow", "fortune"): 600.0,
}


@dataclass(frozen=True)
class Timing:
    game: str
    bet: str
    seconds: float
    house_edge: float

    @property
    def target(self) -> float | None:
        return TARGETS_S.get((self.game, self.bet))

    def as_json(self) -> dict[str, object]:
        return {
            "game": self.game,
            "bet": self.bet,
            "seconds": round(self.seconds, 3),
            "target_s": self.target,
            "house_edge": self.house_edge,
        }


def every_bet() -> list[tuple[str, str]]:
    return [(game, bet) for game, bets in analyzers().items() for bet in bets]


def selected(only: list[str] | None) -> list[tuple[str, str]]:
    """``GAME`` or ``GAME:BET`` selections, checked against the analyses that exist."""
    known = every_bet()
    if not only:
        return known
    chosen: list[tuple[str, str]] = []
    for text in only:
        game, _, bet = text.partition(":")
        matches = [(g, b) for g, b in known if g == game and (not bet or b == bet)]
        if not matches:
            listing = ", ".join(f"{g}:{b}" for g, b in known)
            raise AnalysisError(f"no analysis {text!r} (have: {listing})")
        chosen += [m for m in matches if m not in chosen]
    return chosen


def time_one(game: str, bet: str) -> Timing:
    """Run one analysis in this process and time it (the child side of ``measure``)."""
    started = time.perf_counter()
    result = analyze(AnalysisRequest(game=game), [bet])[bet]
    return Timing(game, bet, time.perf_counter() - started, float(result.house_edge))


def measure(game: str, bet: str) -> Timing:
    """Time one analysis in a fresh interpreter so no cache from an earlier bet helps it."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", f"{game}:{bet}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise AnalysisError(f"{game}:{bet} failed:\n{done.stderr.strip()}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return Timing(game, bet, float(data["seconds"]), float(data["house_edge"]))


def report(timings: list[Timing]) -> str:
    lines = [f"{'game':24} {'bet':13} {'seconds':>9} {'target':>8} {'of target':>9}  house edge"]
    for t in timings:
        target = f"{t.target:.0f} s" if t.target else "-"
        share = f"{t.seconds / t.target:.0%}" if t.target else "-"
        lines.append(f"{t.game:24} {t.bet:13} {t.seconds:9.2f} {target:>8} {share:>9}  {t.house_edge:.4%}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dealerassist bench analyze", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", action="append", metavar="GAME[:BET]", help="only this game or bet (repeatable)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--child", metavar="GAME:BET", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        game, _, bet = args.child.partition(":")
        print(json.dumps(time_one(game, bet).as_json()))
        return 0
    timings = []
    for game, bet in selected(args.only):
        timings.append(measure(game, bet))
        if not args.json:
            print(f"  {game}:{bet} {timings[-1].seconds:.2f} s", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps({"analyses": [t.as_json() for t in timings]}))
    else:
        print(report(timings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
