"""The reader on hand-laid frames: reads what it can see, abstains otherwise, never guesses."""

from __future__ import annotations

import itertools
from dataclasses import replace

import cv2
import numpy as np
import pytest

from dealerassist.core.cards import FULL_DECK
from dealerassist.vision import amend, second_look
from dealerassist.vision import reader as reader_module
from dealerassist.vision.candidates import (
    INK,
    JUNCTION,
    OUTLINE,
    TRACED,
    Candidate,
    find_candidates,
)
from dealerassist.vision.card_corner import Corner, corner_arrays
from dealerassist.vision.index_window import sampling_image
from dealerassist.vision.merging import merge_sightings
from dealerassist.vision.print_match import PRINT_PAD, best_along, print_offsets
from dealerassist.vision.reader import CardReader, _first_look_sizes
from dealerassist.vision.sighting import CardSighting
from dealerassist.vision.thresholds import Thresholds

from .conftest import lay_cards
from .known_reads import KnownReads, Shown, reads_by_place


def _by_card(sightings):
    return {s.card: s for s in sightings if s.card}


def test_single_cards_at_any_rotation_are_read_with_their_outline(reader: CardReader, design) -> None:
    cards = [("AS", (200, 200), 0), ("TD", (500, 220), 35), ("QH", (800, 260), 170), ("7C", (1080, 420), -80)]
    frame = lay_cards(design, [(c, xy, a, True) for c, xy, a in cards])
    found = _by_card(reader.read(frame))
    assert set(found) == {"AS", "TD", "QH", "7C"}
    for code, (cx, cy), _ in cards:
        sighting = found[code]
        assert sighting.face_up and sighting.confidence >= reader.thresholds.accept
        assert np.linalg.norm(sighting.centre - [cx, cy]) < 15


@pytest.mark.parametrize("felt", [(40, 120, 30), (140, 60, 20), (30, 30, 150), (70, 70, 70), (20, 20, 20)])
def test_any_felt_colour(reader: CardReader, design, felt) -> None:
    frame = lay_cards(design, [("KD", (400, 360), 15, True), ("4S", (800, 360), -20, True)], felt=felt)
    assert set(_by_card(reader.read(frame))) == {"KD", "4S"}


def test_uneven_light_does_not_matter(reader: CardReader, design) -> None:
    frame = lay_cards(design, [("9H", (300, 360), 10, True), ("JC", (950, 360), -10, True)])
    ramp = np.linspace(0.45, 1.0, frame.shape[1], dtype=np.float32)[None, :, None]
    dimmed = np.clip(frame.astype(np.float32) * ramp, 0, 255).astype(np.uint8)
    assert set(_by_card(reader.read(dimmed))) == {"9H", "JC"}


def test_a_face_down_card_is_seen_but_never_named(reader: CardReader, design) -> None:
    frame = lay_cards(design, [("AH", (640, 360), 20, False)])
    found = reader.read(frame)
    assert found, "the back was not seen at all"
    assert all(s.card is None for s in found)
    assert any(not s.face_up for s in found)


def test_a_fan_reads_each_card_by_its_visible_index(reader: CardReader, design) -> None:
    # Three cards spread left to right, each covering the right half of the one below.
    cards = [("2C", (500, 360), 0, True), ("8D", (550, 372), 0, True), ("KS", (600, 384), 0, True)]
    found = _by_card(reader.read(lay_cards(design, cards)))
    assert set(found) == {"2C", "8D", "KS"}


@pytest.mark.parametrize("code", ["AS", "7H", "TC"])
def test_a_fanned_pair_of_one_code_is_read_as_two_cards(reader: CardReader, design, code: str) -> None:
    # A six-deck shoe or a Pairs & Up deck deals pairs: the camera must see both, or a hidden
    # twin turned face up beside its shown twin would look like the shown card alone.
    cards = [(code, (500, 360), 0, True), (code, (550, 372), 0, True), ("KD", (600, 384), 0, True)]
    found = [s.card for s in reader.read(lay_cards(design, cards))]
    assert sorted(c for c in found if c) == sorted([code, code, "KD"])


def test_touching_cards_are_read_separately(reader: CardReader, design) -> None:
    width = 150 * 300 / 420
    cards = [("3D", (500, 360), 0, True), ("6S", (500 + width + 1, 360), 0, True)]
    assert set(_by_card(reader.read(lay_cards(design, cards)))) == {"3D", "6S"}


def _around(print_map: np.ndarray, across: int, down: int) -> np.ndarray:
    """The ink around a window whose print lies moved by whole cells from where the map has it."""
    pad_across, pad_down = PRINT_PAD
    rows, cols = print_map.shape
    around = np.zeros((rows + 2 * pad_down, cols + 2 * pad_across), np.float32)
    top, left = pad_down + down, pad_across + across
    around[top : top + rows, left : left + cols] = print_map
    return around


def _index_print() -> np.ndarray:
    """A rank and a suit as blobs of ink, high in the window beside the corner, as an index prints."""
    print_map = np.zeros((16, 8), np.float32)
    print_map[1:6, 1:5] = 0.9
    print_map[7:10, 1:4] = 0.7
    return print_map


def test_where_a_print_lies_off_its_window_is_found_by_its_ink() -> None:
    moves = [(0, 0), (3, 0), (-6, 0), (0, 4), (0, 8), (0, -1), (2, 0), (0, -8)]
    found = print_offsets(np.stack([_around(_index_print(), a, d) for a, d in moves]), _index_print())
    assert [tuple(move) for move in found.astype(int).tolist()] == moves


def test_a_print_moved_along_both_edges_is_followed_along_each() -> None:
    found = print_offsets(_around(_index_print(), 2, 5)[None], _index_print())
    assert found.tolist() == [[2.0, 5.0]]


def test_a_print_beside_heavier_ink_is_found_by_its_shape_not_by_the_plain_match() -> None:
    # Another card's index (a narrower rank, a smaller suit) three cells down its window, and a
    # block of ink beside it as a neighbour's print or a court card's figure lies: the plain
    # match is drawn to the block, the zero-mean match follows the print's shape.
    other_index = np.zeros((16, 8), np.float32)
    other_index[1:6, 2:4] = 0.9
    other_index[7:9, 1:3] = 0.7
    around = _around(other_index, 0, 3)
    around[8:16, 2:6] = 1.0
    assert print_offsets(around[None], _index_print(), zero_mean=True).tolist() == [[0.0, 3.0]]
    assert print_offsets(around[None], _index_print()).tolist() != [[0.0, 3.0]]


@pytest.mark.parametrize(
    ("zero_mean", "method"), [(False, cv2.TM_CCORR_NORMED), (True, cv2.TM_CCOEFF_NORMED)]
)
def test_each_move_of_a_print_is_scored_as_opencv_scores_a_normalised_match(
    zero_mean: bool, method: int
) -> None:
    rng = np.random.default_rng(20261205)
    wanted = rng.random((16, 8), dtype=np.float32)
    around = rng.random((30, 32, 20), dtype=np.float32)
    around[:5] = 0.0  # windows with no ink at all: nothing to divide by
    pad_across, pad_down = PRINT_PAD
    start = np.stack(
        [rng.integers(-pad_across, pad_across + 1, 30), rng.integers(-pad_down, pad_down + 1, 30)], 1
    )
    for axis in (0, 1):
        best, match = best_along(around, wanted, start, axis, zero_mean)
        for n in range(len(around)):
            if axis == 0:
                strip, template, pad = around[n, start[n, 1] + pad_down :][:16], wanted, pad_across
            else:
                strip, template, pad = around[n, :, start[n, 0] + pad_across :][:, :8].T, wanted.T, pad_down
            if zero_mean and not strip.any():
                assert match[n] == 0.0  # no ink to follow: every move scores nothing
                continue
            scores = cv2.matchTemplate(np.ascontiguousarray(strip), template, method).ravel()
            # Both scores leave out the map's own norm (the zero-mean one, the norm of the map
            # less its mean), which is the same for every move.
            norm = np.linalg.norm(template - template.mean() if zero_mean else template)
            assert best[n] == int(np.argmax(scores)) - pad
            assert match[n] == pytest.approx(scores.max() * norm, rel=1e-5, abs=1e-6)


def test_junctions_and_traced_corners_are_read_at_their_first_size_others_at_all() -> None:
    corner = Corner(np.array([100.0, 100.0]), np.array([1.0, 0.0]), np.array([0.0, 1.0]), blob=0)
    for source in (JUNCTION, TRACED):
        assert _first_look_sizes(Candidate(corner, [80.0, 120.0], source)) == [80.0]
        assert _first_look_sizes(Candidate(corner, [120.0], source)) == [120.0]
    for source in (OUTLINE, INK):
        assert _first_look_sizes(Candidate(corner, [80.0, 120.0], source)) == [80.0, 120.0]


def _second_look(
    points: np.ndarray, x_axes: np.ndarray, y_axes: np.ndarray, sizes: list[float], cards: list[str] | None
) -> second_look.SecondLook:
    """Windows at these corners and sizes, read for ``cards`` (None: any card)."""
    return second_look.SecondLook(
        np.arange(len(points)), points, x_axes, y_axes, np.array(sizes), cards=cards
    )


def test_second_looks_read_together_read_each_step_as_alone(
    deck, design, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The steps' windows are read in two joint passes (one for the steps that ask for a card, one
    # for the rest): each step must still get its own rows' reads, in its own order. Every corner's
    # window reads a card and a level of its own, so a read given to another row shows.
    frame = lay_cards(design, [("AS", (400, 300), 0, True), ("9D", (800, 400), 30, True)])
    bgra = sampling_image(frame)
    geometry = find_candidates(bgra, deck.aspect, deck.rank_box, deck.window)
    points, x_axes, y_axes = corner_arrays([c.corner for c in geometry.candidates])
    sizes = [c.heights[0] for c in geometry.candidates]
    codes = [card.code for card in FULL_DECK]
    net = KnownReads(
        [
            Shown(codes[k % 52], tuple(points[k]), tuple(x_axes[k]), tuple(y_axes[k]), size, 0.5 + k / 200)
            for k, size in enumerate(sizes)
        ],
        reads_by_place(monkeypatch),
    )
    cut = [0, 5, 9, 9, 16, len(points)]
    assert len(points) > cut[-2] and len(points) < 100  # every step has rows; the levels stay below 1
    asked = [None, codes[5:9], None, ["KH"] * 7, None]  # the second step's cards are there
    look = replace(_look_at_a_junction_and_an_outline(), bgra=bgra)

    def steps() -> list[second_look.SecondLook]:
        return [
            _second_look(points[a:b], x_axes[a:b], y_axes[a:b], sizes[a:b], cards)
            for (a, b), cards in zip(itertools.pairwise(cut), asked, strict=True)
        ]

    together = steps()
    second_look.read_second_looks(look, together, net, deck.window, accept=0.9)
    for step in steps():
        second_look.read_second_looks(look, [step], net, deck.window, accept=0.9)
        joint = together.pop(0)
        assert np.array_equal(joint.probability, step.probability) and joint.names == step.names
        assert len(step.probability) == len(step.rows)
    named = _second_look(points, x_axes, y_axes, sizes, None)
    second_look.read_second_looks(look, [named], net, deck.window, accept=0.9)
    assert len(set(named.probability.tolist())) > len(points) // 2  # reads of their own: not a blank test
    asked_for = _second_look(points[5:9], x_axes[5:9], y_axes[5:9], sizes[5:9], codes[5:9])
    second_look.read_second_looks(look, [asked_for], net, deck.window, accept=0.9)
    assert asked_for.probability.tolist() == pytest.approx(named.probability[5:9].tolist())


def _look_at_a_junction_and_an_outline() -> second_look.FirstLook:
    """A first look at a junction (sizes 80 and 120, read at 80) and an outline corner (90)."""
    corner = Corner(np.array([100.0, 100.0]), np.array([1.0, 0.0]), np.array([0.0, 1.0]), blob=0)
    elsewhere = Corner(np.array([400.0, 100.0]), np.array([1.0, 0.0]), np.array([0.0, 1.0]), blob=1)
    candidates = [Candidate(corner, [80.0, 120.0], JUNCTION), Candidate(elsewhere, [90.0], OUTLINE)]
    return second_look.FirstLook(
        bgra=np.zeros((8, 8, 4), np.uint8),
        candidates=candidates,
        points=np.array([[100.0, 100.0], [400.0, 100.0]]),
        x_axes=np.array([[1.0, 0.0], [1.0, 0.0]]),
        y_axes=np.array([[0.0, 1.0], [0.0, 1.0]]),
        owner=np.array([0, 1]),
        heights=np.array([80.0, 90.0]),
        ink=np.zeros((2, 16, 8)),
        names=["7D", "KS"],
        probability=np.array([0.3, 0.99]),
        best=[0, 1],
    )


def _look_at_two_prints(second_name: str, second_at: tuple[float, float], second_turn: float, size: float):
    """A first look at a card of height 140 (aspect 1.4: 100 wide) whose index corner at (100, 100)
    reads 7D at 0.7, and at a second corner (a junction) turned ``second_turn`` degrees from it."""
    aspect = 1.4
    turn = np.deg2rad(second_turn)
    x_second = np.array([np.cos(turn), np.sin(turn)])
    y_second = np.array([-np.sin(turn), np.cos(turn)])
    first = Corner(np.array([100.0, 100.0]), np.array([1.0, 0.0]), np.array([0.0, 1.0]), blob=0)
    second = Corner(np.array(second_at), x_second, y_second, blob=0)
    look = second_look.FirstLook(
        bgra=np.zeros((8, 8, 4), np.uint8),
        candidates=[Candidate(first, [140.0], OUTLINE), Candidate(second, [size], JUNCTION)],
        points=np.array([first.point, second.point]),
        x_axes=np.array([first.x_axis, x_second]),
        y_axes=np.array([first.y_axis, y_second]),
        owner=np.array([0, 1]),
        heights=np.array([140.0, size]),
        ink=np.zeros((2, 16, 8)),
        names=["7D", second_name],
        probability=np.array([0.7, 0.65], np.float32),
        best=[0, 1],
    )
    return look, aspect


@pytest.mark.parametrize(
    ("second_name", "second_at", "second_turn", "size", "named"),
    [
        ("7D", (200.0, 240.0), 180.0, 140.0, True),  # the card's far corner, turned half round
        ("7D", (197.0, 236.0), 183.0, 150.0, True),  # a few pixels, degrees and 7 % of size off
        ("7H", (200.0, 240.0), 180.0, 140.0, False),  # another name
        ("7D", (200.0, 240.0), 0.0, 140.0, False),  # turned the same way: a fanned twin
        ("7D", (200.0, 260.0), 180.0, 140.0, False),  # 20 px (a seventh of the card) off
        ("7D", (200.0, 240.0), 180.0, 170.0, False),  # a card a fifth larger
    ],
)
def test_unsure_reads_of_one_name_at_a_cards_two_prints_name_it(
    second_name: str, second_at: tuple[float, float], second_turn: float, size: float, named: bool
) -> None:
    look, aspect = _look_at_two_prints(second_name, second_at, second_turn, size)
    raised = amend.name_at_both_prints(look, aspect, unsure=0.6, accept=0.9)
    assert raised == ([0, 1] if named else [])
    assert (look.probability >= 0.9).tolist() == [named, named]


def test_reads_below_the_unsure_level_name_nothing_at_both_prints() -> None:
    look, aspect = _look_at_two_prints("7D", (200.0, 240.0), 180.0, 140.0)
    assert amend.name_at_both_prints(look, aspect, unsure=0.68, accept=0.9) == []
    assert look.probability.tolist() == pytest.approx([0.7, 0.65])


def _look_beside_named_cards() -> second_look.FirstLook:
    """Two named cards, of sizes 100 and 110, and four unnamed corners near them: an outline corner
    whose guesses (150, 190) are all far off, one with a guess near (103), a junction far off (150),
    and a traced corner far off (60)."""
    turned = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    at = [(100.0, 100.0), (300.0, 100.0), (500.0, 100.0), (700.0, 100.0), (900.0, 100.0), (1100.0, 100.0)]
    sizes = [[100.0], [110.0], [150.0, 190.0], [103.0], [150.0], [60.0]]
    sources = [OUTLINE, OUTLINE, OUTLINE, OUTLINE, JUNCTION, TRACED]
    candidates = [
        Candidate(Corner(np.array(p), *turned, blob=i), h, source)
        for i, (p, h, source) in enumerate(zip(at, sizes, sources, strict=True))
    ]
    return second_look.FirstLook(
        bgra=np.zeros((8, 8, 4), np.uint8),
        candidates=candidates,
        points=np.array(at),
        x_axes=np.tile(turned[0], (6, 1)),
        y_axes=np.tile(turned[1], (6, 1)),
        owner=np.arange(6),
        heights=np.array([h[0] for h in sizes]),
        ink=np.zeros((6, 16, 8)),
        names=["KS", "4D", "7H", "7C", "2S", "QD"],
        probability=np.array([0.99, 0.97, 0.2, 0.1, 0.3, 0.0]),
        best=list(range(6)),
    )


def test_an_unnamed_corner_whose_sizes_are_all_off_is_read_at_the_named_cards_size() -> None:
    no_print = second_look.no_windows()
    chosen = amend.at_named_size(_look_beside_named_cards(), accept=0.9, printed=no_print)
    assert chosen.rows.tolist() == [2, 5]  # the junction and the corner with a near guess are left
    assert chosen.sizes.tolist() == [105.0, 105.0]  # the median of the named cards' sizes
    assert chosen.points.tolist() == [[500.0, 100.0], [1100.0, 100.0]] and chosen.cards is None
    none_named = amend.at_named_size(_look_beside_named_cards(), accept=1.0, printed=no_print)
    assert len(none_named.rows) == 0


@pytest.mark.parametrize(("source", "read"), [(OUTLINE, True), (INK, True), (JUNCTION, False)])
def test_which_corners_whose_sizes_are_all_off_are_read_at_the_named_cards_size(
    source: str, read: bool
) -> None:
    # An ink corner takes its one size from the outline edge it was found on, as an outline corner
    # takes its own; a junction's sizes are guesses at a corner, mostly
    # another card's edge.
    look = _look_beside_named_cards()
    look.candidates[2] = replace(look.candidates[2], source=source)
    none = second_look.no_windows()
    assert (2 in amend.at_named_size(look, accept=0.9, printed=none).rows.tolist()) == read


def test_a_size_guess_left_unread_does_not_keep_a_corner_from_the_named_size() -> None:
    look = _look_beside_named_cards()
    # The traced corner's second guess lies near the named cards' size (105), but the first look
    # reads a traced corner at its first guess only (60, far off).
    look.candidates[5] = replace(look.candidates[5], heights=[60.0, 104.0])
    none = second_look.no_windows()
    assert amend.at_named_size(look, accept=0.9, printed=none).rows.tolist() == [2, 5]


def test_a_corner_the_print_step_reads_in_place_is_not_read_again_at_the_named_size() -> None:
    look = _look_beside_named_cards()
    in_place = amend.at_named_size(
        look,
        accept=0.9,
        printed=_new_names([2], ["7H"], [0.1], across=0.0),
    )
    assert in_place.rows.tolist() == [5]
    # A corner the print step moved is still read where it was found: the move may have been
    # pulled off the index (by a court card's picture frame, say).
    moved = amend.at_named_size(
        look,
        accept=0.9,
        printed=_new_names([2], ["7H"], [0.1], across=6.0),
    )
    assert moved.rows.tolist() == [2, 5]
    assert moved.points.tolist() == [[500.0, 100.0], [1100.0, 100.0]]


@pytest.mark.parametrize(("own_read", "named"), [("7H", True), ("8C", False)])
def test_a_new_name_at_the_named_size_does_not_overrule_the_corners_own_unsure_read(
    own_read: str, named: bool
) -> None:
    look = _look_beside_named_cards()
    look.names[2], look.probability[2] = own_read, 0.8  # unsure, worth a second look
    sized = _new_names([2], ["7H"], [0.95], across=0.0)
    raised = amend.take_new_names(look, sized, level=0.9, accept=0.9, contrary=0.3)
    assert raised == ([2] if named else [])
    assert (look.names[2], look.probability[2]) == (("7H", 0.95) if named else ("8C", 0.8))


def test_a_contrary_read_below_the_unsure_level_does_not_hold_a_new_name_back() -> None:
    look = _look_beside_named_cards()  # row 2 reads 7H at 0.2
    raised = amend.take_new_names(look, _new_names([2], ["9S"], [0.95], across=0.0), 0.9, 0.9, contrary=0.3)
    assert raised == [2] and look.names[2] == "9S"


def _new_names(rows: list[int], names: list[str], sure: list[float], across: float) -> second_look.SecondLook:
    """A step's windows read for any card: each lies ``across`` pixels right of its row's corner."""
    look = _look_beside_named_cards()
    at = look.points[look.owner[rows]] + [across, 0.0]
    return second_look.SecondLook(
        np.array(rows),
        at,
        look.x_axes[rows],
        look.y_axes[rows],
        np.full(len(rows), 105.0),
        names=names,
        probability=np.array(sure),
    )


def test_an_unsure_new_name_is_looked_at_again_around_its_window_for_that_name() -> None:
    look = _look_beside_named_cards()
    moved = _new_names([2, 3, 4, 0], ["7H", "7C", "2S", "KS"], [0.7, 0.3, 0.97, 0.8], across=6.0)
    sized = _new_names([2, 5], ["7D", "QD"], [0.6, 0.55], across=-4.0)
    again = amend.around_unsure_new_names(look, [moved, sized], unsure=0.5, level=0.95, accept=0.9)
    # Row 2's surer window of the two, row 5's only one; row 3 reads too low, row 4 is sure
    # already (named by its step), row 0 is named by the first look.
    windows = amend.AROUND_WINDOWS
    assert again.rows.tolist() == [2] * windows + [5] * windows
    assert again.cards == ["7H"] * windows + ["QD"] * windows
    middle = again.points[amend.AROUND_MIDDLE :: windows]
    assert middle.tolist() == [[506.0, 100.0], [1096.0, 100.0]]
    assert sorted(set(again.sizes.tolist())) == pytest.approx([105.0 * 0.96, 105.0, 105.0 * 1.04])


@pytest.mark.parametrize(("sure_windows", "named"), [(5, True), (4, False)])
def test_a_new_name_looked_at_again_stands_only_where_enough_windows_read_it(
    sure_windows: int, named: bool
) -> None:
    look = _look_beside_named_cards()
    moved = _new_names([2], ["8H"], [0.7], across=6.0)
    again = amend.around_unsure_new_names(look, [moved], unsure=0.5, level=0.95, accept=0.9)
    again.probability = np.array([0.99, 0.98, 0.97, 0.96, 0.91][:sure_windows] + [0.6] * (15 - sure_windows))
    raised = amend.confirm_around(look, again, accept=0.9, needed=5)
    assert raised == ([2] if named else [])
    if named:  # at the 5th surest window's level, where its middle window lies, at its size
        assert (look.names[2], look.probability[2], look.heights[2]) == ("8H", 0.91, 105.0)
        assert look.points[2].tolist() == [506.0, 100.0] == look.candidates[2].corner.point.tolist()
    else:
        assert (look.names[2], look.probability[2], look.heights[2]) == ("7H", 0.2, 150.0)  # as first read


@pytest.mark.parametrize("sure", [0, 16])
@pytest.mark.parametrize("name", ["confirm_windows", "confirm_new_name_windows"])
def test_a_second_look_needs_between_one_and_all_of_its_windows(name: str, sure: int) -> None:
    with pytest.raises(ValueError, match=rf"{name} must be 1\.\.15, not {sure}"):
        Thresholds(**{name: sure})


def test_an_empty_table_has_no_cards(reader: CardReader) -> None:
    felt = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    assert reader.read(felt) == []


def test_a_card_too_blurred_to_read_is_abstained_not_guessed(reader: CardReader, design) -> None:
    frame = lay_cards(design, [("5H", (640, 360), 0, True)], height=90)
    smeared = cv2.GaussianBlur(frame, (0, 0), 4.0)
    assert all(s.card is None for s in reader.read(smeared))


def test_a_white_rectangle_is_not_a_card(reader: CardReader) -> None:
    frame = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    cv2.rectangle(frame, (500, 250), (600, 390), (245, 245, 245), -1)
    assert all(s.card is None for s in reader.read(frame))


@pytest.mark.parametrize("bad", [np.zeros((10, 10, 3), np.uint8), np.zeros((720, 1280), np.uint8)])
def test_a_frame_that_is_not_a_colour_image_is_refused(reader: CardReader, bad) -> None:
    with pytest.raises(ValueError, match="BGR colour image"):
        reader.read(bad)


def test_sighting_json_matches_the_cli_contract(reader: CardReader, design) -> None:
    found = reader.read(lay_cards(design, [("AS", (640, 360), 0, True)]))
    item = next(s.to_json() for s in found if s.card)
    assert set(item) == {"card", "confidence", "face_up", "quad", "zone"}
    assert item["card"] == "AS" and item["face_up"] is True and item["zone"] is None
    assert len(item["quad"]) == 4 and all(len(p) == 2 for p in item["quad"])
    assert 0.0 <= item["confidence"] <= 1.0


def test_a_large_photo_is_read_and_outlined_in_its_own_pixels(reader: CardReader, design) -> None:
    frame = lay_cards(design, [("JD", (400, 360), 12, True), ("6C", (850, 330), -25, True)], height=170)
    photo = cv2.resize(frame, None, fx=2.5, fy=2.5, interpolation=cv2.INTER_CUBIC)  # 3200 x 1800
    found = _by_card(reader.read(photo))
    assert set(found) == {"JD", "6C"}
    assert np.linalg.norm(found["JD"].centre - [1000, 900]) < 40
    assert np.linalg.norm(found["6C"].centre - [2125, 825]) < 40


def test_a_close_up_card_is_read(reader: CardReader, design) -> None:
    assert set(_by_card(reader.read(lay_cards(design, [("8S", (640, 360), 5, True)], height=330)))) == {"8S"}


def _sighting(
    card: str, confidence: float, corner: tuple[float, float], height: float = 120.0
) -> CardSighting:
    """A read at an upright card's top-left corner, as the reader makes one before merging."""
    x, y = corner
    width = height / 1.4
    quad = np.array([[x, y], [x + width, y], [x + width, y + height], [x, y + height]], float)
    index_point = np.array([x + 0.07 * height, y + 0.14 * height])
    return CardSighting(card, confidence, True, quad, votes=[(card, confidence)], index_point=index_point)


def test_a_name_read_far_smaller_than_the_other_named_cards_is_a_picture_left_unread() -> None:
    # A back that pictures a fan of aces: its printed ace reads sure, at a third of a card's size.
    cards = [_sighting(code, 0.999, (100 + 200 * k, 100), 120.0) for k, code in enumerate(("KS", "JH", "2S"))]
    picture = _sighting("AS", 0.999, (800, 400), 45.0)
    merged = merge_sightings([*cards, picture], Thresholds())
    assert sorted(s.card or "-" for s in merged) == ["-", "2S", "JH", "KS"]
    # A tilted camera's far card, two thirds the size of the near ones, is still a card.
    far = _sighting("AS", 0.999, (800, 400), 80.0)
    assert sorted(s.card for s in merge_sightings([*cards, far], Thresholds())) == ["2S", "AS", "JH", "KS"]
    # With fewer than three named cards there is no size to hold a name against.
    assert sorted(s.card for s in merge_sightings([*cards[:1], picture], Thresholds())) == ["AS", "KS"]


def test_a_read_beyond_doubt_outweighs_a_weak_rival_of_the_same_card() -> None:
    # A fan neighbour's corner, a little off, grows into the same card and reads another name.
    merged = merge_sightings(
        [_sighting("6H", 0.9999, (100, 100)), _sighting("8H", 0.95, (104, 102))], Thresholds()
    )
    assert [s.card for s in merged] == ["6H"]


def test_rival_reads_both_close_to_sure_leave_the_card_unread() -> None:
    merged = merge_sightings(
        [_sighting("6H", 0.999, (100, 100)), _sighting("8H", 0.98, (104, 102))], Thresholds()
    )
    assert [s.card for s in merged] == [None]
    merged = merge_sightings(
        [_sighting("6H", 0.985, (100, 100)), _sighting("8H", 0.93, (104, 102))], Thresholds()
    )
    assert [s.card for s in merged] == [None]


def test_two_names_at_one_corner_point_at_different_sizes_cancel_each_other() -> None:
    # The same print read at two card-size guesses: index windows apart, the corner point shared.
    small, large = _sighting("TD", 0.999, (300, 300), 90.0), _sighting("4D", 0.988, (300, 300), 180.0)
    merged = merge_sightings([small, large], Thresholds())
    assert all(s.card is None for s in merged)


def test_reads_of_one_name_at_two_prints_turned_the_same_way_are_two_cards() -> None:
    # A fan of two 7H: the top card's far corner (turned half round) overlaps both index reads.
    below, above = _sighting("7H", 0.999, (100, 100)), _sighting("7H", 0.998, (130, 100))
    far = _sighting("7H", 0.9999, (130, 100))
    far.quad, far.index_point = far.quad[[2, 3, 0, 1]], far.quad[2] - (far.index_point - far.quad[0])
    merged = merge_sightings([far, below, above], Thresholds())
    assert [s.card for s in merged] == ["7H", "7H"]
    assert sorted(round(float(s.quad[:, 0].min())) for s in merged) == [100, 130]


def _far_read(card: str, confidence: float, far_corner: tuple[float, float], height: float) -> CardSighting:
    """A read at an upright card's bottom-right print (turned half round), the card ``height`` tall."""
    x, y = far_corner
    far = _sighting(card, confidence, (x - height / 1.4, y - height), height)
    far.quad, far.index_point = far.quad[[2, 3, 0, 1]], far.quad[2] - (far.index_point - far.quad[0])
    return far


@pytest.mark.parametrize(
    ("ace_sure", "offset", "far_size", "far_sure"),
    [
        # The jack lies on the ace a sixth of a card to the right. Its far print, read at a larger
        # size guess, centres near the ace, but its index print names it too: two cards.
        (0.999, 18, 140.0, 0.995),
        # A tenth of a card to the right, the far print read surer than the ace's index: the far
        # read leads its card, and the ace, turned half round from it, is another card.
        (0.993, 12, 130.0, 0.996),
    ],
)
def test_a_card_named_at_both_prints_is_not_merged_into_the_card_it_is_stacked_on(
    ace_sure: float, offset: float, far_size: float, far_sure: float
) -> None:
    ace = _sighting("AS", ace_sure, (100, 100))
    jack = _sighting("JC", 0.968, (100 + offset, 100))
    jack_far = _far_read("JC", far_sure, (100 + offset + 120 / 1.4, 220), far_size)
    merged = merge_sightings([ace, jack_far, jack], Thresholds())
    assert sorted(s.card for s in merged) == ["AS", "JC"]


def test_a_misread_of_the_lower_cards_far_print_as_the_upper_card_cancels_the_lower_cards_name() -> None:
    # The nine of clubs lies on the nine of spades, a tenth of a card right and a quarter up, and
    # is read at both its prints. The spade's far print, a few pixels tall, reads as the club:
    # that read lies on the club's card too, but outlines the spade's, so it disputes the spade's
    # name there instead of standing as a second nine of clubs (which scoring counts against the
    # face-down card beside it).
    width = 120 / 1.4
    spade = _sighting("9S", 0.983, (100, 100))
    club = _sighting("9C", 0.93, (112, 70))
    club_far = _far_read("9C", 0.925, (112 + width, 190), 120.0)
    spade_far_misread = _far_read("9C", 0.987, (100 + width, 220), 120.0)
    merged = merge_sightings([spade, club, club_far, spade_far_misread], Thresholds())
    assert sorted(s.card or "-" for s in merged) == ["-", "9C"]


def test_a_lone_read_of_another_name_at_a_cards_far_print_still_cancels_it() -> None:
    # The ace of clubs read at its index, and as the ace of spades at its far print: one card.
    merged = merge_sightings(
        [_sighting("AC", 0.979, (100, 100)), _far_read("AS", 0.919, (100 + 120 / 1.4, 220), 120.0)],
        Thresholds(),
    )
    assert [s.card for s in merged] == [None]


def test_a_card_whose_names_cancelled_inside_a_named_card_stays_for_the_closer_look() -> None:
    # A ten of clubs named, and inside it a print read as the nine of spades and as the ten of
    # clubs, both sure: the two names cancel, and the card they read stays, unread.
    ten = _sighting("TC", 0.973, (100, 100))
    reads = [_sighting("9S", 1.0, (130, 130)), _sighting("TC", 0.998, (131, 130))]
    merged = merge_sightings([ten, *reads], Thresholds())
    assert sorted(s.card or "-" for s in merged) == ["-", "TC"]
    disputed = next(s for s in merged if s.card is None)
    assert {name for name, _ in disputed.votes} == {"9S", "TC"}
    # An unread corner with no name read inside a named card is that card's other corner.
    plain = CardSighting(None, 0.0, True, _sighting("TC", 0.0, (110, 110)).quad, votes=[(None, 0.0)])
    assert [s.card for s in merge_sightings([ten, plain], Thresholds())] == ["TC"]
    # Left unread by the closer look, the cancelled card is dropped as a shadow at the end.
    assert [s.card for s in reader_module.drop_shadows(merged)] == ["TC"]


def test_one_print_read_twice_a_pixel_apart_is_one_card() -> None:
    merged = merge_sightings(
        [_sighting("7H", 0.999, (100, 100)), _sighting("7H", 0.99, (103, 101))], Thresholds()
    )
    assert [s.card for s in merged] == ["7H"]


def _back(quad: list[list[float]], confidence: float) -> CardSighting:
    return CardSighting(None, confidence, False, np.array(quad, float), votes=[("back", confidence)])


def test_one_back_outlined_from_two_corners_is_given_once() -> None:
    card = [[100, 100], [186, 100], [186, 220], [100, 220]]  # an upright back, 120 high
    # From its lower-left corner the long edge was guessed across: the outline runs past the card.
    across = [[100, 220], [100, 135], [268, 135], [268, 220]]
    named = _sighting("KS", 0.999, (400, 100))
    given = reader_module.one_sighting_a_back([_back(across, 0.8), named, _back(card, 0.9)])
    assert [s.card for s in given] == ["KS", None]
    assert np.allclose(given[1].quad, card)  # the surer outline stays, the cards in their order
    # With three cards named, the outline of their size stays, though the other matched surer.
    named = [_sighting(code, 0.999, (400 + 100 * k, 100)) for k, code in enumerate(("KS", "QS", "JS"))]
    given = reader_module.one_sighting_a_back([_back(across, 0.9), *named, _back(card, 0.8)])
    assert [s.card for s in given] == ["KS", "QS", "JS", None]
    assert np.allclose(given[3].quad, card)
    # Backs in a fan lie a third of a card apart, no corner in common: two cards.
    fanned = [[p[0] + 29, p[1]] for p in card]
    assert len(reader_module.one_sighting_a_back([_back(card, 0.9), _back(fanned, 0.8)])) == 2
    # Backs side by side meet at two corners, but their centres lie a card's width apart.
    beside = [[p[0] + 86, p[1]] for p in card]
    assert len(reader_module.one_sighting_a_back([_back(card, 0.9), _back(beside, 0.8)])) == 2
    # A face-up card is never dropped for a back, however it lies.
    unread = CardSighting(None, 0.0, True, np.array(across, float), votes=[(None, 0.0)])
    assert len(reader_module.one_sighting_a_back([_back(card, 0.9), unread])) == 2
