"""Training windows: what each rendered or mined window is labelled, since a wrong label teaches a
misread."""

from __future__ import annotations

from collections import Counter

import numpy as np

from dealerassist.vision.index_features import feature_size
from dealerassist.vision.index_window import IndexWindow
from dealerassist.vision.indexnet import BACK, NONE
from dealerassist.vision.scenes import SceneCard
from dealerassist.vision.training import _labels, _spots, render_samples, scene_samples

H = 140.0
QUAD = np.array([[100.0, 100.0], [200.0, 100.0], [200.0, 240.0], [100.0, 240.0]])  # TL, TR, BR, BL


def _label(x: float, y: float, x_axis: tuple[float, float], height: float, card: SceneCard) -> str | None:
    """The label of one candidate corner at (x, y) with its x axis, sampled at ``height``."""
    return _labels(np.array([[x, y]]), np.array([x_axis], float), np.array([height]), [card])[0]


def test_a_candidate_on_a_visible_index_corner_is_that_card() -> None:
    card = SceneCard("QH", True, QUAD, True, (True, True))
    assert _label(102, 101, (1, 0), H, card) == "QH"  # top-left, a little off
    assert _label(199, 239, (-1, 0), H * 1.1, card) == "QH"  # bottom-right
    assert _label(101, 100, (1, 0), H * 1.2, card) is None  # size a little off: left out


def test_an_index_corner_sampled_at_a_clearly_wrong_size_is_nothing() -> None:
    """The reader samples every size a corner's edges suggest; at the wrong one the index shows
    shrunk or cut, and a window never taught what that is gets read as some card."""
    card = SceneCard("QH", True, QUAD, True, (True, True))
    assert _label(101, 100, (1, 0), H * 1.4, card) == NONE
    assert _label(199, 239, (-1, 0), H / 1.4, card) == NONE


def test_each_rendered_face_gives_corners_at_a_wrong_size_as_nothing() -> None:
    """Its index sampled far too large or too small, and a plain corner sampled far too large (as
    from a whole row of cards taken for one card)."""
    plain = (QUAD[1], QUAD[3])
    for seed in range(8):
        face = _spots(QUAD, H, H / 100.0, False, "QH", 2, np.random.default_rng(seed))
        back = _spots(QUAD, H, H / 100.0, False, BACK, 2, np.random.default_rng(seed))
        assert len(face[4]) == len(back[4]) + 2  # a back shows the same at every corner and size
        points, x_axes, _, sizes, labels = face
        index_point, index_axis, index_size, index_label = points[-2], x_axes[-2], sizes[-2], labels[-2]
        point, size, label = points[-1], sizes[-1], labels[-1]
        assert index_label == label == NONE
        assert np.linalg.norm(index_point - QUAD[0]) < 0.07 * index_size
        assert index_axis @ np.array([1.0, 0.0]) > 0.99
        assert abs(np.log(index_size / H)) > np.log(1.1)
        assert min(np.linalg.norm(point - p) for p in plain) < 0.07 * size  # placed off by its own size
        assert size > 1.1 * H


def test_a_hidden_index_corner_is_left_out_and_other_corners_are_nothing() -> None:
    card = SceneCard("QH", True, QUAD, True, (True, False))  # the bottom-right index is covered
    assert _label(200, 240, (-1, 0), H, card) is None
    assert _label(200, 100, (0, 1), H, card) == NONE  # top-right: no index there
    assert _label(100, 100, (0, 1), H, card) == NONE  # the index corner read sideways
    assert _label(150, 170, (1, 0), H, card) == NONE  # the middle of the card
    assert _label(108, 100, (1, 0), H, card) is None  # near the index: not clearly either


def test_every_corner_of_a_face_down_card_is_a_back() -> None:
    card = SceneCard("2C", False, QUAD, True, (True, True))
    assert _label(200, 100, (0, 1), H, card) == BACK
    assert _label(100, 240, (0, -1), H, card) == BACK


def test_rendered_samples_label_both_kinds_and_every_card(design) -> None:
    cards = {code: image for code, image in design.items() if code != "back"}
    window = IndexWindow(0.125, 0.25)
    features, labels = render_samples(design, window, np.random.default_rng(1), 6, looks=1)
    counts = Counter(labels.tolist())
    assert features.shape == (len(labels), feature_size())
    assert set(cards) <= set(counts)  # every card has index windows
    assert counts[NONE] > counts["AS"]


def test_mined_samples_come_from_the_readers_candidates_on_whole_tables(design) -> None:
    features, labels = scene_samples(design, IndexWindow(0.125, 0.25), np.random.default_rng(2), 3)
    counts = Counter(labels.tolist())
    assert features.shape == (len(labels), feature_size())
    assert counts[NONE] > 0 and sum(v for k, v in counts.items() if k not in (NONE, BACK)) > 0
