"""``dealerassist bench vision`` runs end to end on a small scene count and prints its table."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealerassist.cli import main
from dealerassist.vision import enrollment


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
    verdicts = out.split("against the targets (untuned designs pooled; 95 % intervals):\n", 1)[1].splitlines()
    assert verdicts[0].startswith("  right: ") and verdicts[1].startswith("  wrong: ")
    assert verdicts[2].startswith("  face-down cards read as a face: ") and "ms a frame" in verdicts[3]
    share = next(line for line in out.splitlines() if line.startswith("corner-index CPU time per frame:"))
    assert 0.0 < float(share.split()[5]) < 10.0 and share.endswith("of the classic reader's in this run")


@pytest.mark.slow
def test_a_second_run_with_kept_decks_only_reads(capsys, monkeypatch, tmp_path: Path) -> None:
    args = ["bench", "vision", "--designs", "kennard-4color-bf", "--scenes", "2", "--seed", "3"]
    args += ["--training-scenes", "4", "--tables", "2", "--no-baseline", "--repeat", "2"]
    args += ["--decks", str(tmp_path)]
    assert main(args) == 0
    first = capsys.readouterr().out
    kept = list(tmp_path.glob("kennard-4color-bf-4x2x2-*.npz"))
    assert len(kept) == 1

    def no_enrolling(*_args, **_kwargs):
        raise AssertionError("enrolled again although the deck was kept")

    monkeypatch.setattr(enrollment, "enroll", no_enrolling)
    assert main(args) == 0
    second = capsys.readouterr().out
    row = [line for line in first.splitlines() if line.startswith("kennard-4color-bf  corner-index")]
    again = [line for line in second.splitlines() if line.startswith("kennard-4color-bf  corner-index")]
    assert row and again and row[0][:-8] == again[0][:-8]  # the same counts; only the CPU time differs


@pytest.mark.slow
def test_several_draws_are_pooled_and_each_reported(capsys) -> None:
    args = ["bench", "vision", "--designs", "kennard-4color-bf", "--scenes", "2", "--seed", "3", "5"]
    args += ["--training-scenes", "4", "--tables", "2", "--no-baseline", "--repeat", "1"]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()

    def face_up(prefix: str) -> int:
        row = next(line for line in lines if line.startswith(prefix))
        return int(row.split()[-9])  # the first of the nine figures after the method

    pooled = face_up("ALL (untuned)      corner-index")
    first, second = face_up("  seed 3           corner-index"), face_up("  seed 5           corner-index")
    assert first > 0 and second > 0 and pooled == first + second
    design = face_up("kennard-4color-bf  corner-index")
    assert design == pooled  # one design: its row pools both draws


@pytest.mark.parametrize(("option", "value"), [("--scenes", "0"), ("--scenes", "-3"), ("--members", "0")])
def test_an_empty_run_is_refused_before_any_enrolling(capsys, monkeypatch, option: str, value: str) -> None:
    def no_enrolling(*_args, **_kwargs):
        raise AssertionError("enrolled for a benchmark that reads nothing")

    monkeypatch.setattr(enrollment, "enroll", no_enrolling)
    with pytest.raises(SystemExit) as stopped:
        main(["bench", "vision", "--designs", "kennard-4color-bf", option, value])
    assert stopped.value.code == 2
    assert f"{option} must be 1 or more, not {value}" in capsys.readouterr().err
