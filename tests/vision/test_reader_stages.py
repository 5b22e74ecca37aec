"""Each stage after the first look, in the whole reader, on cards drawn to a known answer.

The cards are drawn white on felt with a plain index (a bar over a block) at both index corners,
and the classifier is ``KnownReads``: it names a card only where the test says a window shows it.
Each test draws the geometry that makes one stage's work certain (a print off its corner by a
known offset, a corner whose every size guess is far off, a fan's hidden middle card, a corner
that shows an index the first look cannot name), has the classifier name the card only at the
window that stage must place, and reads the frame with the stage switched off (the card is not
named) and on (it is named, where it lies).
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from dealerassist.vision import amend, second_look
from dealerassist.vision import fans as fans_module
from dealerassist.vision.candidates import OUTLINE, Candidate, find_candidates
from dealerassist.vision.deck import DeckModel
from dealerassist.vision.index_features import ink_cell
from dealerassist.vision.index_window import sampling_image
from dealerassist.vision.reader import CardReader

from .known_reads import Shown, known_reader

Turn = tuple[tuple[float, float], tuple[float, float]]  # a corner's across and down edges

HEIGHT = 150.0
UPRIGHT: Turn = ((1.0, 0.0), (0.0, 1.0))  # a card's top-left index corner: across, down
HALF_ROUND: Turn = ((-1.0, 0.0), (0.0, -1.0))  # its bottom-right one
# The index as drawn: a rank bar and a suit block, (across, down) spans in card heights.
GLYPHS = (((0.045, 0.085), (0.05, 0.13)), ((0.05, 0.08), (0.15, 0.2)))


def _felt() -> np.ndarray:
    frame = np.empty((720, 1280, 3), np.uint8)
    frame[:] = (40, 110, 30)
    return frame


def _fill(frame: np.ndarray, quad: np.ndarray, colour: tuple[int, int, int]) -> None:
    cv2.fillPoly(frame, [np.round(quad * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)


def _card(
    frame: np.ndarray,
    corner: tuple[float, float],
    aspect: float,
    moved: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """A card drawn upright with its top-left corner at ``corner``, each index printed ``moved``
    (across, down) pixels from where an index prints; the card's quad."""
    start = np.array(corner, float)
    width = HEIGHT / aspect
    across, down = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    quad = start + np.array([np.zeros(2), width * across, width * across + HEIGHT * down, HEIGHT * down])
    _fill(frame, quad, (235, 235, 235))
    for index, turn in ((quad[0], 1.0), (quad[2], -1.0)):
        at = index + turn * (moved[0] * across + moved[1] * down)
        for (a0, a1), (d0, d1) in GLYPHS:
            box = [
                at + turn * HEIGHT * (a * across + d * down)
                for a, d in ((a0, d0), (a1, d0), (a1, d1), (a0, d1))
            ]
            _fill(frame, np.array(box), (30, 30, 30))
    return quad


def _found(frame: np.ndarray, deck: DeckModel, drawn: np.ndarray, turn: Turn = UPRIGHT) -> Candidate:
    """The outline corner the reader finds nearest ``drawn``, its edges turned as ``turn``."""
    found = find_candidates(sampling_image(frame), deck.aspect, deck.rank_box, deck.window).candidates
    turned = [
        c
        for c in found
        if c.source == OUTLINE and c.corner.x_axis @ turn[0] > 0.99 and c.corner.y_axis @ turn[1] > 0.99
    ]
    return min(turned, key=lambda c: float(np.hypot(*(c.corner.point - drawn))))


def _outline_corner(
    frame: np.ndarray, deck: DeckModel, drawn: np.ndarray, turn: Turn = UPRIGHT
) -> np.ndarray:
    """Where the reader finds the outline corner drawn at ``drawn``, turned as ``turn``."""
    point = _found(frame, deck, drawn, turn).corner.point
    assert np.hypot(*(point - drawn)) < 1.5, (drawn, point)
    return point


def _shown(card: str, point: np.ndarray, turn: Turn = UPRIGHT, **how: float) -> Shown:
    return Shown(card, (float(point[0]), float(point[1])), turn[0], turn[1], HEIGHT, **how)


def _read(reader: CardReader, frame: np.ndarray) -> dict[str, np.ndarray]:
    """The cards named, each with its outline's centre."""
    return {s.card: s.centre for s in reader.read(frame) if s.card}


def _named_by_the_stage_alone(
    reader: CardReader,
    frame: np.ndarray,
    monkeypatch: pytest.MonkeyPatch,
    switch_off: Callable[[pytest.MonkeyPatch], None],
    card: str,
    lies: np.ndarray,
) -> dict[str, np.ndarray]:
    """``card`` is not named with the stage switched off, and is named with it on, outlined where it
    lies (``lies``: its drawn quad), nothing else named only by the stage. The cards named."""
    with monkeypatch.context() as off:
        switch_off(off)
        without = _read(reader, frame)
    found = _read(reader, frame)
    assert card not in without and set(found) == {*without, card}, (without, found)
    assert np.hypot(*(found[card] - lies.mean(axis=0))) < 0.1 * np.hypot(*(lies[2] - lies[0]))
    return found


def _replaced(target: object, name: str, value: object) -> Callable[[pytest.MonkeyPatch], None]:
    """A switch that puts ``value`` for ``target``'s ``name``."""
    return lambda off: off.setattr(target, name, value)


def _no(step: str) -> Callable[[pytest.MonkeyPatch], None]:
    """Switch off the reader's second-look ``step``: it places no windows."""
    return _replaced(amend, step, lambda *_: second_look.no_windows())


# No closer look at a card seen but not read.
_without_closer_look = _replaced(CardReader, "_closer_look", lambda _self, _bgra, found: found)


def test_an_unsure_read_is_named_by_the_windows_around_it(deck, monkeypatch: pytest.MonkeyPatch) -> None:
    # The print lies a step of the windows around off the corner found: there the first window
    # reads the card unsure, the windows a step away surely.
    frame = _felt()
    quad = _card(frame, (600, 250), deck.aspect)
    corner = _outline_corner(frame, deck, quad[0])
    step = max(1.0, second_look.AROUND_STEP * HEIGHT)
    shown = [
        _shown("7H", corner, sure=0.7),
        _shown("7H", corner, sure=0.95, beyond=0.5, reach=1.5 * step, resize=0.05),
    ]
    reader = known_reader(deck, shown, monkeypatch)
    _without_closer_look(monkeypatch)  # its grid would name it too
    _named_by_the_stage_alone(reader, frame, monkeypatch, _no("around_unsure_reads"), "7H", quad)


def _beside_a_named_card(
    deck: DeckModel, moved: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A named card and, a little to its right, turned alike, a card whose prints lie ``moved``
    (across, down) pixels off where an index prints: the frame, the second card's quad, the named
    card's corner and where the second card's moved print's corner lies."""
    frame = _felt()
    named = _card(frame, (300, 250), deck.aspect)
    quad = _card(frame, (300 + HEIGHT / deck.aspect + 30, 250), deck.aspect, moved)
    corner = _outline_corner(frame, deck, quad[0])
    return frame, quad, _outline_corner(frame, deck, named[0]), corner + moved


@pytest.mark.parametrize(("across", "down"), [(0, 3), (2, 0), (-1, 2), (0, -2)])
def test_a_corner_beside_a_named_one_is_moved_to_its_print(
    deck, monkeypatch: pytest.MonkeyPatch, across: int, down: int
) -> None:
    # The print lies whole ink cells off the corner found; only a window moved onto it names the card.
    cell = np.array(ink_cell(deck.window)) * HEIGHT
    frame, quad, named, printed = _beside_a_named_card(deck, (across * cell[0], down * cell[1]))
    shown = [_shown("KS", named), _shown("QS", printed, reach=0.5 * cell.min())]
    reader = known_reader(deck, shown, monkeypatch)
    _named_by_the_stage_alone(reader, frame, monkeypatch, _no("at_the_print"), "QS", quad)


def test_an_unsure_read_at_the_print_is_named_by_the_windows_around_it(
    deck, monkeypatch: pytest.MonkeyPatch
) -> None:
    cell = np.array(ink_cell(deck.window)) * HEIGHT
    frame, quad, named, printed = _beside_a_named_card(deck, (0.0, 3 * cell[1]))
    step = max(1.0, second_look.AROUND_STEP * HEIGHT)
    shown = [
        _shown("KS", named),
        _shown("QS", printed, sure=0.7, reach=0.5 * cell.min()),
        _shown("QS", printed, beyond=0.5 * cell.min(), reach=1.5 * step, resize=0.05),
    ]
    reader = known_reader(deck, shown, monkeypatch)
    _named_by_the_stage_alone(reader, frame, monkeypatch, _no("around_unsure_new_names"), "QS", quad)


def test_a_corner_whose_sizes_are_all_off_is_read_at_the_named_cards_size(
    deck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The card's paper runs on half a card along both its edges (it lies flush on a larger sheet):
    # every size its outline suggests is half as large again. Three cards named farther off than
    # the print step reaches give the size it is read at.
    frame = _felt()
    width = HEIGHT / deck.aspect
    _fill(
        frame,
        np.array([[600, 100], [600 + 1.5 * width, 100], [600 + 1.5 * width, 325], [600, 325]]),
        (235, 235, 235),
    )
    quad = _card(frame, (600, 100), deck.aspect)
    named = [_card(frame, (x, 480), deck.aspect) for x in (150, 700, 1000)]
    shown = [
        _shown(code, _outline_corner(frame, deck, q[0]))
        for code, q in zip(("2D", "3D", "4D"), named, strict=True)
    ]
    shown.append(_shown("4C", _outline_corner(frame, deck, quad[0])))
    reader = known_reader(deck, shown, monkeypatch)
    _named_by_the_stage_alone(reader, frame, monkeypatch, _no("at_named_size"), "4C", quad)


def test_unsure_reads_that_agree_at_a_cards_two_prints_name_it(deck, monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _felt()
    quad = _card(frame, (600, 250), deck.aspect)
    unsure = {"sure": 0.7, "reach": 4.0, "resize": 0.05}  # the windows around read it no surer
    shown = [
        _shown("TD", _outline_corner(frame, deck, quad[0]), **unsure),
        _shown("TD", _outline_corner(frame, deck, quad[2], HALF_ROUND), HALF_ROUND, **unsure),
    ]
    reader = known_reader(deck, shown, monkeypatch)
    off = _replaced(amend, "name_at_both_prints", lambda *_: [])
    _named_by_the_stage_alone(reader, frame, monkeypatch, off, "TD", quad)


def _fan(deck: DeckModel, count: int, step: float = 0.45) -> tuple[np.ndarray, list[np.ndarray]]:
    """``count`` cards fanned left to right, each on the one before, ``step`` of a card width and
    6 px down a step: only the first card's top-left corner and the last one's bottom-right corner
    are corners of the outline. The frame and the cards' quads."""
    frame = _felt()
    along = step * HEIGHT / deck.aspect
    quads = [_card(frame, (300 + k * along, 250 + 6 * k), deck.aspect) for k in range(count)]
    return frame, quads


def _fan_ends(
    frame: np.ndarray, deck: DeckModel, quads: list[np.ndarray], last: str, **how: float
) -> list[Shown]:
    """The fan's first card (2C) named at its index corner, the last (``last``) at its far one."""
    return [
        _shown("2C", _outline_corner(frame, deck, quads[0][0])),
        _shown(last, _outline_corner(frame, deck, quads[-1][2], HALF_ROUND), HALF_ROUND, **how),
    ]


@pytest.mark.parametrize(
    ("count", "step", "hidden"),
    [
        (3, 0.45, 1),  # one hidden card: half way between its neighbours
        (4, 0.45, 1),  # two: a third of the way from either neighbour
        (4, 0.45, 2),
        (5, 0.3, 2),  # three, the ends 1.2 card widths apart: half way ...
        (5, 0.3, 3),  # ... and a quarter of the way from the far neighbour
    ],
)
def test_a_fans_hidden_card_is_read_between_its_neighbours(
    deck, monkeypatch: pytest.MonkeyPatch, count: int, step: float, hidden: int
) -> None:
    # The hidden card's corner lies on the card below it, no corner of the outline: only the
    # windows along the line between its neighbours' index corners lie on its print.
    frame, quads = _fan(deck, count, step=step)
    shown = [*_fan_ends(frame, deck, quads, "KS"), _shown("8D", quads[hidden][0], reach=4.5)]
    reader = known_reader(deck, shown, monkeypatch)
    off = _replaced(CardReader, "_fans_middle_cards", lambda _self, _bgra, merged: merged)
    _named_by_the_stage_alone(reader, frame, monkeypatch, off, "8D", quads[hidden])
    # The spread for as many hidden cards as lie between the ends is the one that names it.
    others = tuple(spread for spread in fans_module.SPREADS if len(spread.hidden) != count - 2)
    off = _replaced(fans_module, "SPREADS", others)
    _named_by_the_stage_alone(reader, frame, monkeypatch, off, "8D", quads[hidden])


def _closer_only(corner: np.ndarray, card: str, index: float, turn: Turn = UPRIGHT) -> list[Shown]:
    """A corner whose own window shows an index (``index`` sure of one) it cannot name, its print
    lying off it by more than the windows around reach: of the closer look's grid, its windows
    moved 4 % of the card height name ``card``."""
    around = 1.5 * max(1.0, second_look.AROUND_STEP * HEIGHT)
    return [
        _shown(card, corner, turn, sure=0.1, index=index, reach=around),
        _shown(card, corner, turn, beyond=around, reach=0.06 * HEIGHT, resize=0.1),
    ]


def test_a_card_seen_but_not_read_is_named_by_a_closer_look(deck, monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _felt()
    quad = _card(frame, (600, 250), deck.aspect)
    reader = known_reader(deck, _closer_only(_outline_corner(frame, deck, quad[0]), "3D", 0.9), monkeypatch)
    _named_by_the_stage_alone(reader, frame, monkeypatch, _without_closer_look, "3D", quad)
