"""``dealerassist replay FILE.jsonl``: run a recorded or hand-written round file through the tracker.

Prints every alarm, refusal, void and settlement (or, with ``--json``, every event the tracker
produced, one per line). A refusal is printed as the ``refused`` record the tracker logs (``rule``,
``field``, ``message``, ``input``, ``round_id``; docs/event-kinds.md) plus ``line`` and ``declared``:
whether the round file declares it (its rule in the round's ``expect.refused``). Exits 1 when a
refusal is undeclared, a stated expectation is not met or an exported round does not settle as it
was recorded.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from dealerassist.core.money import format_amount
from dealerassist.events import Event, EventError
from dealerassist.tracker.replay import Replayer, read_replay_file

SHOWN = ("alarm", "alarm-cleared", "round-voided", "round-settled", "read-needs-confirmation")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="run a round file (hand-written or exported) through the tracker")
    p.add_argument("file", help="JSON Lines file of events or exported records")
    p.add_argument("--json", action="store_true", help="print every produced event as one JSON line")
    p.add_argument(
        "--table",
        action="append",
        default=[],
        metavar="TOML",
        help="table config file for tables the file does not configure (repeatable)",
    )
    p.set_defaults(handler=_replay)


def _replay(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.is_file():
        raise EventError(f"{path}: no such replay file")
    tables = {}
    if args.table:
        from dealerassist.tablefiles.tables import load_table

        for name in args.table:
            config = load_table(name)
            tables[config.table_id] = config
    report = Replayer(tables, base_dir=path.parent).run(read_replay_file(path))
    lines: list[tuple[int, str]] = []
    for number, event in report.outputs:
        if args.json:
            lines.append((number, json.dumps({"line": number, **event.to_dict()}, sort_keys=True)))
        elif event.kind in SHOWN:
            lines.append((number, f"line {number}: {describe(event)}"))
    for refused in report.refused:
        number = refused.line
        if args.json:
            text = json.dumps({"line": number, **refused.record.to_dict(), "declared": refused.declared})
        else:
            text = f"line {number}: REFUSED {refused.message}" + ("" if refused.declared else " (undeclared)")
        lines.append((number, text))
    for check in report.checks:
        if args.json:
            text = json.dumps({"line": check.line, "kind": "check", "ok": check.ok, "message": check.message})
        else:
            text = f"line {check.line}: " if check.line else ""
            text += f"{'ok' if check.ok else 'FAILED'}: {check.message}"
        lines.append((check.line or 1 << 30, text))
    for _, text in sorted(lines, key=lambda item: item[0]):
        print(text)
    return 0 if report.ok else 1


def describe(event: Event) -> str:
    """One readable paragraph per shown event (the dealer's and surveillance's view)."""
    data = event.to_dict()
    head = f"{event.table} round {data.get('round_id')}"
    match event.kind:
        case "alarm":
            return f"ALARM {head} {data['code']} ({data['severity']}) {data['alarm_id']}: {data['message']}"
        case "alarm-cleared":
            return f"ALARM CLEARED {data['alarm_id']} by {data['user']}: {data['reason']}"
        case "read-needs-confirmation":
            return f"CONFIRM {head} read {data['read_id']} at {data['position'] or 'next position'}"
        case "round-voided":
            return f"VOID {head}: {data['reason']}" + _results(data["results"])
        case _:
            hands = ", ".join(f"{p} {name}" for p, name in data.get("hands", {}).items())
            return f"SETTLED {head}" + (f" ({hands})" if hands else "") + _results(data["results"])


def _results(results: list[dict]) -> str:
    lines = []
    for r in results:
        pay = r["win"] + r["returned"]
        extra = f" remainder {r['remainder']}c" if r["remainder"] != "0" else ""
        extra += f" earned by {r['earned_by']}" if r.get("earned_by") else ""
        lines.append(
            f"\n    seat {r['seat']} {r['bet']:<12} stake {format_amount(r['stake'])}: {r['outcome']:<7} "
            f"pay {format_amount(pay)} (win {format_amount(r['win'])}){extra} {r['hand']}".rstrip()
        )
    return "".join(lines)
