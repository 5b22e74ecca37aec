"""Deck enrollment: one image per card in, glyph templates out; bad folders named clearly."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealerassist.vision.deck import DeckFileError, DeckModel, enroll


def test_enrollment_learns_every_rank_and_suit_with_their_ink_colours(deck: DeckModel) -> None:
    assert set(deck.rank_labels.tolist()) == set("23456789TJQKA")
    assert set(deck.suit_labels.tolist()) == set("SHDC")
    assert 1.3 < deck.aspect < 1.5
    # Hearts and diamonds print red: far from the black of spades and clubs in a*b*.
    red_gap = np.linalg.norm(deck.suit_colours["H"] - deck.suit_colours["S"])
    assert red_gap > 40
    assert np.linalg.norm(deck.suit_colours["S"] - deck.suit_colours["C"]) < 10
    x0, y0, x1, y1 = deck.rank_box
    assert 0 < x0 < x1 < 0.2 and 0 < y0 < y1 < 0.25


def test_deck_file_round_trip(deck: DeckModel, tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    deck.save(path)
    loaded = DeckModel.load(path)
    assert loaded.name == deck.name
    assert loaded.rank_box == pytest.approx(deck.rank_box)
    np.testing.assert_array_equal(loaded.rank_features, deck.rank_features)
    np.testing.assert_array_equal(loaded.suit_labels, deck.suit_labels)


def test_a_file_that_is_not_a_deck_is_refused_with_its_name(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.npz"
    bogus.write_bytes(b"not a deck")
    with pytest.raises(DeckFileError, match=r"bogus\.npz"):
        DeckModel.load(bogus)


def test_missing_cards_are_listed(kennard_dir: Path, tmp_path: Path) -> None:
    partial = tmp_path / "partial"
    shutil.copytree(kennard_dir, partial)
    (partial / "QH.png").unlink()
    (partial / "back.png").unlink()
    with pytest.raises(DeckFileError, match=r"missing QH\.png, back\.png"):
        enroll(partial)


def test_an_image_too_small_to_enroll_is_named(kennard_dir: Path, tmp_path: Path) -> None:
    small = tmp_path / "small"
    shutil.copytree(kennard_dir, small)
    cv2.imwrite(str(small / "7C.png"), np.full((40, 30, 3), 255, np.uint8))
    with pytest.raises(DeckFileError, match=r"7C\.png: 30x40 px is too small"):
        enroll(small)


def test_an_unreadable_image_is_named(kennard_dir: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(kennard_dir, broken)
    (broken / "AS.png").write_bytes(b"\x89PNG garbage")
    with pytest.raises(DeckFileError, match=r"AS\.png: cannot read this image"):
        enroll(broken)
