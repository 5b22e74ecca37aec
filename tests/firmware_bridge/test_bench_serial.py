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


def test_a_burst_at_the_station_rate_is_measured_to_its_last_amount(tmp_path: Path) -> None:
    bench = load("serial_line")
    row = bench.bench_sign_production(115200, 3, tmp_path)
    # every burst's last amount reached the sign, never before its bytes could cross the line
    assert row["n"] == 3 and row["extra_p50_ms"] >= 0 and row["p50_ms"] >= row["physical_ms"] > 0
