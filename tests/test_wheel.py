"""The project as a user installs it: a wheel in a fresh virtual environment, run from an empty folder.

Nothing of the checkout is on the path there, so every bundled file (decks, pay tables, example
tables, card art, web assets) must come from inside the package.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _run(args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DEALERASSIST_CONFIG", "VIRTUAL_ENV")
    }
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (
        f"{' '.join(args)} -> {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the fresh venv's dealerassist, an empty folder to run it in)."""
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(REPO)], cwd=root)
    (wheel,) = dist.glob("dealerassist-*.whl")
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=root)
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], cwd=root)
    empty = root / "elsewhere"
    empty.mkdir()
    return venv / "bin" / "dealerassist", empty


@pytest.mark.slow
def test_the_wheel_runs_the_demo_and_an_analysis_outside_the_checkout(installed: tuple[Path, Path]) -> None:
    dealerassist, empty = installed
    version = _run([str(dealerassist), "--version"], cwd=empty).stdout
    assert version.startswith("dealerassist ")
    demo = _run(
        [str(dealerassist), "demo", "--rounds", "2", "--no-camera", "--pace", "fast", "--port", "0"],
        cwd=empty,
    )
    assert "table(s)" in demo.stdout
    assert (empty / "var" / "demo" / "events.sqlite3").is_file()
    verify = _run([str(dealerassist), "audit", "verify", "--db", "var/demo/events.sqlite3"], cwd=empty)
    assert "chain intact" in verify.stdout
    analysis = _run([str(dealerassist), "analyze", "three-card-poker"], cwd=empty)
    assert "pair-plus" in analysis.stdout
    check = _run([str(dealerassist), "run", "--check", "three-card-poker"], cwd=empty)
    assert "tcp-1 (three-card-poker) ok" in check.stdout
    shown = _run([str(dealerassist), "config", "show"], cwd=empty).stdout
    assert str(REPO) not in shown  # the bundled files are the installed package's, not the checkout's
    assert "site-packages" in shown


@pytest.mark.slow
def test_a_site_folder_overrides_one_bundled_file(installed: tuple[Path, Path], tmp_path: Path) -> None:
    dealerassist, empty = installed
    site = tmp_path / "site" / "tables"
    site.mkdir(parents=True)
    (site / "my-table.toml").write_text(
        '[table]\nid = "tcp-9"\ngame = "three-card-poker"\nseats = 6\n'
        '[limits]\nante = { min = "5", max = "100" }\n',
        encoding="utf-8",
    )
    check = _run([str(dealerassist), "--config", str(site.parent), "run", "--check", "my-table"], cwd=empty)
    assert "tcp-9 (three-card-poker) ok" in check.stdout
    shown = _run([str(dealerassist), "--config", str(site.parent), "config", "show"], cwd=empty).stdout
    assert "my-table                     --config" in shown
