"""dealerassist analyze GAME: exact probabilities and house edge of each bet.

With --json standard output holds exactly one JSON object (progress goes to standard error):

    {"game": SLUG, "paytable": "NAME[, NAME...]",
     "bets": {BET: {"house_edge": FLOAT, "hit_frequency": FLOAT,
                    "combinations": {HAND_CLASS: COUNT, ...}, "total": COUNT}, ...}}

house_edge is the expected loss per unit of the initial wager (negative: the player's edge);
paytable is the --paytable given, else the pay tables used, comma-separated. A bet may add its own
keys beside these (Face Up Pai Gow's envy: envy_by_others, per number of other players 1..6,
{"dollars_per_round", "share_of_fortune"}; fortune: trips_and_straight; Three Card Poker's
ante-play: weakest_hand_played, hands_played).

--table FILE analyses a table as configured: its pay tables (unless --paytable names one for the
bet) and the options the analysis follows (Face Up Pai Gow: fortune_trips_and_straight,
envy_min_fortune).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from dealerassist.analysis import AnalysisRequest, BetAnalysis, analyze


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "analyze",
        help="exact house edge of a game's bets by complete enumeration",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", help="game slug, e.g. three-card-poker")
    p.add_argument("--paytable", help="pay-table name (for the bet it pays; others use defaults)")
    p.add_argument("--decks", type=int, help="number of decks in the shoe (where the game uses a shoe)")
    p.add_argument("--bet", action="append", help="only this bet (repeatable)")
    p.add_argument("--table", metavar="TOML", help="analyse this table file's pay tables and options")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object")
    p.set_defaults(handler=_run)


class _Progress:
    """Progress on a terminal's stderr, only once an analysis has run for more than a second.

    Redirected to a file or a pipe it stays silent: carriage-return redraws only clutter a log.
    """

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.last = 0.0
        self.shown = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if not self.shown or now - self.started < 1.0 or now - self.last < 0.5:
            return
        self.last = now
        pct = 100.0 * done / total if total else 100.0
        print(f"\r  {pct:5.1f}% ({done:,}/{total:,})", end="", file=sys.stderr, flush=True)

    def finish(self) -> None:
        if self.last:
            print(file=sys.stderr)


def _run(args: argparse.Namespace) -> int:
    progress = _Progress()
    paytables: dict[str, str] = {}
    options: dict[str, object] = {}
    if args.table:
        from dealerassist.analysis import AnalysisError
        from dealerassist.tablefiles.tables import load_table

        table = load_table(args.table)
        if table.rules.game != args.game:
            raise AnalysisError(f"{args.table} is a {table.rules.game} table, not {args.game}")
        paytables = {bet: paid.name for bet, paid in table.rules.paytables.items()}
        options = dict(table.rules.options)
    request = AnalysisRequest(
        game=args.game,
        paytable=args.paytable,
        decks=args.decks,
        progress=progress,
        paytables=paytables,
        options=options,
    )
    results = analyze(request, args.bet)
    progress.finish()
    names = {r.paytable for r in results.values() if r.paytable}
    paytable = args.paytable or ", ".join(sorted(names))
    if args.json:
        out = {"game": args.game, "paytable": paytable, "bets": {b: r.as_json() for b, r in results.items()}}
        print(json.dumps(out))
        return 0
    for bet, result in results.items():
        _print_table(bet, result)
    return 0


def _print_table(bet: str, result: BetAnalysis) -> None:
    print(f"{bet}  (pay table: {result.paytable or '-'})")
    width = max([len(c) for c in result.combinations] + [10])
    for name, count in sorted(result.combinations.items(), key=lambda kv: kv[1]):
        share = count / result.total if result.total else 0.0
        print(f"  {name:<{width}} {count:>16,}  {share:10.6%}")
    print(f"  {'total':<{width}} {result.total:>16,}")
    print(f"  house edge {float(result.house_edge):.4%}   hit frequency {float(result.hit_frequency):.4%}")
    if result.notes:
        print(f"  {result.notes}")
    by_others = result.extra.get("envy_by_others")
    if by_others:
        print("  other players   per round   share of the qualifying Fortune bet")
        for n, row in by_others.items():
            print(f"  {n:>13}   ${row['dollars_per_round']:>8.4f}   {row['share_of_fortune']:.4%}")
    print()
