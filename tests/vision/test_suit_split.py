"""The colour-split suit test and the second look at a rank that must back it."""

from __future__ import annotations

import numpy as np

from dealerassist.vision.deck import DeckModel
from dealerassist.vision.reader import CardReader, _colour_groups, _mass_centres


def test_black_suits_share_a_group_and_red_suits_share_another(deck: DeckModel) -> None:
    groups = sorted(sorted(g) for g in _colour_groups(deck.suit_colours))
    assert groups == [["C", "S"], ["D", "H"]]


def test_four_colour_inks_make_four_groups() -> None:
    colours = {
        "S": np.array([0.0, 0.0], np.float32),
        "H": np.array([60.0, 40.0], np.float32),
        "D": np.array([10.0, -50.0], np.float32),
        "C": np.array([-50.0, 40.0], np.float32),
    }
    assert sorted(sorted(g) for g in _colour_groups(colours)) == [["C"], ["D"], ["H"], ["S"]]


def test_an_enrolled_rank_agrees_with_itself_and_a_turned_six_is_no_six(
    deck: DeckModel, reader: CardReader
) -> None:
    sixes = deck.rank_features[deck.rank_labels == "6"]
    assert all(reader.rank_shapes.agrees(f, "6", "9") for f in sixes)
    turned = [f.reshape(24, 16)[::-1, ::-1].ravel().copy() for f in sixes]
    assert not any(reader.rank_shapes.agrees(f, "6", "9") for f in turned)


def test_mass_centre_follows_where_the_ink_is() -> None:
    image = np.zeros((24, 16), np.float32)
    image[:6, :] = 1.0
    top, bottom = _mass_centres(np.stack([image.ravel(), image[::-1].ravel()]))
    assert top[1] < 0.2 < 0.8 < bottom[1]
    assert abs(top[0] - 0.5) < 1e-6
