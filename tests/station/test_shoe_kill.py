"""kill -9 of the real ``dealerassist run`` at random instants while the shoe emulator deals: no card
doubled or lost, the open round restored on every start, ``audit verify`` clean (see shoe_kill.py;
``scripts/shoe_kill.py`` is the long run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.station.shoe_kill import run_with_kills


@pytest.mark.parametrize(
    "game", ["pairs-and-up", pytest.param("perfect-pairs-blackjack", marks=pytest.mark.slow)]
)
def test_kill_minus_nine_while_dealing_takes_every_card_once(tmp_path: Path, game: str) -> None:
    report = run_with_kills(tmp_path, game, kills=10, seed=52)
    assert report.problems == []
    assert report.kills == 10 and report.starts == 11
    assert report.cards >= 10  # the kills fell while cards were being dealt
