"""The long run of the shoe kill test: ``dealerassist run`` SIGKILLed at 30+ random instants per game
while the shoe emulator deals over TCP; prints what it found and exits 1 on any card doubled or lost.

    .venv/bin/python scripts/shoe_kill.py [--kills 30] [--seed 2026] [--game pairs-and-up ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.station.shoe_kill import BETS, run_with_kills  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=30)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--game", action="append", choices=sorted(BETS), help="default: every game")
    args = parser.parse_args(argv)
    failed = False
    for game in args.game or sorted(BETS):
        with tempfile.TemporaryDirectory(prefix="shoe-kill-") as workdir:
            report = run_with_kills(Path(workdir), game, args.kills, args.seed)
        print(
            f"{game}: {report.kills} kills, {report.starts} starts, {report.cards} cards, "
            f"{report.rounds} rounds, {report.repeats_refused} resent card(s) refused as repeats, "
            f"{report.seconds:.0f} s: " + ("OK" if not report.problems else "PROBLEMS"),
            flush=True,
        )
        for problem in report.problems:
            print(f"  {problem}", flush=True)
        failed = failed or bool(report.problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
