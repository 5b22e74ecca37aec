"""``dealerassist bench``: lists bench/*.py benchmarks and runs one, handing it the arguments."""

import subprocess
import sys
from pathlib import Path

import pytest

from dealerassist.cli import main
from dealerassist.commands.bench import BENCH_DIR_ENV, available

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def bench_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "echo.py").write_text(
        '"""Echo benchmark: prints its arguments."""\n'
        "def main(argv=None):\n"
        "    print('echo', ' '.join(argv or []))\n"
        "    return 3\n"
    )
    (tmp_path / "helper.py").write_text('"""Not a benchmark: no main."""\nVALUE = 1\n')
    (tmp_path / "_private.py").write_text("def main(argv=None):\n    return 0\n")
    (tmp_path / "broken.py").write_text("import no_such_module_here\ndef main(argv=None):\n    return 0\n")
    monkeypatch.setenv(BENCH_DIR_ENV, str(tmp_path))
    return tmp_path


def test_listing_shows_modules_with_a_main_and_their_summary(
    bench_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench"]) == 0
    out = capsys.readouterr().out
    assert "echo" in out and "Echo benchmark: prints its arguments." in out
    assert "helper" not in out and "_private" not in out
    assert set(available()) == {"echo", "broken"}


def test_a_benchmark_gets_everything_after_its_name(
    bench_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "echo", "--hands", "5", "-x"]) == 3
    assert capsys.readouterr().out.strip() == "echo --hands 5 -x"


def test_unknown_or_unloadable_benchmarks_are_clear_errors(
    bench_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "nope"]) == 1
    err = capsys.readouterr().err
    assert "no benchmark 'nope'" in err and "echo" in err
    assert main(["bench", "broken"]) == 1
    assert "needs no_such_module_here" in capsys.readouterr().err


def test_the_repository_bench_folder_offers_the_evaluators_benchmark() -> None:
    assert "evaluators" in available()


@pytest.mark.slow
def test_evaluators_benchmark_runs_and_prints_ratios() -> None:
    small = [
        "--hands",
        "300",
        "--sevens",
        "60",
        "--pokerkit-sevens",
        "5",
        "--batch-sevens",
        "2000",
        "--repeat",
        "1",
    ]
    for command in (
        [sys.executable, str(REPO / "bench" / "evaluators.py"), *small],
        [sys.executable, "-m", "dealerassist", "bench", "evaluators", *small],
    ):
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=REPO, check=False)
        assert done.returncode == 0, done.stderr
        for label in (
            "five-card full API",
            "five-card ints",
            "best five of seven",
            "three-card",
            "all 2,598,960 five-card",
            "best five of 7",
        ):
            assert label in done.stdout
        assert "ratio" in done.stdout
        assert "order agrees with treys on 300 hands: yes" in done.stdout
        assert "ints give evaluate_five's strength on 300 hands: yes" in done.stdout
