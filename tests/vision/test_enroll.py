"""Deck enrollment: one image per card in, a deck file with its own classifier heads on the shipped
trunk out; bad folders named clearly."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealerassist.core.cards import FULL_DECK
from dealerassist.vision import deck as deck_module
from dealerassist.vision.deck import (
    DECK_FORMAT,
    TRUNK,
    DeckFileError,
    DeckModel,
    bundled_trunk,
    load_card_image,
)
from dealerassist.vision.enrollment import MIN_INDEXES_FOUND, enroll, index_place

from .conftest import ink_into_the_pips


def test_enrollment_finds_where_the_index_is_printed(deck: DeckModel) -> None:
    assert 1.3 < deck.aspect < 1.5
    x0, y0, x1, y1 = deck.rank_box
    assert 0 < x0 < x1 < 0.2 and 0 < y0 < y1 < 0.25
    # The classifier's window holds the rank and the suit below it, and stops short of the middle
    # of the card (where an upper card of a fan may already lie).
    assert x1 < deck.window.across <= 0.24 and y1 + 0.5 * (y1 - y0) < deck.window.down <= 0.5


def test_the_classifier_names_every_card_from_its_clean_image(deck: DeckModel, design) -> None:
    """Each card's own top-left index, at a camera size, names that card and no other."""
    from dealerassist.vision.index_window import sample_windows

    from .conftest import lay_cards

    for start in range(0, 52, 13):
        codes = [c for c in design if c != "back"][start : start + 13]
        cards = [(code, (90 + 95 * i, 200 + 300 * (i % 2)), 0, True) for i, code in enumerate(codes)]
        frame = lay_cards(design, cards, height=120)
        width = 120 / deck.aspect
        corners = np.array([[x - width / 2, y - 60] for _, (x, y), _, _ in cards])
        n = len(cards)
        windows = sample_windows(
            frame,
            corners,
            np.tile([1.0, 0.0], (n, 1)),
            np.tile([0.0, 1.0], (n, 1)),
            np.full(n, 120.0),
            deck.window,
        )
        names, probability, _ = deck.net.best(deck.net.describe(windows))
        assert names == codes
        assert (probability > 0.9).all()


def test_deck_file_round_trip(deck: DeckModel, tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    deck.save(path)
    loaded = DeckModel.load(path)
    assert loaded.name == deck.name
    assert loaded.rank_box == pytest.approx(deck.rank_box)
    assert loaded.window == deck.window
    assert loaded.net.trunk.path == deck.net.trunk.path == bundled_trunk(TRUNK)
    np.testing.assert_array_equal(loaded.back_features, deck.back_features)
    rows = deck.net.describe(np.random.default_rng(1).integers(0, 255, (5, 48, 24, 3), dtype=np.uint8))
    assert deck.net.best(rows)[1].tolist() == loaded.net.best(rows)[1].tolist()  # the same heads
    with np.load(path) as data:  # the file names the shipped trunk and holds the deck's own heads
        assert json.loads(str(data["meta"]))["trunk"] == TRUNK
        assert any(name.startswith("member1_") for name in data.files)


def test_enrollment_learns_heads_on_the_shipped_trunk(kennard_dir: Path, tmp_path: Path) -> None:
    enrolled = enroll(kennard_dir, members=1)
    assert enrolled.net.trunk.path == bundled_trunk(TRUNK) and len(enrolled.net.members) == 1
    assert enrolled.check["index_windows"] > 200 and 0.0 <= enrolled.check["named_wrong"] <= 0.02
    assert enrolled.check["named_right"] > 0.6
    enrolled.save(tmp_path / "deck.npz")
    assert DeckModel.load(tmp_path / "deck.npz").window == enrolled.window


def test_enrolling_without_the_shipped_trunk_says_so(
    kennard_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deck_module, "bundled_trunk", lambda name: tmp_path / f"{name}.onnx")
    missing = r"^the index trunk index-cnn-1 is not installed \("
    with pytest.raises(DeckFileError, match=missing):
        enroll(kennard_dir)


def test_a_deck_file_naming_a_trunk_not_installed_is_refused(deck: DeckModel, tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    deck.save(path)
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        arrays = {name: data[name] for name in data.files if name != "meta"}
    other = json.dumps(meta | {"trunk": "index-cnn-0"})
    np.savez(path, meta=np.array(other), **arrays)
    refusal = r"deck\.npz: the index trunk index-cnn-0 is not installed"
    with pytest.raises(DeckFileError, match=refusal) as refused:
        DeckModel.load(path)
    assert "\n" not in str(refused.value)


def test_a_deck_file_is_written_under_exactly_the_name_given(deck: DeckModel, tmp_path: Path) -> None:
    path = tmp_path / "house-deck"  # no suffix: numpy alone would have written house-deck.npz
    deck.save(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["house-deck"]
    assert DeckModel.load(path).name == deck.name


def test_a_deck_file_of_the_older_format_is_refused_and_says_so(deck: DeckModel, tmp_path: Path) -> None:
    path = tmp_path / "old.npz"
    # A deck of per-deck networks, before decks named the shipped classifier.
    np.savez(path, meta=np.array('{"format": 3, "name": "x"}'), member0_net_mean=np.zeros(3))
    with pytest.raises(DeckFileError) as refused:
        DeckModel.load(path)
    message = str(refused.value)
    assert "\n" not in message
    assert f"{path}: deck file format 3, this code reads format {DECK_FORMAT}" in message
    assert f"dealerassist vision enroll CARD_FOLDER --out {path}" in message


def test_a_file_that_is_not_a_deck_is_refused_with_its_name(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.npz"
    bogus.write_bytes(b"not a deck")
    with pytest.raises(DeckFileError, match=r"bogus\.npz: not a deck file") as refused:
        DeckModel.load(bogus)
    assert "pickle" not in str(refused.value)  # numpy's advice to load it unsafely is not passed on
    with pytest.raises(DeckFileError, match=r"nope\.npz: no such deck file"):
        DeckModel.load(tmp_path / "nope.npz")


def _faces(folder: Path) -> dict[str, np.ndarray]:
    return {card.code: load_card_image(folder / f"{card.code}.png") for card in FULL_DECK}


def test_cards_whose_index_runs_into_the_pips_leave_its_place_to_the_others(kennard_dir: Path) -> None:
    faces = _faces(kennard_dir)
    clear = index_place(kennard_dir, faces)
    assert clear.not_found == ()
    crowded = dict(faces, **{code: ink_into_the_pips(faces[code]) for code in ("4C", "8H", "KS")})
    place = index_place(kennard_dir, crowded)
    assert set(place.not_found) == {"4C", "8H", "KS"}
    assert place.rank_box == pytest.approx(clear.rank_box) and place.window == clear.window


def test_a_folder_where_few_cards_show_an_index_is_refused_naming_them(kennard_dir: Path) -> None:
    faces = _faces(kennard_dir)
    blotted = list(faces)[: 53 - MIN_INDEXES_FOUND]  # one card more than the rest can stand for
    crowded = dict(faces, **{code: ink_into_the_pips(faces[code]) for code in blotted})
    with pytest.raises(DeckFileError, match=re.escape(f"of {len(blotted)} of 52 cards ({blotted[0]}.png, ")):
        index_place(kennard_dir, crowded)
    one_back = dict(crowded, **{blotted[0]: faces[blotted[0]]})
    assert len(index_place(kennard_dir, one_back).not_found) == 52 - MIN_INDEXES_FOUND


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
