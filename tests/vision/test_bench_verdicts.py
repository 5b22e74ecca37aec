"""The vision benchmark reads its pooled counts as measurements: a rate meets or misses a target
only when its whole 95 % interval lies on one side of it."""

from __future__ import annotations

import numpy as np
import pytest

from dealerassist.commands.bench import load
from dealerassist.simulation.scoring import Tally
from dealerassist.vision.deck import DeckFileError
from dealerassist.vision.scenes import SceneCard
from dealerassist.vision.sighting import CardSighting

vision_bench = load("vision")


def test_wilson_interval_matches_its_closed_forms() -> None:
    z2 = vision_bench.Z95**2
    low, high = vision_bench.wilson(0, 10)
    # No hits: the interval runs from 0 to z²/(n+z²); all hits, from n/(n+z²) to 1.
    assert low == pytest.approx(0.0) and high == pytest.approx(z2 / (10 + z2))
    low, high = vision_bench.wilson(10, 10)
    assert high == pytest.approx(1.0) and low == pytest.approx(10 / (10 + z2))
    low, high = vision_bench.wilson(5, 10)
    assert low + high == pytest.approx(1.0) and 0.23 < low < 0.24  # symmetric about a half
    assert vision_bench.wilson(0, 0) == (0.0, 1.0)  # nothing seen: anything goes


def test_the_interval_narrows_as_draws_are_pooled() -> None:
    one = vision_bench.wilson(2290, 2300)
    ten = vision_bench.wilson(22900, 23000)
    assert one[0] < ten[0] < 0.9956 < ten[1] < one[1]


def _tally(
    visible: int, correct: int, wrong: int = 0, hidden: int = 0, face_down: int = 100, named: int = 0
) -> Tally:
    tally = Tally(face_up_visible=visible, correct=correct, wrong=wrong, face_up_hidden=hidden, frames=10)
    tally.face_down, tally.face_down_read_as_face, tally.seconds = face_down, named, 0.19
    return tally


def _verdict(lines: list[str], start: str) -> str:
    return next(line for line in lines if line.strip().startswith(start)).rsplit(": ", 1)[1]


def test_right_reads_are_met_missed_or_undecided_by_the_interval() -> None:
    assert _verdict(vision_bench.verdicts(_tally(20000, 19960)), "right") == "met"  # 99.80 %, from 99.73
    assert _verdict(vision_bench.verdicts(_tally(20000, 19820)), "right") == "not met"  # 99.10 %, to 99.23
    near = vision_bench.verdicts(_tally(22804, 22695))  # 99.52 %: the interval runs 99.42-99.60
    assert "undecided" in _verdict(near, "right") and "99.42-99.60 %" in near[0]


def test_a_draw_with_no_wrong_read_is_met_only_when_large_enough() -> None:
    assert _verdict(vision_bench.verdicts(_tally(10000, 9990)), "wrong") == "met"  # 0 of 10,000: to 0.04 %
    assert "undecided" in _verdict(vision_bench.verdicts(_tally(1000, 999)), "wrong")  # 0 of 1,000: to 0.38 %
    assert _verdict(vision_bench.verdicts(_tally(10000, 9950, wrong=40)), "wrong") == "not met"  # 0.4 %


def test_wrong_reads_count_against_every_face_up_card() -> None:
    lines = vision_bench.verdicts(_tally(3000, 2990, wrong=3, hidden=1000))
    assert "(3 of 4,000)" in lines[1]  # a hidden index named wrong still counts


def test_one_face_down_card_named_misses_its_target() -> None:
    lines = vision_bench.verdicts(_tally(5000, 4990, face_down=800, named=1))
    assert lines[2].endswith("1 of 800, none: not met")
    assert vision_bench.verdicts(_tally(5000, 4990, face_down=800))[2].endswith("0 of 800, none: met")


def test_cpu_time_is_printed_not_judged() -> None:
    line = vision_bench.verdicts(_tally(5000, 4990))[3]
    assert "19.0 ms a frame" in line and "met" not in line


class _Clock:
    """A CPU clock the stand-in readers advance by the time each read is meant to take."""

    def __init__(self) -> None:
        self.now = 0.0

    def process_time(self) -> float:
        return self.now

    perf_counter = process_time  # the enrolling's wall time, not looked at here


def test_the_readers_take_their_passes_in_turns_and_each_frame_costs_its_least(monkeypatch) -> None:
    clock, passes = _Clock(), []
    # A slow spell over the run's first three passes: taken reader by reader, it would be all of
    # the first reader's passes; in turns, each reader meets it and keeps a quick pass.
    slow = iter([True, True, True, False, False, False])

    class Reader:
        def __init__(self, name: str, seconds: float) -> None:
            self.name, self.seconds, self.started = name, seconds, False

        def read(self, frame: object) -> list:
            if not self.started:  # the reader's start, loading its compiled loops: not a pass
                self.started = True
                clock.now += 1.0
                return []
            if frame == 0:  # the first frame of a pass: a new pass begins
                passes.append((self.name, next(slow)))
            clock.now += self.seconds * (3.0 if passes[-1][1] else 1.0)
            return []

    monkeypatch.setattr(vision_bench, "time", clock)
    monkeypatch.setattr(vision_bench, "_deck", lambda *args: (None, True))
    monkeypatch.setattr(vision_bench, "CardReader", lambda deck: Reader("corner-index", 0.010))
    monkeypatch.setattr(vision_bench, "ClassicReader", lambda folder: Reader("classic", 0.020))
    monkeypatch.setattr(vision_bench.artwork, "design_dir", lambda name: name)
    monkeypatch.setattr(vision_bench, "load_design", lambda folder: None)
    frames = iter(range(100))
    monkeypatch.setattr(vision_bench, "make_scene", lambda design, rng, cards: (next(frames), []))
    tallies = vision_bench.run_design("stand-in", 2, [5], True, None, (1, 1, 1), repeat=3).tallies
    turn = ["corner-index", "classic"]
    assert [name for name, _ in passes] == turn + turn[::-1] + turn
    # Each frame's least over its reader's passes: the slow spell leaves no trace, and neither
    # does the readers' start.
    assert tallies[5]["corner-index"].seconds == pytest.approx(2 * 0.010)
    assert tallies[5]["classic"].seconds == pytest.approx(2 * 0.020)
    slow, frames = iter([False, False]), iter(range(100))
    tallies = vision_bench.run_design("stand-in", 2, [5], True, None, (1, 1, 1), repeat=1).tallies
    assert tallies[5]["corner-index"].seconds == pytest.approx(2 * 0.010)


def test_a_design_enrollment_refuses_is_reported_and_fails_the_enrollment_target(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*_args: object) -> None:
        raise DeckFileError("stand-in: only 3 cards show an index apart from the pips (need 26)")

    monkeypatch.setattr(vision_bench, "_deck", refuse)
    monkeypatch.setattr(vision_bench.artwork, "design_dir", lambda name: name)
    run = vision_bench.run_design("stand-in", 2, [5], True, None, (1, 1, 1))
    assert run.refused.startswith("stand-in: only 3 cards") and run.tallies == {}
    quick = vision_bench.DesignRun(enroll_cpu_s={"corner-index": 12.0, "universal": 3.0})
    kept = vision_bench.DesignRun(enroll_cpu_s={"corner-index": None, "universal": 2.0})
    per_deck, universal = vision_bench.enrollment_report({"a": quick, "b": kept, "stand-in": run})
    assert (
        per_deck.startswith("corner-index enrollment CPU s")
        and "a 12 s, b kept, stand-in refused" in per_deck
    )
    assert universal.startswith("universal enrollment") and "a 3 s, b 2 s, stand-in refused" in universal
    assert per_deck.endswith("every design enrolled: not met") and universal.endswith("not met")
    assert vision_bench.enrollment_report({"a": quick})[1].endswith("every design enrolled: met")
    slow = vision_bench.DesignRun(enroll_cpu_s={"corner-index": 61.0})
    assert vision_bench.enrollment_report({"c": slow}) == [
        "corner-index enrollment CPU s (training processes included): c 61 s; at most 60 s a design, "
        "every design enrolled: not met"
    ]


def test_right_reads_are_printed_by_card_height() -> None:
    tally = _tally(300, 290)
    tally.by_height = [[100, 90, 2], [0, 0, 0], [50, 50, 0], [50, 50, 0], [100, 100, 0]]
    line = vision_bench.by_height(tally)
    assert "under 90 px 90.00 / 2.00 % of 100" in line and "90-110 px none" in line
    assert line.endswith("160 px and over 100.00 / 0.00 % of 100")


def _read_as_scripted(names: list[str]) -> object:
    """A reader that sees AS right in every frame and the second card as ``names`` says, frame by frame."""
    frames = iter(names)

    def read(_frame: object) -> list[CardSighting]:
        second = next(frames)
        return [
            CardSighting("AS", 0.99, True, np.array(_LEFT, float)),
            CardSighting(second, 0.95, True, np.array(_RIGHT, float)),
        ]

    return read


_LEFT = [[10, 10], [80, 10], [80, 110], [10, 110]]
_RIGHT = [[300, 10], [370, 10], [370, 110], [300, 110]]


def test_the_stabilised_rows_count_what_a_camera_reports_frame_after_frame(monkeypatch) -> None:
    truth = [SceneCard("AS", True, np.array(_LEFT, float)), SceneCard("KD", True, np.array(_RIGHT, float))]
    image = np.full((200, 400, 3), 90, np.uint8)
    monkeypatch.setattr(vision_bench, "make_scene", lambda design, rng, cards, sensor=None: (image, truth))
    slip = ["KD", "KD", "KH", "KD", "KD"]  # one frame's misread, never steady
    tally = vision_bench.stabilised_reads(_read_as_scripted(slip), {}, 7, 1, 5, None, "t")
    assert (tally.correct, tally.wrong, tally.abstained) == (1, 0, 1)  # KD not yet steady either
    tally = vision_bench.stabilised_reads(_read_as_scripted(slip + ["KD"] * 5), {}, 7, 1, 10, None, "t")
    assert (tally.correct, tally.wrong, tally.abstained) == (2, 0, 0)
    steady = vision_bench.stabilised_reads(_read_as_scripted(["KH"] * 5), {}, 7, 1, 5, None, "t")
    assert (steady.correct, steady.wrong) == (1, 1) and steady.mistakes == ["t scene 0: KD read as KH"]


def test_each_still_table_is_the_per_frame_draws_own_with_only_its_sensor_noise_redrawn(monkeypatch) -> None:
    calls: list[tuple[object, bool]] = []

    def scene(design: object, rng: np.random.Generator, cards: object, sensor: object = None) -> tuple:
        calls.append((rng.integers(1_000_000), sensor is None))
        return np.zeros((100, 100, 3), np.uint8), []

    monkeypatch.setattr(vision_bench, "make_scene", scene)
    vision_bench.stabilised_reads(lambda frame: [], {}, 7, 2, 3, None, "t")
    drawn = np.random.default_rng(7)
    tables = [drawn.integers(1_000_000) for _ in range(2)]
    # Each table three times from the same state; only its first frame keeps the table's own noise.
    assert calls == [(table, kept) for table in tables for kept in (True, False, False)]
