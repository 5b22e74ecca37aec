"""The explicit registries: what is listed is what exists, nothing is found by scanning."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dealerassist import cli
from dealerassist.analysis import ANALYSES
from dealerassist.games import GAMES, game_class
from dealerassist.games.base import Game
from dealerassist.registry import Registry

PACKAGE = Path(cli.__file__).resolve().parent


def test_every_game_module_is_listed_once() -> None:
    modules = {path.stem for path in (PACKAGE / "games").glob("*.py") if "(Game):" in path.read_text()}
    listed = {game_class(slug).__module__.rsplit(".", 1)[-1] for slug in GAMES if slug != "high-card-test"}
    assert listed == modules
    for slug in GAMES:
        assert game_class(slug).slug == slug


def test_every_analysis_is_of_a_registered_game() -> None:
    assert set(ANALYSES) <= set(GAMES)
    for slug, module in ANALYSES.loaded().items():
        assert module.BETS, slug


def test_every_command_module_is_listed() -> None:
    modules = {p.stem for p in (PACKAGE / "commands").glob("*.py") if p.stem != "__init__"}
    assert set(cli.COMMANDS) == modules


def test_unknown_and_twice_registered_names_are_refused() -> None:
    games: Registry[type[Game]] = Registry("game")
    games.add("three-card-poker", "dealerassist.games.three_card_poker:ThreeCardPoker")
    with pytest.raises(ValueError, match="registered twice"):
        games.add("three-card-poker", "dealerassist.games.three_card_poker:ThreeCardPoker")
    with pytest.raises(KeyError, match="unknown game 'baccarat' \\(known: three-card-poker\\)"):
        games.get("baccarat")


def test_a_game_is_imported_only_when_asked_for() -> None:
    code = (
        "import sys; from dealerassist.games import game_class; game_class('three-card-poker'); "
        "print(sorted(m for m in sys.modules if m.startswith('dealerassist.games.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "dealerassist.games.three_card_poker" in out
    assert "dealerassist.games.face_up_pai_gow" not in out


def test_no_module_discovers_plugins_by_scanning() -> None:
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "pkgutil.iter_modules" in path.read_text() or ".__subclasses__()" in path.read_text()
    ]
    assert offenders == [] or offenders == ["storage/eventlog.py"]
