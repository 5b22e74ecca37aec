"""``bench vision --without STAGE``: each stage switched off reads the same frame without it, and
the reader is whole again afterwards."""

from __future__ import annotations

import pytest

from dealerassist.commands.bench import load
from dealerassist.vision import candidates
from dealerassist.vision.reader import CardReader

from .conftest import lay_cards

vision_bench = load("vision")


def _replaced(stage: str) -> list[object]:
    return [getattr(target, name) for target, name, _ in vision_bench.STAGES[stage]]


@pytest.mark.parametrize("stage", sorted(vision_bench.STAGES))
def test_a_stage_switched_off_is_switched_on_again_after_the_frame(
    reader: CardReader, design, stage: str
) -> None:
    before = _replaced(stage)
    frame = lay_cards(design, [("2C", (500, 360), 0, True), ("8D", (550, 372), 0, True)])
    vision_bench.without(reader.read, stage)(frame)  # a name no longer there fails to patch
    assert _replaced(stage) == before


@pytest.mark.parametrize(
    ("stage", "source"),
    [("ink", candidates.INK), ("junction", candidates.JUNCTION), ("traced", candidates.TRACED)],
)
def test_a_corner_source_switched_off_gives_no_candidate(design, deck, stage: str, source: str) -> None:
    # A stepped fan with a flush pair: every kind of corner is found in it.
    cards = [("2C", (400, 300), 0, True), ("8D", (445, 312), 0, True), ("KS", (490, 324), 0, True)]
    cards += [("5H", (800, 300), 0, True), ("6H", (800 + 110, 300), 0, True)]
    frame = lay_cards(design, cards)

    def sources() -> set[str]:
        found = candidates.find_candidates(frame, deck.aspect, deck.rank_box, deck.window).candidates
        return {c.source for c in found}

    assert source in sources()
    assert source not in vision_bench.without(lambda _frame: sources(), stage)(frame)


def test_backs_switched_off_leave_a_face_down_card_unseen(reader: CardReader, design) -> None:
    frame = lay_cards(design, [("AH", (640, 360), 20, False)])
    assert any(not s.face_up for s in reader.read(frame))
    assert all(s.face_up for s in vision_bench.without(reader.read, "backs")(frame))
