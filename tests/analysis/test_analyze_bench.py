"""``dealerassist bench analyze`` on one quick bet: it runs the analysis in a fresh process, reports
the same house edge the analyzer gives, and shows the agreed targets beside the slow bets."""

from __future__ import annotations

import json

import pytest

from dealerassist.analysis import AnalysisError, AnalysisRequest, analyze
from dealerassist.cli import main as cli_main
from dealerassist.commands.bench import load


def test_one_quick_bet_is_timed_in_a_fresh_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["bench", "analyze", "--only", "three-card-poker:pair-plus", "--json"]) == 0
    [timing] = json.loads(capsys.readouterr().out)["analyses"]
    expected = analyze(AnalysisRequest(game="three-card-poker"), ["pair-plus"])["pair-plus"]
    assert (timing["game"], timing["bet"], timing["target_s"]) == ("three-card-poker", "pair-plus", None)
    assert timing["house_edge"] == pytest.approx(float(expected.house_edge))
    assert 0 < timing["seconds"] < 60


def test_the_report_sets_each_time_beside_its_target() -> None:
    bench = load("analyze")
    text = bench.report(
        [
            bench.Timing("three-card-poker", "ante-play", 30.0, 0.0337),
            bench.Timing("face-up-pai-gow", "fortune", 300.0, 0.079),
            bench.Timing("three-card-poker", "pair-plus", 0.5, 0.0728),
        ]
    )
    ante, fortune, pair_plus = text.splitlines()[1:]
    assert "60 s" in ante and "50%" in ante
    assert "600 s" in fortune and "50%" in fortune
    assert pair_plus.split()[3:5] == ["-", "-"]


def test_every_game_and_bet_is_measured_unless_narrowed() -> None:
    bench = load("analyze")
    everything = bench.selected(None)
    assert ("three-card-poker", "ante-play") in everything and ("face-up-pai-gow", "fortune") in everything
    assert bench.selected(["four-card-poker"]) == [("four-card-poker", b) for b in ("aces-up", "ante-bonus")]
    with pytest.raises(AnalysisError, match="no analysis 'three-card-poker:bogus'"):
        bench.selected(["three-card-poker:bogus"])
