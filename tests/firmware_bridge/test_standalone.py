"""The done-when scenario: emulator processes stopped and restarted under a running driver."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from firmware_bridge.shoe import ShoeReader
from firmware_bridge.sign import JackpotSign

from .conftest import Collector, wait_for


def start_shoe(link: Path, state: Path) -> subprocess.Popen[str]:
    args = ["--pty", "--link", str(link), "--state", str(state), "--seed", "4"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge.emulators.shoe", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.startswith(f"shoe emulator listening on {link}"), first
    return proc


def send(proc: subprocess.Popen[str], line: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


def command(proc: subprocess.Popen[str], line: str, answer: str) -> str:
    """Send a console command and read the emulator's output up to the line starting ``answer``."""
    assert proc.stdout is not None
    send(proc, line)
    while True:
        out = proc.stdout.readline()
        assert out, f"emulator exited while waiting for {answer!r}"
        if out.startswith(answer):
            return out


def test_restarting_the_emulator_loses_no_card(tmp_path: Path, collector: Collector) -> None:
    link, state = tmp_path / "shoe0", tmp_path / "shoe0.json"
    first = start_shoe(link, state)
    reader = ShoeReader(str(link), "TCP-1", collector, backoff_start=0.05, backoff_max=0.2)
    reader.start()
    second = None
    try:
        wait_for(lambda: reader.link_up, what="link up")
        command(first, "deal", "dealt #1")
        wait_for(lambda: collector.cards() == [1], what="first card")
        send(first, "fault drop")
        command(first, "deal", "dealt #2")
        first.terminate()
        first.wait(5)
        wait_for(lambda: collector.links() == [True, False], what="link alarm")
        assert collector.cards() == [1]
        second = start_shoe(link, state)
        wait_for(lambda: collector.cards() == [1, 2], what="the card drawn before the restart")
        assert collector.links() == [True, False, True]
        command(second, "deal", "dealt #3")
        wait_for(lambda: collector.cards() == [1, 2, 3], what="dealing goes on")
        assert reader.stats["reboots"] == 0
    finally:
        reader.stop()
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(5)


def test_standalone_sign_shows_what_the_driver_sends(tmp_path: Path) -> None:
    link, png = tmp_path / "sign0", tmp_path / "face.png"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "firmware_bridge.emulators.sign",
            "--pty",
            "--link",
            str(link),
            "--png",
            str(png),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    sign = JackpotSign(str(link))
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith(f"sign emulator listening on {link}")
        sign.start()
        sign.show_amount(98_765_43)
        shown = []
        while not (line := proc.stdout.readline()).rstrip().endswith("sign shows: JACKPOT $98,765.43"):
            assert line, f"sign emulator exited; it printed {shown}"
            shown.append(line)
        wait_for(lambda: png.exists() and png.read_bytes().startswith(b"\x89PNG"), what="face picture")
    finally:
        sign.stop()
        proc.terminate()
        proc.wait(5)
