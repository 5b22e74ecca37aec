"""Where a fan's middle card is looked for between its neighbours, and when a name found there stands."""

from __future__ import annotations

import numpy as np
import pytest

from dealerassist.vision.fans import (
    ALONG,
    HALF,
    QUARTER,
    THIRD,
    Stretches,
    from_the_far_end,
    middle_cards,
    stretches,
)

HEIGHT, WIDTH = 120.0, 84.0


def _card(corner: tuple[float, float], turn: float = 0.0, height: float = HEIGHT) -> np.ndarray:
    """An upright card's quad as the reader outlines a named one: index corner first, then across."""
    rad = np.radians(turn)
    across, down = np.array([np.cos(rad), np.sin(rad)]), np.array([-np.sin(rad), np.cos(rad)])
    width = height * WIDTH / HEIGHT
    start = np.array(corner, float)
    return np.array(
        [start, start + across * width, start + across * width + down * height, start + down * height]
    )


def _windows_from(found: Stretches, start: np.ndarray, step: np.ndarray) -> np.ndarray:
    """The stretch whose windows run from ``start`` along ``step`` (the neighbours' corners apart)."""
    expected = start + np.array(ALONG)[:, None] * step
    (stretch,) = {
        s for s in found.stretch.tolist() if np.allclose(found.points[found.stretch == s], expected)
    }
    return found.stretch == stretch


def test_the_windows_lie_on_the_lines_between_two_neighbours_index_corners() -> None:
    low, high = _card((100, 100)), _card((100 + 0.9 * WIDTH, 106))
    found = stretches([low, high])
    # Either card may lie on top: the lines through both pairs of index corners are looked along.
    assert len(found.sizes) == 2 * len(ALONG) and set(found.stretch.tolist()) == {0, 1}
    top = _windows_from(found, low[0], high[0] - low[0])
    assert np.allclose(found.x_axes[top], [1, 0]) and np.allclose(found.y_axes[top], [0, 1])
    bottom = _windows_from(found, high[2], low[2] - high[2])
    assert np.allclose(found.x_axes[bottom], [-1, 0]) and np.allclose(found.y_axes[bottom], [0, -1])
    assert np.allclose(found.sizes, HEIGHT)


def test_two_hidden_cards_are_looked_for_a_third_of_the_way_from_either_neighbour() -> None:
    low, high = _card((100, 100)), _card((100 + 1.5 * WIDTH, 103))
    found = stretches([low, high])
    step = high[0] - low[0]
    # Each hidden card's windows are a stretch of their own, on both lines between index corners;
    # so far apart, three hidden cards are looked for too.
    three = 2 * len(QUARTER) + len(HALF)
    assert len(found.sizes) == 2 * (2 * len(THIRD) + three) and len(set(found.stretch.tolist())) == 10
    for shares in (THIRD, from_the_far_end(THIRD)):
        _one_stretch_at(found, low[0], step, shares)
    # Where a step of one card or of two could part them, both are looked at.
    assert len(stretches([low, _card((100 + 1.1 * WIDTH, 100))]).sizes) == 2 * (len(ALONG) + 2 * len(THIRD))


def _one_stretch_at(found: Stretches, start: np.ndarray, step: np.ndarray, shares: tuple[float, ...]) -> None:
    """Windows at these shares of the way from ``start`` along ``step`` are one stretch, alone."""
    expected = start + np.array(shares)[:, None] * step
    place = np.isclose(found.points[:, None], expected).all(axis=2).any(axis=1)
    assert place.sum() == len(shares) and len(set(found.stretch[place].tolist())) == 1
    assert not (np.isin(found.stretch, found.stretch[place]) & ~place).any()


def test_three_hidden_cards_are_looked_for_a_quarter_half_and_three_quarters_of_the_way() -> None:
    low, high = _card((100, 100)), _card((100 + 2.0 * WIDTH, 104))
    found = stretches([low, high])
    step = high[0] - low[0]
    assert len(found.sizes) == 2 * (2 * len(QUARTER) + len(HALF)) and len(set(found.stretch.tolist())) == 6
    for shares in (QUARTER, HALF, from_the_far_end(QUARTER)):
        _one_stretch_at(found, low[0], step, shares)
    assert not np.isclose(found.points, low[0] + THIRD[2] * step).all(axis=1).any()
    # One of the three seen leaves the others to the seen card and the far neighbour.
    seen = _card((100 + 0.5 * WIDTH, 101))
    assert np.array_equal(stretches([low, seen, high]).points, stretches([seen, high]).points)


def test_a_spread_of_five_measured_short_by_its_far_ends_grown_corner_is_looked_at_for_three() -> None:
    # A spread of five shown narrower than the deck's aspect, its far end's index corner grown short
    # from its far print: its ends 1.2 widths apart, where one or two hidden cards are looked for too.
    low, high = _card((100, 100)), _card((100 + 1.2 * WIDTH, 102))
    found = stretches([low, high])
    assert len(found.sizes) == 2 * (len(ALONG) + 2 * len(THIRD) + 2 * len(QUARTER) + len(HALF))
    for shares in (QUARTER, from_the_far_end(QUARTER)):  # half way is one hidden card's place too
        _one_stretch_at(found, low[0], high[0] - low[0], shares)


def test_two_hidden_cards_of_which_one_is_seen_leave_the_other_to_its_own_neighbours() -> None:
    low, seen, high = (_card((100 + along * WIDTH, 100)) for along in (0.0, 0.55, 1.4))
    found = stretches([low, seen, high])
    # The seen card and the far neighbour hide one card between them; the wider stretch is taken.
    assert len(found.sizes) == 2 * len(ALONG)
    _windows_from(found, seen[0], high[0] - seen[0])


def test_a_fan_turned_half_round_is_looked_at_the_same_way() -> None:
    low, high = _card((500, 400), 180.0), _card((500 - 0.9 * WIDTH, 400), 180.0)
    found = stretches([low, high])
    top = _windows_from(found, low[0], high[0] - low[0])
    assert np.allclose(found.x_axes[top], [-1, 0]) and np.allclose(found.y_axes[top], [0, -1])
    _windows_from(found, high[2], low[2] - high[2])


def test_a_back_grown_along_its_long_edge_offers_the_same_corners_as_a_face() -> None:
    face = _card((100, 100))
    back = np.roll(face, 1, axis=0)  # the same card, its quad started at another corner
    low = stretches([face, _card((100 + 0.9 * WIDTH, 100))])
    assert np.allclose(stretches([back, _card((100 + 0.9 * WIDTH, 100))]).points, low.points)


@pytest.mark.parametrize(
    "high",
    [
        _card((100 + 0.9 * WIDTH, 100), turn=15.0),  # turned another way
        _card((100 + 0.9 * WIDTH, 100), height=1.4 * HEIGHT),  # another size
        _card((100 + 0.9 * WIDTH, 100), height=HEIGHT / 1.4),  # measured from either card
        _card((100 + 0.4 * WIDTH, 100)),  # one step of a fan: no card between
        _card((100 + 2.7 * WIDTH, 100)),  # apart: more than four steps of a fan
        _card((100 + 0.9 * WIDTH, 100 + 0.4 * HEIGHT)),  # far off the line
    ],
)
def test_cards_that_cannot_hide_one_between_them_get_no_windows(high: np.ndarray) -> None:
    assert len(stretches([_card((100, 100)), high]).sizes) == 0


def test_a_fan_whose_middle_card_is_seen_gets_no_windows() -> None:
    low, middle, high = (_card((100 + step * 0.45 * WIDTH, 100 + step * 5)) for step in range(3))
    assert len(stretches([low, high]).sizes) == 2 * len(ALONG)
    assert len(stretches([low, middle, high]).sizes) == 0
    # A card elsewhere, or turned another way at that place, leaves the stretch to be looked at.
    across = _card((100 + 0.45 * WIDTH, 105), turn=90.0)
    assert len(stretches([low, across, high]).sizes) == 2 * len(ALONG)


def test_a_spread_stepped_down_at_every_card_is_allowed_the_step_of_each_hidden_card() -> None:
    # Each card lies an eighth of a height below the one before: the ends of a spread of five are
    # half a height apart, too far off for one hidden card but within a step's reach for three.
    low, high = _card((100, 100)), _card((100 + 2.0 * WIDTH, 100 + 0.5 * HEIGHT))
    found = stretches([low, high])
    assert len(found.sizes) == 2 * (2 * len(QUARTER) + len(HALF))
    _one_stretch_at(found, low[0], high[0] - low[0], HALF)
    assert len(stretches([low, _card((100 + 0.9 * WIDTH, 100 + 0.5 * HEIGHT))]).sizes) == 0


def _stretch_reads(names: list[str]) -> Stretches:
    count = len(names)
    return Stretches(
        np.zeros((count, 2)),
        np.tile([1.0, 0.0], (count, 1)),
        np.tile([0.0, 1.0], (count, 1)),
        np.full(count, HEIGHT),
        np.zeros(count, int),
    )


def test_two_windows_sure_of_one_name_name_the_middle_card_at_the_weaker() -> None:
    names = ["7S", "7S", "7S", "2D", "7S", "7S", "7S"]
    sure = np.array([0.2, 0.95, 0.99, 0.97, 0.5, 0.1, 0.0])
    assert middle_cards(_stretch_reads(names), names, sure, 0.9, set()) == {"7S": (2, pytest.approx(0.95))}
    # One sure window alone (the 2D) names nothing; nor does a name another card of the frame bears.
    assert middle_cards(_stretch_reads(names), names, sure, 0.9, {"7S"}) == {}
    assert middle_cards(_stretch_reads(names), names, sure, 0.96, set()) == {}
