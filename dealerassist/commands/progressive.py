"""``dealerassist progressive``: status, reconciliation report, supervisor confirmation, simulation."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealerassist.core.money import MoneyError, format_amount, parse_amount
from dealerassist.errors import DealerAssistError
from dealerassist.progressive.params import ProgressiveParams, params_from_section, params_from_table
from dealerassist.tablefiles.tables import load_table

if TYPE_CHECKING:  # imported when a verb runs, so the CLI starts without them
    from dealerassist.events import Event
    from dealerassist.progressive.controller import ProgressiveController
    from dealerassist.storage.eventlog import EventLog, LogRecord

SIM_DB = "var/progressive-sim.db"
# Used for a table whose config has no [progressive] section yet (the shipped examples).
DEMO_SECTION: dict[str, Any] = {"base": "1000", "reset": "1000", "increment": "15", "reserve": "5"}


class ProgressiveCommandError(DealerAssistError):
    """A progressive command that cannot run as asked."""


def register(sub: argparse._SubParsersAction) -> None:
    prog = sub.add_parser("progressive", help="table progressive: meter status, reconciliation, jackpots")
    verbs = prog.add_subparsers(dest="progressive_command", metavar="VERB", required=True)

    def common(p: argparse.ArgumentParser, db_help: str = "$DEALERASSIST_DB or var/events.db") -> None:
        p.add_argument("--table", required=True, help="a configured table's name or a .toml path")
        p.add_argument("--db", default=None, help=f"event log file (default: {db_help})")

    p = verbs.add_parser("status", help="the meters, pending jackpots and the last hits")
    common(p)
    p.add_argument("--json", action="store_true", help="print the sign/dashboard state as JSON")
    p.set_defaults(handler=_status)

    p = verbs.add_parser("report", help="reconcile the controller meter, the sign and the logged events")
    common(p)
    p.add_argument("--sign-amount", default=None, help="the amount read off the sign, e.g. '$10,231.55'")
    p.add_argument("--json", action="store_true", help="print the reconciliation as JSON")
    p.set_defaults(handler=_report)

    p = verbs.add_parser("confirm", help="a supervisor confirms a jackpot was paid (unlocks the meter)")
    common(p)
    p.add_argument("hit_id", help="the jackpot's id, as 'status' lists it (TABLE:ROUND:SEAT)")
    p.add_argument("--user", required=True, help="the supervisor's name, logged with the confirmation")
    p.add_argument("--role", default="dealer", help="your role: only 'supervisor' or 'admin' may confirm")
    p.set_defaults(handler=_confirm)

    p = verbs.add_parser("simulate", help="play synthetic rounds: watch the meter climb, hit and reset")
    common(p, db_help=SIM_DB)
    p.add_argument("--sign", default=None, help="jackpot sign URL (e.g. socket://127.0.0.1:7002, emu://sign)")
    p.add_argument("--rounds", type=int, default=30, help="rounds to play (default 30)")
    p.add_argument("--jackpot-round", type=int, default=20, help="round where seat 1 hits the top award")
    p.add_argument("--interval", type=float, default=0.5, help="seconds between rounds (default 0.5)")
    p.add_argument("--seed", type=int, default=1, help="random seed of the seats' wagers and prizes")
    p.set_defaults(handler=_simulate)


def table_params(table: str) -> tuple[str, ProgressiveParams]:
    """The table id and its progressive; a table without a ``[progressive]`` section gets the demo
    parameters (say so on stderr) with its pay table's awards."""
    config = load_table(table)
    params = params_from_table(config)
    if params is None:
        paytable = config.rules.paytables.get("progressive")
        if paytable is None:
            raise ProgressiveCommandError(f"table {config.table_id} offers no progressive bet")
        limit = config.rules.limits.get("progressive")
        section = {**DEMO_SECTION, "wager": format_amount(limit.minimum if limit else 100)}
        params = params_from_section(
            section,
            str(config.path),
            paytable_awards=dict(paytable.pays),
            default_name=f"{config.table_id}-progressive",
        )
        print(
            f"note: {config.path} has no [progressive] section: using the demo parameters "
            f"(base {format_amount(params.rates.base)}, increment {section['increment']}%, "
            f"reserve {section['reserve']}%; see docs/progressive.md)",
            file=sys.stderr,
        )
    return config.table_id, params


def _open_log(path: str, *, create: bool = False) -> EventLog:
    from dealerassist.storage.eventlog import EventLog

    if create:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    elif not Path(path).is_file():
        raise ProgressiveCommandError(f"{path}: no event log there (give --db)")
    return EventLog(path)


def _db(args: argparse.Namespace, default: str | None = None) -> str:
    from dealerassist.storage.eventlog import default_db

    return str(args.db or default or default_db())


@contextmanager
def _controller(
    args: argparse.Namespace, *, create: bool = False, default_db: str | None = None
) -> Iterator[ProgressiveController]:
    """The table's controller on its log; stopped and the log closed however the command ends (a
    refused confirmation included), so a linked meter's connections do not outlive the command."""
    from dealerassist.progressive.controller import ProgressiveController, checkpoint_name

    table, params = table_params(args.table)
    with _open_log(_db(args, default_db), create=create) as log:
        resume = log.checkpoint.resume(checkpoint_name(table)) if log.checkpoint else None
        controller = ProgressiveController(table, params, log, resume=resume)
        try:
            yield controller
        finally:
            controller.stop()


class _LookOnly:
    """An event log seen without touching it: what the controller would write (finishing work a
    crash left, recording its parameters) stays in memory, so ``status`` leaves the tamper-evident
    log exactly as it found it."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        self.pending: list[LogRecord] = []

    def records(self, after: int = 0, table: str | None = None) -> Iterator[LogRecord]:
        yield from self.log.records(after=after, table=table)
        for record in self.pending:
            if record.seq > after and (table is None or getattr(record.event, "table", None) == table):
                yield record

    def append_many(self, events: Sequence[Event]) -> list[LogRecord]:
        from dealerassist.storage.eventlog import LogRecord

        start = (self.pending[-1].seq if self.pending else self.log.last_seq()) + 1
        made = [LogRecord(start + i, "", event, "", "") for i, event in enumerate(events)]
        self.pending.extend(made)
        return made


def _status(args: argparse.Namespace) -> int:
    from dealerassist.progressive.controller import ProgressiveController
    from dealerassist.storage.eventlog import EventLog

    table, params = table_params(args.table)
    path = _db(args)
    if not Path(path).is_file():
        raise ProgressiveCommandError(f"{path}: no event log there (give --db)")
    with EventLog(path, readonly=True) as log:
        controller = ProgressiveController(table, params, _LookOnly(log))
        try:
            state = controller.state()
        finally:
            controller.stop()
    if args.json:
        print(json.dumps(state, sort_keys=True))
        return 0
    m = state["meters"]
    print(f"progressive {state['name']} at table {state['table']}: {state['status'].upper()}")
    print(f"  meter    {format_amount(state['amount'])}")
    print(f"  reserve  {format_amount(state['reserve'])}   overflow {format_amount(state['overflow'])}")
    print(f"  qualifying wagers {m['qualifying_wagers']} ({format_amount(m['handle'])})")
    print(f"  hits {m['hits']}, total won {format_amount(m['total_won'])}")
    if state["fault"]:
        print(f"  FAULT: {state['fault']} ({state['fault_detail']})")
    for hit_id in state["pending"]:
        print(
            f"  waiting for a supervisor: dealerassist progressive confirm {hit_id} --table {args.table} ..."
        )
    for hit in state["hits"]:
        award = f"{hit['hand']} ({hit['award']})"
        print(f"  hit {hit['hit_id']}: seat {hit['seat']} {award} {format_amount(hit['amount'])}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from dealerassist.progressive.report import reconcile

    table, params = table_params(args.table)
    sign_amount = None
    if args.sign_amount is not None:
        try:
            sign_amount = parse_amount(args.sign_amount)
        except MoneyError as exc:
            raise ProgressiveCommandError(f"--sign-amount: {exc}") from None
    if params.link:
        from dealerassist.progressive.linked import LinkedStore

        store = LinkedStore(params.link, table, params)
        try:
            row, _ = store.snapshot()
            rec = reconcile(
                ((None, e) for e in store.ledger()), params.name, controller=row, sign_amount=sign_amount
            )
        finally:
            store.close()
    else:
        with _open_log(_db(args)) as log:
            pairs = ((r.seq, r.event) for r in log.records(table=table))
            rec = reconcile(pairs, params.name, sign_amount=sign_amount)
    if args.json:
        print(json.dumps(rec.to_dict(), sort_keys=True))
    else:
        print("\n".join(rec.lines()))
    return 0 if rec.ok else 1


def _confirm(args: argparse.Namespace) -> int:
    with _controller(args) as controller:
        paid = controller.confirm(args.hit_id, args.user, args.role)
        state = controller.state()
    print(f"confirmed: jackpot {paid.hit_id} of {format_amount(paid.paid)} paid (by {paid.user})")
    print(f"meter now {format_amount(state['amount'])}, {state['status']}")
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from dealerassist.progressive.sign import SignFeed

    sign = None
    try:
        with _controller(args, create=True, default_db=SIM_DB) as controller:
            if args.sign:
                from firmware_bridge.sign import JackpotSign

                sign = JackpotSign(args.sign, table=controller.table)
                sign.start()
                controller.subscribe(SignFeed(sign))
            _play(args, controller)
    finally:
        if sign is not None:
            sign.stop()
    return 0


def _play(args: argparse.Namespace, controller: ProgressiveController) -> None:
    """Play ``--rounds`` synthetic rounds, waiting for a supervisor after every jackpot."""
    from dealerassist.progressive.simulate import SimulatedTable

    controller.start()
    sim = SimulatedTable(controller.table, controller.params_in_force, controller, seed=args.seed)
    db = _db(args, SIM_DB)

    def emit(events: list[Any]) -> None:
        for record in controller.log.append_many(events):
            controller.on_record(record)

    first = sim.round_id + 1
    for round_id in range(first, first + args.rounds):
        if controller.meter.locked:
            _wait_for_confirmation(controller, args.table, db)
        jackpot = 1 if round_id - first + 1 == args.jackpot_round else None
        sim.play_round(emit, jackpot_seat=jackpot)
        state = controller.state()
        print(f"round {round_id}: meter {format_amount(state['amount'])} {state['status']}", flush=True)
        time.sleep(args.interval)
    if controller.meter.locked:
        _wait_for_confirmation(controller, args.table, db)
    time.sleep(0.5)


def _wait_for_confirmation(controller: ProgressiveController, table: str, db: str) -> None:
    for hit_id in controller.meter.pending:
        print(
            f"JACKPOT {hit_id}: the meter is locked. As supervisor, in another terminal:\n"
            f"  dealerassist progressive confirm {hit_id} --table {table} --db {db} "
            "--user NAME --role supervisor",
            flush=True,
        )
    while controller.meter.locked:
        time.sleep(0.2)
        controller.refresh()
    print(f"confirmed: meter reset to {format_amount(controller.state()['amount'])}", flush=True)
