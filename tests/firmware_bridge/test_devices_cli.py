"""``dealerassist devices`` against real emulators: what a new user types and sees."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dealerassist.cli import main
from dealerassist.core.configfiles import bundled_dir
from dealerassist.events import DeviceLink, ShoeStatus
from firmware_bridge.emulators.shoe import ShoeEmulator
from firmware_bridge.emulators.sign import SignEmulator

from .conftest import plug, wait_for


def test_sign_command_puts_the_amount_on_the_sign(
    sign_emulator: SignEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    url = plug(sign_emulator, "tcp:")
    assert main(["devices", "sign", url, "--amount", "$1,234.56", "--fault", "LINK LOST"]) == 0
    wait_for(lambda: sign_emulator.text() == "LINK LOST | JACKPOT $1,234.56", what="sign text")
    out = capsys.readouterr().out
    assert "[flash amber] LINK LOST" in out and "[hold  green] JACKPOT $1,234.56" in out
    assert main(["devices", "sign", url, "--amount", "50", "--win", "PP-1"]) == 0
    wait_for(lambda: sign_emulator.text() == "WINNER TABLE PP-1 | $50.00", what="win text")


def test_sign_command_errors_are_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["devices", "sign", "socket://127.0.0.1:9", "--amount", "5", "--timeout", "0.3"]) == 1
    assert "took no update within 0.3 s" in capsys.readouterr().err
    assert main(["devices", "sign", "emu://sign", "--amount", "five"]) == 1
    assert "cannot read amount 'five'" in capsys.readouterr().err
    assert main(["devices", "sign", "emu://sign", "--amount", "5", "--win", "A", "--pending", "B"]) == 1
    assert "either --win or --pending" in capsys.readouterr().err


def test_watch_shoe_prints_cards_and_the_link_alarm(shoe_emulator: ShoeEmulator, tmp_path: Path) -> None:
    url = plug(shoe_emulator, f"pty:{tmp_path / 'shoe0'}")
    proc = subprocess.Popen(
        [sys.executable, "-m", "dealerassist", "devices", "watch-shoe", url, "--seconds", "20"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    lines: list[str] = []

    def read_until(text: str) -> None:
        while True:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            assert line, f"watch-shoe ended before printing {text!r}: {lines}"
            lines.append(line)
            if text in line:
                return

    try:
        read_until("LINK UP")
        shoe_emulator.deal("QH")
        read_until("CARD      #1 QH")
        shoe_emulator.report_status("jam")
        read_until("STATUS    jam  ** ALARM **")
        shoe_emulator.unplug(0.5)
        read_until("LINK DOWN shoe: link lost")
        read_until("LINK UP")
        shoe_emulator.deal(unreadable=True)
        read_until("CARD      #2 ?? (unreadable)")
        proc.send_signal(signal.SIGINT)
        read_until("stopped:")
        assert "cards 2" in lines[-1]
    finally:
        proc.terminate()
        proc.wait(5)


def test_describe_marks_alarms() -> None:
    from dealerassist.commands.devices import describe

    assert describe(ShoeStatus(table="t", status="ok")) == "STATUS    ok"
    assert describe(DeviceLink(table="t", device="sign", up=False, detail="gone")).endswith("** ALARM **")


def without_devices(toml: str) -> str:
    """A table file's text with any [devices.*] sections removed, so the test sets its own."""
    kept, skipping = [], False
    for line in toml.splitlines():
        if line.startswith("["):
            skipping = line.startswith("[devices")
        if not skipping:
            kept.append(line)
    return "\n".join(kept) + "\n"


def test_show_checks_a_tables_devices(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = without_devices((bundled_dir() / "tables" / "three-card-poker.toml").read_text(encoding="utf-8"))
    good = tmp_path / "tcp-dev.toml"
    good.write_text(source + '\n[devices.shoe]\nurl = "socket://127.0.0.1:7001"\nbaudrate = 19200\n')
    assert main(["devices", "show", str(good)]) == 0
    shown = capsys.readouterr().out
    assert "shoe   socket://127.0.0.1:7001  (baudrate=19200, bytesize=8, parity=none" in shown
    bad = tmp_path / "tcp-bad.toml"
    bad.write_text(source + '\n[devices.sign]\nurl = "loop://"\nparity = "N"\n')
    assert main(["devices", "show", str(bad)]) == 1
    assert "[devices.sign]: parity: must be one of none" in capsys.readouterr().err
    bare = tmp_path / "tcp-bare.toml"
    bare.write_text(source)
    assert main(["devices", "show", str(bare)]) == 0
    assert "no [devices] section" in capsys.readouterr().out
