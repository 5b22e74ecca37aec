"""The packages of dealerassist form layers: no import cycle among its top-level packages.

Every import counts, at module level or inside a function: a lazy import is still a dependency,
and a cycle through one is a layering error waiting for the next refactor.
"""

from __future__ import annotations

import ast
import graphlib
import itertools
from pathlib import Path

import dealerassist

PACKAGE = Path(dealerassist.__file__).resolve().parent
CORE_MAY_IMPORT = {"errors"}  # the core (cards, decks, money, pay tables) knows no game, device or server
# Upward lookups allowed by name, each with its reason; any other edge that closes a cycle fails.
UPWARD_LOOKUPS = {
    # Decoding a record looks its kind up in the one explicit list of event types, which lists the
    # events every package defines (imported inside the function, on first decode).
    ("events", "vocabulary"),
}


def _unit(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0].removesuffix(".py")


def import_graph() -> dict[str, dict[str, set[str]]]:
    """Top-level package -> the top-level packages it imports -> the files that do."""
    graph: dict[str, dict[str, set[str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _unit(path)
        graph.setdefault(source, {})
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
                if node.module == "dealerassist":
                    modules = [f"dealerassist.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            for module in modules:
                parts = module.split(".")
                if parts[0] == "dealerassist" and len(parts) > 1 and parts[1] != source:
                    graph[source].setdefault(parts[1], set()).add(str(path.relative_to(PACKAGE)))
    return graph


def cycle_in(graph: dict[str, dict[str, set[str]]]) -> list[str] | None:
    try:
        graphlib.TopologicalSorter({node: set(deps) for node, deps in graph.items()}).prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return None


def test_no_import_cycle_among_top_level_packages() -> None:
    graph = import_graph()
    for source, target in UPWARD_LOOKUPS:
        graph[source].pop(target, None)
    cycle = cycle_in(graph)
    if cycle:
        steps = [f"{b} -> {a} ({', '.join(sorted(graph[b][a]))})" for a, b in itertools.pairwise(cycle)]
        raise AssertionError("import cycle: " + "; ".join(steps))


def test_the_core_knows_no_game_device_or_server() -> None:
    assert set(import_graph()["core"]) <= CORE_MAY_IMPORT


def test_a_cycle_is_found_and_named() -> None:
    graph = {"core": {"games": {"core/tables.py"}}, "games": {"core": {"games/base.py"}}}
    assert set(cycle_in(graph) or []) == {"core", "games"}
    assert cycle_in({"core": {}, "games": {"core": {"games/base.py"}}}) is None
