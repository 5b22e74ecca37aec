"""bench/serial_line.py stays runnable through ``dealerassist bench`` and measures what it claims."""

from __future__ import annotations

from pathlib import Path

from dealerassist.commands.bench import load


def test_latencies_are_never_below_the_wire_time(tmp_path: Path) -> None:
    bench = load("serial_line")
    shoe = bench.bench_shoe(115200, 5, tmp_path)
    sign = bench.bench_sign(115200, 5, tmp_path)
    for row in (shoe, sign):
        assert row["n"] == 5
        # the emulators model the line, so software can only add time on top of the wire time
        assert row["extra_p50_ms"] >= 0
        assert row["p50_ms"] >= row["physical_ms"] > 0
    # a 20-byte card frame needs 200 bits: 1.74 ms at 115200 baud
    assert 1.5 < shoe["physical_ms"] < 2.0
