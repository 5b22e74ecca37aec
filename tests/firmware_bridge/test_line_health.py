"""Line trouble: counted for good, alarmed once per crossing of the per-minute threshold, logged
as at most one summary line per interval."""

from __future__ import annotations

import logging

import pytest

from firmware_bridge.shoe.health import LineHealth


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_alarm_fires_once_per_crossing_and_rearms_when_the_rate_falls(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    health = LineHealth("shoe t1", logging.getLogger("test.line"), alarm_per_minute=4, clock=clock)
    crossed = [health.note("naks") for _ in range(6)]
    assert crossed == [False, False, False, True, False, False]
    assert health.figures() == {
        "discarded": 0,
        "naks": 6,
        "refusals": 0,
        "resyncs": 0,
        "reconnects": 0,
        "per_minute": 6,
    }
    clock.now += 61  # a quiet minute: the rate is 0, the alarm re-arms
    assert health.figures()["per_minute"] == 0
    assert [health.note("discarded", "bad-crc") for _ in range(4)][-1] is True
    assert health.counts["naks"] == 6  # counts are for good


def test_log_lines_are_rate_limited_and_summarise(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    health = LineHealth("shoe t1", logging.getLogger("test.line"), alarm_per_minute=10_000, clock=clock)
    with caplog.at_level(logging.INFO, logger="test.line"):
        for _ in range(500):
            health.note("discarded", "garbage")
            clock.now += 0.01  # 500 troubles in 5 s
        health.flush_log()
        clock.now += 10
        health.flush_log()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert lines[0] == "shoe t1 line trouble: discarded (garbage) x1 (at most one line per 10 s)"
    assert lines[1].startswith("shoe t1 line trouble: discarded (garbage) x499")


def test_an_unknown_trouble_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown line trouble"):
        LineHealth("x", logging.getLogger("x")).note("gremlins")
