"""Each game declares exactly the ``[options]`` names its code reads and its docstring documents.

``load_table`` refuses any option name a game does not declare, so a declaration that misses a name
would refuse a good table file, and a name read without being declared could never be set. The
source is read with ``ast``: every ``.option(...)`` call must name its option as a literal, so a new
option cannot be read without this test seeing it.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import dealerassist
from dealerassist.core.configfiles import bundled_dir
from dealerassist.core.tomlfile import read_toml
from dealerassist.errors import ConfigError, RuleViolation
from dealerassist.games import registry
from dealerassist.games.base import TABLE_OPTIONS, Game, TableRules
from dealerassist.games.option_values import fraction_of_one, yes_no
from dealerassist.tablefiles.tables import TRACKER_OPTION_CHECKS, table_from_mapping

PACKAGE = Path(dealerassist.__file__).parent
GAMES = {slug: game for slug, game in registry().items() if game.__module__.startswith("dealerassist.games.")}
DOCUMENTED = re.compile(r"^Options \(``\[options\]``[^)]*\):(.*?)(?:\n\n|\Z)", re.MULTILINE | re.DOTALL)
NAME = re.compile(r"``([a-z][a-z0-9_]*)``")


def option_reads(path: Path) -> Iterator[tuple[int, str | None]]:
    """``(line, name)`` of every ``<x>.option(...)`` call in a file; ``name`` is None when the
    option is not named by a literal string (which no check could then follow)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "option":
            first = node.args[0] if node.args else None
            literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
            yield node.lineno, first.value if literal else None  # type: ignore[union-attr]


def game_sources(game: type[Game]) -> set[Path]:
    """The game's module and every module its round class and that class's bases come from."""
    round_class = typing.get_type_hints(game.new_round)["return"]
    classes = [game, *inspect.getmro(round_class)]
    modules = {sys.modules[cls.__module__] for cls in classes if cls.__module__.startswith("dealerassist.")}
    return {Path(inspect.getfile(module)) for module in modules}


def names_read(paths: set[Path]) -> set[str]:
    names: set[str] = set()
    for path in sorted(paths):
        for line, name in option_reads(path):
            assert name is not None, f"{path}:{line}: read options by literal name so they can be declared"
            names.add(name)
    return names


def documented_options(game: type[Game]) -> set[str]:
    docstring = sys.modules[game.__module__].__doc__ or ""
    found = DOCUMENTED.search(docstring)
    assert found, f"{game.__module__} documents no 'Options (``[options]``): ...' paragraph"
    return set(NAME.findall(found.group(1)))


def shipped_table(slug: str) -> dict[str, Any]:
    return read_toml(bundled_dir() / "tables" / f"{slug}.toml")


@dataclasses.dataclass(frozen=True)
class RecordingRules(TableRules):
    """Table rules that note the default each option is read with."""

    defaults: dict[str, Any] = dataclasses.field(default_factory=dict)

    def option(self, name: str, default: Any) -> Any:
        self.defaults[name] = default
        return super().option(name, default)


def read_defaults(slug: str) -> dict[str, Any]:
    """The default of every option a fresh round reads, with no options set."""
    data = shipped_table(slug)
    data["options"] = {}
    plain = table_from_mapping(data, f"{slug}.toml").rules
    recording = RecordingRules(**{f.name: getattr(plain, f.name) for f in dataclasses.fields(plain)})
    GAMES[slug](recording).new_round()
    return recording.defaults


def test_every_shipped_game_is_checked() -> None:
    assert set(GAMES) == {p.stem for p in (bundled_dir() / "tables").glob("*.toml")}
    assert all(game.options for game in GAMES.values())


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_declared_options_are_exactly_those_the_game_reads(slug: str) -> None:
    game = GAMES[slug]
    assert names_read(game_sources(game)) == set(game.options)
    assert not set(game.options) & set(TABLE_OPTIONS), "a game redeclares a tracker option"


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_docstring_documents_exactly_the_declared_options(slug: str) -> None:
    assert documented_options(GAMES[slug]) == set(GAMES[slug].options)


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_every_documented_option_loads(slug: str) -> None:
    """Set alone in the shipped table (its shipped value, else the game's own default), each
    documented option loads and reaches the game unchanged."""
    shipped = shipped_table(slug).get("options", {})
    defaults = read_defaults(slug)
    for name in sorted(documented_options(GAMES[slug])):
        assert name in shipped or name in defaults, f"{name}: neither shipped nor read by a new round"
        value = shipped[name] if name in shipped else defaults[name]
        assert value is not None, f"{name}: TOML has no null; ship a value in the example table"
        data = shipped_table(slug)
        data["options"] = {name: value}
        assert table_from_mapping(data, f"{slug}.toml").rules.option(name, object()) == value


def test_tracker_options_are_what_the_rest_of_the_application_reads() -> None:
    """Outside the games every option read is the tracker's shared set or some game's own (the
    simulated dealer throws pai gow's ``dice``), and every shared option is read somewhere."""
    outside = {p for p in PACKAGE.rglob("*.py") if PACKAGE / "games" not in p.parents}
    read = names_read(outside)
    every_game_option = set().union(*(game.options for game in GAMES.values()))
    assert read <= set(TABLE_OPTIONS) | every_game_option
    assert set(TABLE_OPTIONS) <= read


def test_a_game_accepts_the_tracker_options() -> None:
    for game in GAMES.values():
        assert set(TABLE_OPTIONS) <= set(game.known_options())
        assert set(game.options) <= set(game.known_options())


def test_an_option_read_by_variable_is_caught(tmp_path: Path) -> None:
    source = tmp_path / "sneaky.py"
    source.write_text('def f(rules, name):\n    return rules.option(name, 1), rules.option("dice", 3)\n')
    assert list(option_reads(source)) == [(2, None), (2, "dice")]
    with pytest.raises(AssertionError, match="literal name"):
        names_read({source})


def test_a_quoted_yes_no_option_is_refused_not_taken_as_true() -> None:
    """``"false"`` in quotes is text, which ``bool()`` calls true: every yes/no option (one whose
    shipped value or default is a boolean) refuses it when the table loads, naming the option."""
    checked = []
    for slug, game in sorted(GAMES.items()):
        values = read_defaults(slug) | shipped_table(slug).get("options", {})
        for name in sorted(n for n in game.options if isinstance(values.get(n), bool)):
            data = shipped_table(slug)
            data["options"] = {name: "false"}
            with pytest.raises(ConfigError, match=f"options: {name} must be true or false"):
                table_from_mapping(data, f"{slug}.toml")
            checked.append(name)
    assert sorted(checked) == sorted(
        [
            "deal_empty_spots",
            "hole_card_first",
            "pair_plus_requires_ante",
            "side_bets_require_ante",
            "side_bets_require_wager",
        ]
    )


def test_every_tracker_option_value_is_checked_at_load() -> None:
    assert set(TRACKER_OPTION_CHECKS) == set(TABLE_OPTIONS)


@pytest.mark.parametrize("value", [0, 0.5, 1])
def test_a_threshold_from_zero_to_one_is_a_fraction(value: float) -> None:
    assert fraction_of_one("recognition_threshold", value) == value


@pytest.mark.parametrize("value", [-0.1, 1.5, "0.9", True, None])
def test_a_threshold_outside_zero_to_one_is_refused(value: object) -> None:
    with pytest.raises(RuleViolation, match="recognition_threshold must be a number from 0 to 1"):
        fraction_of_one("recognition_threshold", value)


@pytest.mark.parametrize("value", ["false", "no", 0, 1, None])
def test_only_a_toml_boolean_is_yes_or_no(value: object) -> None:
    with pytest.raises(RuleViolation, match=f"x must be true or false .*got {value!r}"):
        yes_no("x", value)
    assert yes_no("x", True) is True and yes_no("x", False) is False
