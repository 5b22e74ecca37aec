"""Where the closer look at a card seen but not read places its windows, and when a name stands."""

from __future__ import annotations

import numpy as np
import pytest

from dealerassist.vision.closer import (
    MOVES,
    NEEDED,
    SIZES,
    WINDOWS,
    closer_names,
    closer_windows,
)


def _upright(corner: tuple[float, float], height: float = 100.0, width: float = 70.0) -> np.ndarray:
    x, y = corner
    return np.array([[x, y], [x + width, y], [x + width, y + height], [x, y + height]], float)


def test_each_card_gets_a_grid_at_both_index_corners_turned_as_each_corner_is() -> None:
    grid = closer_windows([_upright((100, 200)), _upright((400, 200))])
    per_corner = len(MOVES) ** 2 * len(SIZES)
    assert WINDOWS == 2 * per_corner and len(grid.sizes) == 2 * WINDOWS
    first, far = slice(0, per_corner), slice(per_corner, WINDOWS)
    # The index corner: edges across and down as the quad runs; its windows within 4 % of the
    # card height either way of it, at 0.92-1.08 of the card's size.
    assert np.allclose(grid.x_axes[first], [1, 0]) and np.allclose(grid.y_axes[first], [0, 1])
    assert np.allclose(grid.points[first].min(axis=0), [96, 196])
    assert np.allclose(grid.points[first].max(axis=0), [104, 204])
    assert np.isclose(grid.sizes[first].min(), 92) and np.isclose(grid.sizes[first].max(), 108)
    # The other index corner, turned half round, and the window left in place at the card's size.
    assert np.allclose(grid.x_axes[far], [-1, 0]) and np.allclose(grid.y_axes[far], [0, -1])
    unmoved = (np.hypot(*(grid.points[far] - [170, 300]).T) < 1e-9) & np.isclose(grid.sizes[far], 100)
    assert unmoved.sum() == 1
    # The second card's windows come after the first's.
    assert np.allclose(grid.points[WINDOWS : WINDOWS + per_corner].mean(axis=0), [400, 200])


def test_no_card_no_windows() -> None:
    assert len(closer_windows([]).sizes) == 0


def _reads(votes: dict[str, int], sure: float = 0.95, rest: float = 0.2) -> tuple[list[str], np.ndarray]:
    """One card's ``WINDOWS`` reads: ``votes`` windows per name at ``sure``, the rest unsure."""
    names, sure_list = [], []
    for name, count in votes.items():
        names += [name] * count
        sure_list += [sure - 0.001 * k for k in range(count)]
    names += ["2C"] * (WINDOWS - len(names))
    sure_list += [rest] * (WINDOWS - len(sure_list))
    return names, np.array(sure_list)


@pytest.mark.parametrize(
    ("votes", "named", "expected"),
    [
        ({"7S": NEEDED}, set(), "7S"),
        ({"7S": NEEDED - 1}, set(), None),  # too few windows
        ({"7S": 12, "7C": 3}, set(), "7S"),  # a rival in a quarter as many windows is outvoted
        ({"7S": 12, "7C": 4}, set(), None),  # ... in more, the card stays unread
        ({"7S": 8}, {"7S"}, None),  # another card of the frame bears the name already
        ({}, set(), None),
    ],
)
def test_a_name_stands_when_enough_windows_read_it_surely_and_rivals_are_few(
    votes: dict[str, int], named: set[str], expected: str | None
) -> None:
    names, sure = _reads(votes)
    (read,) = closer_names(names, sure, 0.9, set(named))
    if expected is None:
        assert read is None
    else:
        assert read is not None and read[0] == expected
        assert read[1] == pytest.approx(0.95 - 0.001 * (NEEDED - 1))  # the NEEDED-th surest window


def test_reads_under_the_accept_level_are_no_votes() -> None:
    names, sure = _reads({"7S": 20}, sure=0.85)
    assert closer_names(names, sure, 0.9, set()) == [None]


def test_a_name_given_to_one_card_is_not_given_to_the_next() -> None:
    first, sure_first = _reads({"7S": 10})
    second, sure_second = _reads({"7S": 20})
    named: set[str] = set()
    reads = closer_names(first + second, np.concatenate([sure_first, sure_second]), 0.9, named)
    assert [r and r[0] for r in reads] == ["7S", None] and named == {"7S"}


def test_no_windows_no_names() -> None:
    assert closer_names([], np.zeros(0), 0.9, set()) == []
