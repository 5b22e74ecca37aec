"""``dealerassist bench vision`` runs end to end on a small scene count and prints its table."""

from __future__ import annotations

import pytest

from dealerassist.cli import main


@pytest.mark.slow
def test_bench_vision_reports_both_readers(capsys) -> None:
    assert (
        main(
            [
                "bench",
                "vision",
                "--designs",
                "kennard-4color-bf",
                "--scenes",
                "2",
                "--seed",
                "3",
                "--training-scenes",
                "4",
                "--tables",
                "2",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "kennard-4color-bf  corner-index" in out
    assert "kennard-4color-bf  classic" in out
    assert "ALL (untuned)" in out and "targets:" in out
