"""Stabiliser: a card becomes an event only once it is steady; turning over and removal are events."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from dealerassist.core.cards import Card
from dealerassist.events import CardRead, CardRemoved
from dealerassist.vision.sighting import CardSighting
from dealerassist.vision.temporal import CardStabiliser

FRAME = np.full((720, 1280, 3), 90, np.uint8)
QUAD = np.array([[100.0, 100.0], [200.0, 100.0], [200.0, 240.0], [100.0, 240.0]])


def seen(
    card: str | None, face_up: bool = True, zone: str | None = "dealer", shift: float = 0.0
) -> CardSighting:
    return CardSighting(card, 0.95 if card else 0.9, face_up, QUAD + shift, zone=zone)


def test_a_card_is_reported_once_it_has_been_steady(tmp_path: Path) -> None:
    stab = CardStabiliser("tcp-1", tmp_path, stable_frames=3)
    assert stab.update(FRAME, [seen("AS")]) == []
    assert stab.update(FRAME, [seen("AS", shift=2.0)]) == []
    events = stab.update(FRAME, [seen("AS", shift=-1.0)])
    assert len(events) == 1
    read = events[0]
    assert isinstance(read, CardRead)
    assert (read.table, read.source, read.card, read.face_up, read.position) == (
        "tcp-1",
        "camera",
        Card.parse("AS"),
        True,
        "dealer",
    )
    assert read.confidence == pytest.approx(0.95)
    snapshot = tmp_path / read.snapshot
    assert snapshot.is_file() and cv2.imread(str(snapshot)) is not None
    assert stab.update(FRAME, [seen("AS")]) == []  # already reported


def test_a_read_that_flickers_is_not_reported(tmp_path: Path) -> None:
    stab = CardStabiliser("tcp-1", tmp_path, stable_frames=3)
    for card in ["AS", "AH", "AS", "AH", "AS"]:
        assert stab.update(FRAME, [seen(card)]) == []


def test_an_abstained_frame_does_not_undo_a_read(tmp_path: Path) -> None:
    stab = CardStabiliser("tcp-1", tmp_path, stable_frames=2)
    stab.update(FRAME, [seen("KD")])
    assert len(stab.update(FRAME, [seen("KD")])) == 1
    for _ in range(4):
        assert stab.update(FRAME, [seen(None)]) == []


def test_a_dealer_card_turned_face_up_is_reported_again(tmp_path: Path) -> None:
    stab = CardStabiliser("tcp-1", tmp_path, stable_frames=2)
    stab.update(FRAME, [seen(None, face_up=False)])
    down = stab.update(FRAME, [seen(None, face_up=False)])
    assert [(e.card, e.face_up) for e in down] == [(None, False)]
    stab.update(FRAME, [seen("QC")])
    up = stab.update(FRAME, [seen("QC")])
    assert [(e.card, e.face_up, e.position) for e in up] == [(Card.parse("QC"), True, "dealer")]
    assert up[0].snapshot != down[0].snapshot
    assert up[0].track == down[0].track is not None  # the same card, turned over


def test_each_card_keeps_its_own_track_and_a_card_back_in_view_gets_a_new_one(tmp_path: Path) -> None:
    stab = CardStabiliser("tcp-1", tmp_path, stable_frames=1, missing_frames=1)
    first, second = stab.update(FRAME, [seen("AS"), seen("AS", shift=300.0)])
    assert first.card == second.card and first.track != second.track
    down = stab.update(FRAME, [seen(None, face_up=False), seen("AS", shift=300.0)])
    assert [(e.face_up, e.track) for e in down] == [(False, first.track)]  # turned over, same card
    gone = stab.update(FRAME, [seen("AS", shift=300.0)])
    assert [(type(e), e.track) for e in gone] == [(CardRemoved, first.track)]
    back = stab.update(FRAME, [seen("AS"), seen("AS", shift=300.0)])
    assert len(back) == 1 and back[0].track not in (first.track, second.track)
    assert len({name.rsplit("-", 1)[0] for name in (first.track, second.track, back[0].track)}) == 1


def test_two_stabilisers_of_one_table_never_share_a_track_name(tmp_path: Path) -> None:
    names = {
        CardStabiliser("tcp-1", tmp_path, stable_frames=1).update(FRAME, [seen("AS")])[0].track
        for _ in range(20)
    }
    assert len(names) == 20


def test_a_card_gone_for_long_enough_is_removed(tmp_path: Path) -> None:
    stab = CardStabiliser("tcp-1", tmp_path, stable_frames=1, missing_frames=3)
    assert len(stab.update(FRAME, [seen("7H", zone="seat-2")])) == 1
    assert stab.update(FRAME, []) == []
    assert stab.update(FRAME, []) == []
    removed = stab.update(FRAME, [])
    assert len(removed) == 1 and isinstance(removed[0], CardRemoved)
    assert (removed[0].card, removed[0].position, removed[0].source) == (Card.parse("7H"), "seat-2", "camera")


def test_cards_outside_every_zone_are_ignored(tmp_path: Path) -> None:
    stab = CardStabiliser("tcp-1", tmp_path, stable_frames=1)
    assert stab.update(FRAME, [seen("2S", zone=None)]) == []


def test_bad_settings_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        CardStabiliser("tcp-1", tmp_path, stable_frames=0)


def test_what_was_reported_is_listed_where_the_card_lies_now(tmp_path: Path) -> None:
    stab = CardStabiliser("tcp-1", tmp_path, stable_frames=2)
    stab.update(FRAME, [seen("AS"), seen("KD", shift=400.0)])
    stab.update(FRAME, [seen("AS", shift=3.0), seen("KH", shift=400.0)])  # KD's read not yet steady
    [reported] = stab.reported()
    assert (reported.card, reported.face_up, reported.zone) == ("AS", True, "dealer")
    assert np.array_equal(reported.quad, QUAD + 3.0)
    stab.update(FRAME, [seen("AS", shift=3.0), seen("KH", shift=400.0)])
    assert sorted(s.card for s in stab.reported()) == ["AS", "KH"]


def test_a_card_laid_over_a_face_down_card_does_not_take_its_track(tmp_path: Path) -> None:
    stab = CardStabiliser("tcp-1", tmp_path, stable_frames=2)
    stab.update(FRAME, [seen(None, face_up=False)])  # a face-down card comes into view
    # A card is laid over it, its outline a few pixels from the back's, and listed first.
    both = [seen("KC", shift=7.0), seen(None, face_up=False, shift=10.0)]
    down = stab.update(FRAME, both)
    assert [(e.card, e.face_up) for e in down] == [(None, False)]  # its own track, still counting
    up = stab.update(FRAME, both)
    assert [(e.card, e.face_up) for e in up] == [(Card.parse("KC"), True)]
    assert up[0].track != down[0].track
    assert sorted((s.card or "-", s.face_up) for s in stab.reported()) == [("-", False), ("KC", True)]
