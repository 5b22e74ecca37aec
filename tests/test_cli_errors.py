"""Every bad input an operator is likely to give the finished commands ends in a clean message.

Each case runs ``dealerassist.cli.main`` in-process and asserts a non-zero exit, a message that
names the problem, and no Python traceback. The inputs are the ones tried by hand in acceptance
testing: unknown games and bets, broken replay files, missing, foreign and tampered event logs,
paths that cannot be written, and table and pay-table files broken in the usual ways.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from dealerassist.cli import build_parser, main
from dealerassist.core.configfiles import bundled_dir
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles import paytables
from dealerassist.tracker.replay import Replayer, read_replay_file

ROUNDS = Path(__file__).resolve().parents[1] / "tests" / "rounds"
TCP_TABLE = bundled_dir() / "tables" / "three-card-poker.toml"
TCP_PAYTABLES = bundled_dir() / "paytables" / "three-card-poker.toml"
META = json.dumps({"kind": "meta", "table": "tcp-1", "data": {"table_file": str(TCP_TABLE)}})
OPEN = '{"kind":"round-open","table":"tcp-1"}'


@dataclass(frozen=True)
class Case:
    """One bad invocation: files to lay out first, the arguments, words the message must hold."""

    name: str
    argv: tuple[str, ...]
    says: tuple[str, ...]
    files: tuple[tuple[str, str | bytes], ...] = ()


def _table(old: str, new: str) -> str:
    text = TCP_TABLE.read_text(encoding="utf-8")
    assert old in text, old
    return text.replace(old, new, 1)


def _replay(*lines: str) -> str:
    return "\n".join(lines) + "\n"


CASES = [
    # cards
    Case("card-rank", ("cards", "Zz"), ("'Zz'", "unknown rank", "ranks:")),
    Case("card-suit", ("cards", "Ax"), ("'Ax'", "unknown suit", "suits:")),
    Case("card-empty", ("cards", ""), ("cannot read card", "like 'AS'")),
    # analyze
    Case("analyze-game", ("analyze", "three-card-pokr"), ("no analysis for game", "three-card-poker")),
    Case(
        "analyze-bet", ("analyze", "three-card-poker", "--bet", "nope"), ("no analysis for bet", "pair-plus")
    ),
    Case(
        "analyze-paytable",
        ("analyze", "three-card-poker", "--paytable", "nope", "--bet", "pair-plus"),
        ("nope", "no such pay table", "pair-plus-1-3-6-30-40"),
    ),
    Case(
        "analyze-paytable-other-bet",
        ("analyze", "three-card-poker", "--paytable", "ante-bonus-1-4-5", "--bet", "pair-plus"),
        ("pays the 'ante-bonus' bet", "drop --bet"),
    ),
    Case(
        "analyze-decks-not-a-shoe",
        ("analyze", "three-card-poker", "--decks", "6", "--bet", "pair-plus"),
        ("--decks does not apply", "perfect-pairs-blackjack"),
    ),
    Case("analyze-decks-zero", ("analyze", "perfect-pairs-blackjack", "--decks", "0"), ("at least 1",)),
    Case("analyze-decks-text", ("analyze", "perfect-pairs-blackjack", "--decks", "x"), ("invalid int",)),
    # replay
    Case("replay-missing", ("replay", "nope.jsonl"), ("nope.jsonl", "no such replay file")),
    Case(
        "replay-table-not-toml",
        ("replay", "empty.jsonl", "--table", "t.png"),
        ("t.png", "not a table file", ".toml"),
        (("t.png", "a photo, not a table"),),
    ),
    Case(
        "replay-not-json",
        ("replay", "r.jsonl"),
        ("r.jsonl:2", "not a JSON line"),
        (("r.jsonl", _replay(META, "{not json")),),
    ),
    Case("replay-array", ("replay", "r.jsonl"), ("r.jsonl:1", "JSON object"), (("r.jsonl", "[1, 2]\n"),)),
    Case("replay-binary", ("replay", "r.jsonl"), ("not UTF-8",), (("r.jsonl", b"\xff\xfe\x00"),)),
    Case(
        "replay-unknown-kind",
        ("replay", "r.jsonl"),
        ("line 2", "dance", "not an input", "FAILED"),
        (("r.jsonl", _replay(META, '{"kind":"dance","table":"tcp-1"}')),),
    ),
    Case(
        "replay-kind-not-text",
        ("replay", "r.jsonl"),
        ("line 2", "kind: must be text", "FAILED"),
        (("r.jsonl", _replay(META, '{"kind":{"a":1},"table":"tcp-1"}')),),
    ),
    Case(
        "replay-missing-field",
        ("replay", "r.jsonl"),
        ("line 3", "wager.amount: missing", "FAILED"),
        (
            (
                "r.jsonl",
                _replay(META, OPEN, '{"kind":"wager","table":"tcp-1","seat":1,"bet":"ante","user":"d"}'),
            ),
        ),
    ),
    Case(
        "replay-impossible-card",
        ("replay", "r.jsonl"),
        ("line 3", "cannot read card 'ZZ'", "FAILED"),
        (
            (
                "r.jsonl",
                _replay(META, OPEN, '{"kind":"card-read","table":"tcp-1","card":"ZZ","source":"shoe"}'),
            ),
        ),
    ),
    Case(
        "replay-wrong-phase",
        ("replay", "r.jsonl"),
        ("line 2", "no round is open", "no-round-open", "FAILED"),
        (("r.jsonl", _replay(META, '{"kind":"card-read","table":"tcp-1","card":"AS","source":"shoe"}')),),
    ),
    Case(
        "replay-no-table-config",
        ("replay", "r.jsonl"),
        ("zz-9", "no configuration", "table_file"),
        (("r.jsonl", '{"kind":"round-open","table":"zz-9"}\n'),),
    ),
    Case(
        "replay-bad-expect",
        ("replay", "r.jsonl"),
        ("expect.round_id", "whole number"),
        (("r.jsonl", _replay(META, '{"kind":"meta","table":"tcp-1","data":{"expect":{"round_id":"x"}}}')),),
    ),
    Case(
        "replay-bad-expect-results",
        ("replay", "r.jsonl"),
        ("expect.results", "object"),
        (("r.jsonl", _replay(META, '{"kind":"meta","table":"tcp-1","data":{"expect":{"results":[1]}}}')),),
    ),
    Case(
        "replay-recorded-without-round",
        ("replay", "r.jsonl"),
        ("round-settled.round_id: missing", "FAILED"),
        (("r.jsonl", '{"seq":1,"event":{"kind":"round-settled","table":"tcp-1"}}\n'),),
    ),
    Case(
        "replay-broken-table-config-record",
        ("replay", "r.jsonl"),
        ("table-config", "config.table_id", "missing"),
        (("r.jsonl", '{"seq":1,"event":{"kind":"table-config","table":"tcp-1","config":{"game":"x"}}}\n'),),
    ),
    Case(
        "replay-table-file-missing",
        ("replay", "r.jsonl"),
        ("nope.toml", "no such table file"),
        (("r.jsonl", _replay('{"kind":"meta","table":"tcp-1","data":{"table_file":"nope.toml"}}', OPEN)),),
    ),
    # table files, through replay --table
    *(
        Case(f"table-{name}", ("replay", "empty.jsonl", "--table", "t.toml"), says, (("t.toml", body),))
        for name, body, says in [
            ("key-typo", _table("exposure_policy =", "exposure_polcy ="), ("t.toml", "table.exposure_polcy")),
            ("seats-typo", _table("seats =", "seat ="), ("t.toml", "table.seat", "unknown key")),
            (
                "chip-float",
                _table('chip = "1.00"', "chip = 1.00"),
                ("t.toml", "table.chip", "dollars as text"),
            ),
            (
                "limit-float",
                _table('min = "5", max = "500"', 'min = 5.5, max = "500"'),
                ("t.toml", "limits.ante.min", "dollars as text"),
            ),
            (
                "limit-key-typo",
                _table('min = "5", max = "500"', 'min = "5", mx = "500"'),
                ("t.toml", "limits.ante.mx", "unknown key"),
            ),
            (
                "min-above-max",
                _table('min = "5", max = "500"', 'min = "500", max = "5"'),
                ("t.toml", "limits.ante", "min <= max", "$500.00"),
            ),
            (
                "unknown-game",
                _table('game = "three-card-poker"', 'game = "tcp"'),
                ("t.toml", "table.game", "'tcp'"),
            ),
            (
                "unknown-paytable",
                _table('pair-plus = "pair-plus-1-3-6-30-40"', 'pair-plus = "pp-9"'),
                ("t.toml", "paytables.pair-plus", "'pp-9'"),
            ),
            ("unknown-bet", _table("ante = {", "antee = {"), ("t.toml", "limits.antee", "no bet")),
            (
                "unknown-deck",
                _table('deck = "standard-52"', 'deck = "std"'),
                ("t.toml", "table.deck", "no such deck file (known: pairs-and-up-52, shoe-6, standard-52"),
            ),
            (
                "bad-option",
                _table('deal_order = "packets"', 'deal_order = "pockets"'),
                ("t.toml", "options", "deal_order", "'pockets'"),
            ),
            ("section-typo", _table("[limits]", "[limit]"), ("t.toml", "limit", "unknown section")),
            ("not-toml", "[table\nid=", ("t.toml", "not valid TOML")),
            ("not-utf8", b"\xff\xfe[table]", ("t.toml", "not UTF-8")),
        ]
    ),
    Case(
        "deck-key-typo",
        ("replay", "empty.jsonl", "--table", "t.toml"),
        ("table.deck", "joker", "unknown key"),
        (
            ("t.toml", _table('deck = "standard-52"', 'deck = "d.toml"')),
            ("d.toml", 'name = "d"\nstandard_decks = 1\njoker = 1\n'),
        ),
    ),
    # export and audit
    Case("export-bad-from", ("export", "--db", "good.db", "--from", "yesterday"), ("--from", "ISO-8601")),
    Case("export-bad-date", ("export", "--db", "good.db", "--to", "2026-13-45"), ("--to", "ISO-8601")),
    Case(
        "export-window-backwards",
        ("export", "--db", "good.db", "--from", "2027-01-01", "--to", "2026-01-01"),
        ("is not before --to",),
    ),
    Case("export-missing-db", ("export", "--db", "missing.db"), ("missing.db", "no such event log", "--db")),
    Case("export-not-sqlite", ("export", "--db", "foreign.db"), ("foreign.db", "not an SQLite database")),
    Case(
        "export-unwritable-output",
        ("export", "--db", "good.db", "-o", "no/such/dir/x.jsonl"),
        ("--output", "cannot write"),
    ),
    Case("export-unknown-table", ("export", "--db", "good.db", "--table", "t9"), ("t9", "tables: tcp-1")),
    Case("audit-rounds-unknown-table", ("audit", "rounds", "--db", "good.db", "--table", "x"), ("tcp-1",)),
    Case("audit-missing-db", ("audit", "verify", "--db", "missing.db"), ("no such event log",)),
    Case("audit-not-sqlite", ("audit", "verify", "--db", "foreign.db"), ("not an SQLite database",)),
    Case("audit-tampered-body", ("audit", "verify", "--db", "body.db"), ("TAMPERED", "content was changed")),
    Case("audit-deleted-record", ("audit", "verify", "--db", "gap.db"), ("TAMPERED", "record 10 is missing")),
    Case("audit-truncated", ("audit", "verify", "--db", "short.db"), ("TAMPERED", "truncated")),
    Case("audit-rounds-not-sqlite", ("audit", "rounds", "--db", "foreign.db"), ("not an SQLite database",)),
    Case("audit-export-missing", ("audit", "verify-export", "nope.jsonl"), ("no such export file",)),
    # backup
    Case(
        "backup-missing-db",
        ("backup", "--db", "missing.db", "--out", "bk"),
        ("missing.db", "no such database"),
    ),
    Case(
        "backup-not-sqlite", ("backup", "--db", "foreign.db", "--out", "bk"), ("foreign.db", "backup failed")
    ),
    Case("backup-out-is-file", ("backup", "--db", "good.db", "--out", "good.db"), ("--out", "is a file")),
    Case("backup-no-dir", ("backup", "--data-dir", "nodir", "--out", "bk"), ("nodir", "no such folder")),
    Case(
        "backup-dir-with-foreign-file",
        ("backup", "--data-dir", "logs", "--out", "bk"),
        ("logs/b.sqlite3", "1 of 2 logs not backed up"),
    ),
    Case("backup-no-source", ("backup", "--out", "bk"), ("--db", "--data-dir", "required")),
    # bench
    Case("bench-unknown", ("bench", "nope"), ("no benchmark 'nope'", "available")),
    Case("bench-analyze-unknown", ("bench", "analyze", "--only", "nope:x"), ("no analysis 'nope:x'",)),
    # the command line itself
    Case("no-such-command", ("shuffle",), ("invalid choice", "shuffle")),
]


@pytest.fixture(scope="module")
def good_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real event log: the hand-written Three Card Poker rounds run through a tracker."""
    path = tmp_path_factory.mktemp("log") / "good.db"
    source = ROUNDS / "three-card-poker.jsonl"
    with EventLog(path) as log:
        Replayer(base_dir=source.parent, log=log).run(read_replay_file(source))
    return path


def _tampered(good: Path, target: Path, sql: str) -> None:
    shutil.copy(good, target)
    with sqlite3.connect(target) as db:
        db.execute(sql)
    db.close()


@pytest.fixture
def workdir(tmp_path: Path, good_db: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding a good, a foreign and three tampered logs; the tests run inside it."""
    shutil.copy(good_db, tmp_path / "good.db")
    (tmp_path / "foreign.db").write_text("a shift report, not a database\n", encoding="utf-8")
    _tampered(good_db, tmp_path / "body.db", "UPDATE events SET body = replace(body, '1000', '9000')")
    _tampered(good_db, tmp_path / "gap.db", "DELETE FROM events WHERE seq = 10")
    _tampered(good_db, tmp_path / "short.db", "DELETE FROM events WHERE seq = (SELECT max(seq) FROM events)")
    (tmp_path / "logs").mkdir()
    shutil.copy(good_db, tmp_path / "logs" / "a.sqlite3")
    (tmp_path / "logs" / "b.sqlite3").write_text("not a database\n", encoding="utf-8")
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(argv: tuple[str, ...] | list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _lay_out(folder: Path, files: tuple[tuple[str, str | bytes], ...]) -> None:
    for name, body in files:
        if isinstance(body, bytes):
            (folder / name).write_bytes(body)
        else:
            (folder / name).write_text(body, encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_is_a_clean_error(case: Case, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _lay_out(workdir, case.files)
    code, output = _run(case.argv, capsys)
    assert code != 0, output
    assert "Traceback" not in output
    for words in case.says:
        assert words in output, f"{words!r} not in {output!r}"


@pytest.fixture
def broken_paytables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """A site configuration folder ($DEALERASSIST_CONFIG) whose Three Card Poker pay tables the test
    breaks: it is looked in before the bundled files."""
    folder = tmp_path / "site" / "paytables"
    folder.mkdir(parents=True)
    monkeypatch.setenv("DEALERASSIST_CONFIG", str(folder.parent))
    paytables.load_paytables.cache_clear()

    def write(body: str) -> None:
        (folder / TCP_PAYTABLES.name).write_text(body, encoding="utf-8")

    yield write
    paytables.load_paytables.cache_clear()


def _paytables(old: str, new: str) -> str:
    text = TCP_PAYTABLES.read_text(encoding="utf-8")
    assert old in text, old
    return text.replace(old, new, 1)


PAYTABLE_CASES = [
    ("award-float", _paytables('flush = "3 to 1"', "flush = 3.5"), ("pays.flush", "3.5")),
    ("award-words", _paytables('flush = "3 to 1"', 'flush = "3 to one"'), ("pays.flush", "cannot read odds")),
    ("class-typo", _paytables('flush = "3 to 1"', 'flussh = "3 to 1"'), ("pays.flussh", "never be paid")),
    ("key-typo", _paytables('bet = "pair-plus"', 'bett = "pair-plus"'), (".bett", "unknown key")),
    ("unknown-bet", _paytables('bet = "pair-plus"', 'bet = "pare-plus"'), (".bet", "no bet 'pare-plus'")),
    ("unknown-game", _paytables('game = "three-card-poker"', 'game = "tcp"'), ("game", "unknown game 'tcp'")),
    (
        "unknown-default",
        _paytables('pair-plus = "pair-plus-1-3-6-30-40"', 'pair-plus = "pp-9"'),
        ("defaults.pair-plus", "'pp-9'"),
    ),
    ("not-toml", "game = \n", ("not valid TOML",)),
]


@pytest.mark.parametrize("name, body, says", PAYTABLE_CASES, ids=[c[0] for c in PAYTABLE_CASES])
def test_broken_paytable_file_is_named(
    name: str,
    body: str,
    says: tuple[str, ...],
    broken_paytables: Callable[[str], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    broken_paytables(body)
    code, output = _run(["analyze", "three-card-poker", "--bet", "pair-plus"], capsys)
    assert code != 0 and "Traceback" not in output, output
    assert TCP_PAYTABLES.name in output
    for words in says:
        assert words in output, f"{words!r} not in {output!r}"


def _command_paths(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> Iterator[tuple[str, ...]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield (*prefix, name)
                yield from _command_paths(child, (*prefix, name))


COMMANDS = sorted(set(_command_paths(build_parser())))


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_every_command_has_help(path: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    code, output = _run([*path, "--help"], capsys)
    assert code == 0 and output.startswith("usage: dealerassist " + " ".join(path)), output


def test_the_shipped_config_files_load_cleanly(capsys: pytest.CaptureFixture[str]) -> None:
    """The examples the operator copies load; the example table replays an empty file with them."""
    for table in sorted((bundled_dir() / "tables").glob("*.toml")):
        code, output = _run(["replay", str(ROUNDS / "three-card-poker.jsonl"), "--table", str(table)], capsys)
        assert code == 0, output


ANALYSED_GAMES = (
    "three-card-poker",
    "four-card-poker",
    "face-up-pai-gow",
    "perfect-pairs-blackjack",
    "pairs-and-up",
)


@pytest.mark.slow
@pytest.mark.parametrize("game", ANALYSED_GAMES)
def test_analyze_json_is_one_object_of_the_documented_shape(
    game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``analyze GAME --json``: standard output is exactly one JSON object, as ``--help`` describes."""
    assert main(["analyze", game, "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert out.count("\n") == 1 and set(data) == {"game", "paytable", "bets"} and data["game"] == game
    assert data["bets"] and data["paytable"]
    for bet in data["bets"].values():
        assert {"house_edge", "hit_frequency", "combinations", "total"} <= set(bet)  # a bet may add its own
        assert sum(bet["combinations"].values()) == bet["total"] > 0
        assert -1.0 < bet["house_edge"] < 1.0 and 0.0 < bet["hit_frequency"] <= 1.0


def test_a_broken_pipe_that_is_not_stdout_is_not_hidden(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Only a closed stdout ends quietly (``vision read | head``); a socket or serial peer that
    went away while stdout is fine is an error the operator must see."""
    parser = argparse.ArgumentParser(prog="dealerassist")

    def peer_gone(_args: argparse.Namespace) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    parser.set_defaults(handler=peer_gone)
    monkeypatch.setattr("dealerassist.cli.build_parser", lambda: parser)
    with pytest.raises(BrokenPipeError):
        main([])
