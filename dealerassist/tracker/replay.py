"""Run a recorded or hand-written round file through fresh trackers on an in-memory log.

A replay file is JSON Lines. Each line is either an event (``{"kind": "wager", ...}``) or an
exported record (``{"seq": ..., "event": {...}}``, as ``dealerassist export`` writes). Inputs are
handed to the table's tracker, and so are the inputs kept in recorded ``refused`` records (they
must be refused again). Recorded outputs are compared with what the replay produces, so an
exported round that does not settle the same way again is reported. ``meta`` lines name a table's
configuration (``table_file`` or an inline ``table_config``) and may state what a round must come
to (``expect``); see ``docs/events.md``.

In a hand-written file every refusal must be one the file states (its rule in the round's
``expect.refused``): any other refusal is a broken line (a typo, a missing field, an impossible card,
an input in the wrong phase) and fails the replay, so a file cannot pass while its rounds silently
lost an input.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealerassist.core.decks import load_deck
from dealerassist.errors import ConfigError, DealerAssistError, RuleViolation
from dealerassist.events import Event, EventError
from dealerassist.games.base import BetLimit, TableRules
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker.engine import refusal
from dealerassist.tracker.events import INPUT_KINDS, Refused
from dealerassist.tracker.pit import Pit
from dealerassist.tracker.tracker import Tracker

COMPARED_KINDS = ("round-settled", "round-voided")


@dataclass
class ReplayLine:
    number: int
    data: dict[str, Any]
    recorded: bool


@dataclass
class Check:
    line: int
    ok: bool
    message: str


@dataclass
class Refusal:
    """A refused line: the ``refused`` record a tracker writes for it (``rule``, ``field``,
    ``input``, ``round_id``), and whether the file declares it (its rule in the round's
    ``expect.refused``, or a recorded refusal replayed)."""

    line: int
    record: Refused
    declared: bool = False

    @property
    def message(self) -> str:
        return f"{self.record.input_kind}: {self.record.message}"


@dataclass
class ReplayReport:
    outputs: list[tuple[int, Event]] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    snapshots: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    def settlements(self) -> dict[tuple[str, int], dict[str, Any]]:
        """The last settlement or void of each round, as plain data."""
        found: dict[tuple[str, int], dict[str, Any]] = {}
        for _, event in self.outputs:
            if event.kind in COMPARED_KINDS:
                data = event.to_dict()
                found[(event.table, data["round_id"])] = data
        return found


def read_replay_file(path: str | Path) -> list[ReplayLine]:
    """Parse every line first, so a malformed file is reported (with its line) before anything runs."""
    lines = []
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise EventError(f"{path}: not UTF-8 text (byte {exc.start}): a replay file is JSON Lines") from None
    except OSError as exc:
        raise EventError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise EventError(f"{path}:{number}: not a JSON line ({exc.args[0]})") from None
        if not isinstance(data, dict):
            raise EventError(f"{path}:{number}: a line must be a JSON object")
        recorded = "event" in data and "seq" in data
        event = data["event"] if recorded else data
        if not isinstance(event, dict):
            raise EventError(f"{path}:{number}: event: must be a JSON object")
        lines.append(ReplayLine(number, event, recorded))
    return lines


def rules_from_description(config: Mapping[str, Any]) -> TableRules:
    """Rebuild ``TableRules`` from a ``table-config`` record written by a tracker."""
    from dealerassist.tablefiles.paytables import load_paytables

    game = str(config["game"])
    named = dict(config.get("paytables", {}))
    paytables: dict[str, Any] = {}
    if named:
        shipped = load_paytables(game)
        paytables = {bet: shipped.tables[name] for bet, name in named.items()}
    return TableRules(
        table_id=str(config["table_id"]),
        game=game,
        seats=int(config["seats"]),
        deck=load_deck(str(config["deck"])),
        chip=int(config["chip"]),
        limits={bet: BetLimit(int(low), int(high)) for bet, (low, high) in config.get("limits", {}).items()},
        paytables=paytables,
        options=dict(config.get("options", {})),
        exposure_policy=config.get("exposure_policy", "void"),
    )


class Replayer:
    """Feeds replay lines to a ``Pit`` whose tables are set up from the file or given by the caller."""

    def __init__(
        self,
        tables: Mapping[str, Any] | None = None,
        base_dir: Path | None = None,
        log: EventLog | None = None,
    ) -> None:
        self.owns_log = log is None
        self.log = log or EventLog(":memory:")
        self.pit = Pit(self.log)
        self.known = dict(tables or {})
        self.base_dir = base_dir or Path.cwd()
        self.report = ReplayReport()
        self.recorded: dict[tuple[str, int], dict[str, Any]] = {}

    def run(self, lines: Iterable[ReplayLine]) -> ReplayReport:
        for line in lines:
            self.feed(line)
        self._compare_recorded()
        self.report.checks += [
            Check(
                r.line,
                False,
                f"refused with rule {r.record.rule!r} and no expectation states it: correct the line, "
                "or list the rule in its round's expect.refused",
            )
            for r in self.report.refused
            if not r.declared
        ]
        for table in self.pit.tables():
            self.report.snapshots[table] = self.pit.tracker(table).snapshot()
        if self.owns_log:
            self.log.close()
        return self.report

    def feed(self, line: ReplayLine) -> None:
        data = line.data
        kind = data.get("kind")
        table = data.get("table")
        if not isinstance(kind, str):
            self._refuse(line, EventError(f"kind: must be text, got {kind!r}"))
            return
        if kind == "table-config" and line.recorded and isinstance(table, str):
            try:
                self.known.setdefault(table, _config_from_record(data))
            except DealerAssistError as exc:
                self._refuse(line, EventError(f"table-config: {exc}"))
            return
        stated = line.recorded
        if kind == "refused" and line.recorded and isinstance(data.get("input"), dict):
            line = ReplayLine(line.number, {"table": table, **data["input"]}, recorded=False)
            data, kind = line.data, line.data.get("kind")
        if kind == "meta" and isinstance(data.get("data"), dict):
            self._meta(line, data["data"], table)
        if kind not in INPUT_KINDS:
            if line.recorded and kind in COMPARED_KINDS:
                round_id = data.get("round_id")
                if isinstance(round_id, int) and not isinstance(round_id, bool):
                    self.recorded[(str(table), round_id)] = data
                else:
                    self._refuse(line, EventError(f"{kind}.round_id: missing"))
            elif not line.recorded:
                self._refuse(
                    line, RuleViolation("not-an-input", "not an input (outputs come from the tracker)")
                )
            return
        if not isinstance(table, str):
            self._refuse(line, EventError(f"{kind}.table: missing"))
            return
        try:
            tracker = self._tracker(table)
            outputs = tracker.handle_data(data)
        except DealerAssistError as exc:
            live = self.pit.tracker(table).engine.round_id if table in self.pit.tables() else 0
            record = refusal(table, str(kind), data, exc, live or None)
            self.report.refused.append(Refusal(line.number, record, declared=stated))
            return
        self.report.outputs += [(line.number, event) for event in outputs]

    def _refuse(self, line: ReplayLine, exc: DealerAssistError) -> None:
        """A line that never reached a tracker: reported, and failing unless stated."""
        kind, table = line.data.get("kind"), line.data.get("table")
        record = refusal(
            table if isinstance(table, str) else "",
            kind if isinstance(kind, str) and kind else "?",
            line.data,
            exc,
            None,
        )
        self.report.refused.append(Refusal(line.number, record))

    def _tracker(self, table: str) -> Tracker:
        if table not in self.pit.tables():
            if table not in self.known:
                raise ConfigError(
                    table, "table", "no configuration: add a meta line with table_file or --table"
                )
            self.pit.add_table(self.known[table])
        return self.pit.tracker(table)

    def _meta(self, line: ReplayLine, meta: Mapping[str, Any], table: Any) -> None:
        if isinstance(table, str) and table not in self.known:
            if "table_file" in meta:
                self.known[table] = self._load_table_file(str(meta["table_file"]))
            elif isinstance(meta.get("table_config"), Mapping):
                from dealerassist.tablefiles.tables import table_from_mapping

                self.known[table] = table_from_mapping(meta["table_config"], f"line {line.number}")
        if isinstance(meta.get("expect"), Mapping):
            self.report.checks.append(self._expect(line.number, str(table), meta["expect"]))

    def _load_table_file(self, name: str) -> Any:
        from dealerassist.tablefiles.tables import load_table

        for base in (self.base_dir, Path.cwd()):
            candidate = base / name
            if candidate.is_file():
                return load_table(candidate)
        return load_table(name)

    def _expect(self, number: int, table: str, expect: Mapping[str, Any]) -> Check:
        shape = _expect_shape_problem(expect)
        if shape:
            return Check(number, False, f"{table}: expect.{shape}")
        round_id = expect.get("round_id", 0)
        outputs = [e.to_dict() for _, e in self.report.outputs if e.table == table]
        mine = [o for o in outputs if o.get("round_id") == round_id]
        problems = []
        ended = [o for o in mine if o["kind"] in COMPARED_KINDS]
        outcome = (
            {"round-settled": "settled", "round-voided": "voided"}[ended[-1]["kind"]] if ended else "open"
        )
        if "outcome" in expect and expect["outcome"] != outcome:
            problems.append(f"outcome {outcome}, expected {expect['outcome']}")
        if "results" in expect:
            problems += _compare_results(expect["results"], ended[-1]["results"] if ended else [])
        if "alarms" in expect:
            codes = sorted(o["code"] for o in mine if o["kind"] == "alarm")
            if codes != sorted(expect["alarms"]):
                problems.append(f"alarms {codes}, expected {sorted(expect['alarms'])}")
        if "refused" in expect:
            refusals = [r.event.to_dict() for r in self.log.records(table=table) if r.event.kind == "refused"]
            rules = [r["rule"] for r in refusals if r.get("round_id") == round_id]
            if sorted(rules) != sorted(expect["refused"]):
                problems.append(f"refusals {sorted(rules)}, expected {sorted(expect['refused'])}")
            self._state_refusals(table, round_id, list(expect["refused"]))
        layout = self.pit.tracker(table).snapshot()["positions"] if table in self.pit.tables() else {}
        dealt = {position: [c["card"] for c in cards] for position, cards in layout.items()}
        for position, cards in dict(expect.get("dealt", {})).items():
            if dealt.get(position, []) != list(cards):
                problems.append(f"{position} was dealt {dealt.get(position, [])}, expected {list(cards)}")
        for position, name in dict(expect.get("hands", {})).items():
            got = ended[-1].get("hands", {}).get(position) if ended else None
            if got != name:
                problems.append(f"hand at {position} is {got!r}, expected {name!r}")
        for position, setting in dict(expect.get("settings", {})).items():
            got = ended[-1].get("settings", {}).get(position) if ended else None
            if got != setting:
                problems.append(f"{position} was set {got!r}, expected {setting!r}")
        where = f"{table} round {round_id}"
        return Check(
            number, not problems, f"{where}: " + ("; ".join(problems) if problems else "as expected")
        )

    def _state_refusals(self, table: str, round_id: int, rules: list[str]) -> None:
        """The refusals an expectation names are the file's intent, not broken lines."""
        for pending in self.report.refused:
            record = pending.record
            if pending.declared or record.table != table or record.round_id != round_id:
                continue
            if record.rule in rules:
                rules.remove(record.rule)
                pending.declared = True

    def _compare_recorded(self) -> None:
        replayed = self.report.settlements()
        for key, recorded in sorted(self.recorded.items()):
            again = replayed.get(key)
            same = again is not None and _comparable(again) == _comparable(recorded)
            message = f"{key[0]} round {key[1]}: " + (
                "settles as recorded" if same else "DIFFERS from the record"
            )
            self.report.checks.append(Check(0, same, message))


def _config_from_record(data: Mapping[str, Any]) -> Any:
    config = data.get("config", {})
    if not isinstance(config, Mapping):
        raise ConfigError("table-config record", "config", f"must be an object, got {config!r}")
    raw = config.get("raw")
    if isinstance(raw, Mapping):
        from dealerassist.tablefiles.tables import table_from_mapping

        return table_from_mapping(raw, str(data.get("source") or "exported table-config"))
    try:
        return rules_from_description(config)
    except KeyError as exc:
        raise ConfigError("table-config record", f"config.{exc.args[0]}", "missing") from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise ConfigError("table-config record", "config", f"cannot be read: {exc}") from None


_EXPECT_LISTS = ("results", "alarms", "refused")
_EXPECT_MAPPINGS = ("dealt", "hands", "settings")


def _expect_shape_problem(expect: Mapping[str, Any]) -> str:
    """What is wrong with an ``expect`` object's shape, or ``""``; checked before it is compared."""
    round_id = expect.get("round_id", 0)
    if not isinstance(round_id, int) or isinstance(round_id, bool):
        return f"round_id: must be a whole number, got {round_id!r}"
    for key in _EXPECT_LISTS:
        if key in expect and not isinstance(expect[key], list):
            return f"{key}: must be a list, got {expect[key]!r}"
    for item in expect.get("results", []):
        if not isinstance(item, Mapping):
            return f"results: each result must be an object like {{'seat': 1, 'bet': 'ante'}}, got {item!r}"
    for key in _EXPECT_MAPPINGS:
        if key in expect and not isinstance(expect[key], Mapping):
            return f"{key}: must be an object of position to value, got {expect[key]!r}"
    return ""


def _comparable(data: Mapping[str, Any]) -> tuple[str, Any, Any]:
    return data["kind"], data.get("results"), data.get("hands")


def _compare_results(expected: Iterable[Mapping[str, Any]], actual: list[dict[str, Any]]) -> list[str]:
    expected = list(expected)
    problems = []
    if len(expected) != len(actual):
        problems.append(f"{len(actual)} results, expected {len(expected)}")
    for want in expected:
        key = (want.get("seat"), want.get("bet"), want.get("position"))
        found = [r for r in actual if (r["seat"], r["bet"]) == key[:2] and key[2] in (None, r["position"])]
        if not found:
            problems.append(f"no result for seat {key[0]} bet {key[1]}")
            continue
        # A seat may hold several results of one bet (Envy, once per other hand): any one may match.
        best = next((r for r in found if all(r.get(k) == v for k, v in want.items())), found[0])
        wrong = {k: best.get(k) for k, v in want.items() if best.get(k) != v}
        if wrong:
            problems.append(f"seat {key[0]} {key[1]}: got {wrong}, expected { {k: want[k] for k in wrong} }")
    return problems
