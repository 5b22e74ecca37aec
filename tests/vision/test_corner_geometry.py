"""Corner geometry helpers that the reader's speed depends on: batched forms agree with one-at-a-time."""

from __future__ import annotations

import cv2
import numpy as np

from dealerassist.vision.backs import backs_at
from dealerassist.vision.candidates import _same_spot_same_way, distances
from dealerassist.vision.card_corner import Corner, corner_arrays
from dealerassist.vision.card_extent import card_quad, corner_arms, height_candidates, paper_coverage
from dealerassist.vision.outline_corners import (
    _local_directions,
    first_visits,
    fitted_direction,
    outline_corners,
    outline_polygon,
)
from dealerassist.vision.paper import blob_outlines, card_mask
from dealerassist.vision.reader import CardReader

from .conftest import lay_cards

ASPECT = 1.4


def _table_with_card(top_left: tuple[int, int], width: int, height: int) -> np.ndarray:
    """A paper mask (255 = paper) with one upright card on felt."""
    mask = np.zeros((480, 640), np.uint8)
    x, y = top_left
    mask[y : y + height, x : x + width] = 255
    return mask


def _corner(x: float, y: float) -> Corner:
    return Corner(
        point=np.array([x, y], float), x_axis=np.array([1.0, 0.0]), y_axis=np.array([0.0, 1.0]), blob=0
    )


def _corner_points(mask: np.ndarray, notches: bool = True) -> np.ndarray:
    outlines = blob_outlines(mask)
    return np.array(
        [c.point for i, outline in enumerate(outlines) for c in outline_corners(outline, i, notches=notches)]
    )


def test_a_print_that_notches_the_paper_at_a_corner_leaves_the_corner_found() -> None:
    # An index printed against a dark border: its ink joins the felt and bites into the corner.
    mask = _table_with_card((100, 50), 100, 140)
    mask[50:58, 100:108] = 0
    found = _corner_points(mask)
    assert np.hypot(*(found - [100, 50]).T).min() < 2.0
    # The other three corners are found once each: a notch adds no corner beside a plain one.
    for x, y in ((199, 50), (199, 189), (100, 189)):
        assert (np.hypot(*(found - [x, y]).T) < 6.0).sum() == 1
    # Without notches (as the training tables are mined), only the corners of the notch's sides.
    assert np.hypot(*(_corner_points(mask, notches=False) - [100, 50]).T).min() > 5.0


def _rounded_card(width: float, height: float, radius: float, degrees: float) -> tuple[np.ndarray, list]:
    """A paper mask with one large card turned ``degrees``, its corners rounded to ``radius`` px, and
    the card's four squared-off corners with the directions of their two edges."""
    turn = np.radians(degrees)
    across, down = np.array([np.cos(turn), np.sin(turn)]), np.array([-np.sin(turn), np.cos(turn)])
    centre = np.array([350.0, 300.0])
    half_w, half_h = width / 2 - radius, height / 2 - radius
    arcs = ((half_w, half_h, 0), (-half_w, half_h, 90), (-half_w, -half_h, 180), (half_w, -half_h, 270))
    outline = [
        centre + (cx + radius * np.cos(t)) * across + (cy + radius * np.sin(t)) * down
        for cx, cy, start in arcs
        for t in np.radians(np.arange(start, start + 91, 3))
    ]
    mask = np.zeros((600, 700), np.uint8)
    cv2.fillPoly(mask, [np.round(np.array(outline) * 16).astype(np.int32)], 255, shift=4)
    corners = [
        (centre + sx * width / 2 * across + sy * height / 2 * down, across, down)
        for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1))
    ]
    return mask, corners


def test_a_large_cards_rounded_corners_are_squared_off_across_their_chords() -> None:
    # A card some 200 px high with a wide rounding: the outline's polygon cuts each rounded
    # corner into one to three chords, longer than neighbouring edges' ends may otherwise lie
    # apart. Before, the corner across them was left out: 8-16 px to the nearest corner found.
    for degrees, radius in ((45, 18), (45, 22), (37, 18), (52, 22)):
        mask, corners = _rounded_card(150, 210, radius, degrees)
        found = outline_corners(blob_outlines(mask)[0], 0)
        for point, across, down in corners:
            nearest = min(found, key=lambda c: float(np.hypot(*(c.point - point))))
            assert np.hypot(*(nearest.point - point)) < 4.0, (degrees, radius, point)
            # Its edges run along the card's, whichever way round.
            assert max(abs(nearest.x_axis @ across), abs(nearest.x_axis @ down)) > np.cos(np.radians(3))
            assert max(abs(nearest.y_axis @ across), abs(nearest.y_axis @ down)) > np.cos(np.radians(3))
    # The training tables are mined without notches, and so without this too.
    mask, corners = _rounded_card(150, 210, 18, 45)
    plain = _corner_points(mask, notches=False)
    assert np.hypot(*(plain - corners[0][0]).T).min() > 5.0


def arms_of(mask: np.ndarray, corner: Corner) -> tuple[float, float]:
    return corner_arms(mask, corner_arrays([corner]))[0]


def test_corner_arms_measure_paper_along_both_edges() -> None:
    mask = _table_with_card((100, 50), 100, 140)
    across, down = arms_of(mask, _corner(100, 50))
    assert abs(across - 100) <= 2 and abs(down - 140) <= 2


def test_height_candidates_keep_the_short_edges_guess_when_it_differs_and_fits() -> None:
    arms = [(100, 140), (100, 200), (100, 150), (10, 500), (300, 20)]
    assert height_candidates(arms, ASPECT) == [[140.0], [140.0, 200.0], [140.0], [], []]
    assert height_candidates([], ASPECT) == []


def test_paper_coverage_of_many_quads_matches_one_at_a_time() -> None:
    mask = _table_with_card((100, 50), 100, 140)
    corner = _corner(100, 50)
    quads = np.array(
        [
            card_quad(corner, 140, ASPECT),  # the card itself: all paper
            card_quad(corner, 140, ASPECT, long_across=True),  # turned: half on felt
            card_quad(_corner(400, 300), 100, ASPECT),  # on bare felt
            card_quad(_corner(600, 440), 140, ASPECT),  # mostly outside the frame
        ]
    )
    batched = paper_coverage(mask, quads)
    assert batched.tolist() == [paper_coverage(mask, q[None])[0] for q in quads]
    assert batched[0] == 1.0 and batched[2] == 0.0 and 0.0 < batched[1] < 1.0


def test_many_corners_at_once_get_the_arms_of_one_at_a_time() -> None:
    mask = _table_with_card((100, 50), 100, 140)
    mask[0:120, 540:640] = 255  # a second card cut off by the frame's top-right corner
    turned = Corner(
        point=np.array([199.0, 189.0]), x_axis=np.array([-1.0, 0.0]), y_axis=np.array([0.0, -1.0]), blob=0
    )
    tilted = Corner(
        point=np.array([150.3, 120.7]), x_axis=np.array([0.8, 0.6]), y_axis=np.array([-0.6, 0.8]), blob=0
    )
    corners = [_corner(100, 50), turned, tilted, _corner(540, 0), _corner(630, 470), _corner(-30, -30)]
    arms = corner_arms(mask, corner_arrays(corners))
    assert arms == [arms_of(mask, c) for c in corners]
    assert abs(arms[0][0] - 100) <= 2 and abs(arms[0][1] - 140) <= 2
    assert corner_arms(mask, corner_arrays([])) == []


def test_distances_are_numpys_norms_of_the_differences_to_the_last_bit() -> None:
    """Corners are told apart by thresholds on these: they must be numpy's norms to the bit."""
    rng = np.random.default_rng(6)
    points, others = rng.uniform(-50, 1300, (37, 2)), rng.uniform(-50, 1300, (23, 2))
    expected = np.linalg.norm(points[:, None, :] - others[None, :, :], axis=2)
    assert np.array_equal(distances(points, others), expected)
    assert distances(points, np.zeros((0, 2))).shape == (37, 0)
    single = points.astype(np.float32)  # as numpy would: worked in single precision, kept in double
    assert np.array_equal(distances(single, single), np.linalg.norm(single[:, None] - single[None], axis=2))


def test_same_spot_same_way_compares_axes_only_where_it_matters_with_the_same_answers() -> None:
    """Corners near each other are told apart by their axes exactly as when every pair is compared."""
    rng = np.random.default_rng(4)
    points = rng.uniform(0, 60, (40, 2))
    others = np.concatenate([points[:10] + rng.normal(0, 0.5, (10, 2)), rng.uniform(0, 60, (50, 2))])
    angles = rng.choice([0.0, 0.2, np.pi / 2, np.pi], 40)
    other_angles = np.concatenate([angles[:10] + rng.normal(0, 0.2, 10), rng.choice([0.0, np.pi], 50)])

    def axes(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x_axes = np.stack([np.cos(a), np.sin(a)], axis=1)
        return x_axes, np.stack([-x_axes[:, 1], x_axes[:, 0]], axis=1)

    (x_axes, y_axes), (other_x, other_y) = axes(angles), axes(other_angles)
    near = np.full(40, 3.0)
    every_pair = (
        (np.hypot(*(points[:, None] - others[None]).transpose(2, 0, 1)) < near[:, None])
        & (x_axes @ other_x.T > 0.95)
        & (y_axes @ other_y.T > 0.95)
    )
    same = _same_spot_same_way((points, x_axes, y_axes), near, (others, other_x, other_y))
    assert np.array_equal(same, every_pair)
    assert 0 < same.sum() < (np.hypot(*(points[:, None] - others[None]).transpose(2, 0, 1)) < 3.0).sum()


def test_a_back_is_found_at_its_corner_and_a_face_is_not_taken_for_one(reader: CardReader, design) -> None:
    for face_up, expected_back in ((False, True), (True, False)):
        frame = lay_cards(design, [("QC", (640, 360), 0, face_up)])
        paper = card_mask(frame)
        outline = blob_outlines(paper)[0]
        filled = np.zeros_like(paper)
        cv2.drawContours(filled, [outline], -1, 255, cv2.FILLED)
        corner = min(outline_corners(outline, 0), key=lambda c: float(c.point.sum()))  # the top-left one
        heights = height_candidates([arms_of(filled, corner)], reader.deck.aspect)[0]
        seen = backs_at(frame, filled, [(corner, heights)], reader.deck, reader.thresholds.back_distance)[0]
        assert (seen is not None) == expected_back
        if seen is not None:
            assert not seen.face_up and seen.card is None
            assert abs(np.linalg.norm(seen.quad[3] - seen.quad[0]) - 150) < 12  # the card's own height


def _sine_between(a: np.ndarray | tuple[float, float], b: np.ndarray | tuple[float, float]) -> float:
    return float(abs(a[0] * b[1] - a[1] * b[0]))


def test_a_fitted_direction_follows_an_outline_edge_past_stray_points() -> None:
    rng = np.random.default_rng(3)
    for angle in rng.uniform(0, np.pi, 60):
        true = np.array([np.cos(angle), np.sin(angle)])
        count = int(rng.integers(12, 30))
        points = np.round(np.array([300.0, 200.0]) + np.arange(float(count))[:, None] * true)
        # The stretch's last points step onto the edge of a card lying a few px further out.
        strays = int(rng.integers(2, count // 4 + 1))
        edge = cv2.fitLine(points[:-strays].astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()[:2]
        clean = fitted_direction(points.astype(np.int32))
        assert _sine_between(clean, true) < 0.03 + _sine_between(edge, true)
        points[-strays:] += np.round(rng.uniform(3.0, 8.0) * np.array([-true[1], true[0]]))
        fitted = fitted_direction(points.astype(np.int32))
        assert abs(np.hypot(*fitted) - 1.0) < 1e-12
        # The strays have no say: the line is the edge's own points' least-squares line.
        assert _sine_between(fitted, edge) < 0.005
        everything = cv2.fitLine(points.astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()[:2]
        assert _sine_between(everything, edge) > 0.02


def test_a_fitted_direction_reads_any_view_of_an_outline() -> None:
    outline = np.array([[x, 2 * x + (x % 3 == 0)] for x in range(40)], np.int32)
    backwards = outline[30:10:-1]  # as the reader walks back from a corner
    fitted, again = fitted_direction(backwards), fitted_direction(np.ascontiguousarray(backwards))
    assert fitted == again
    assert abs(fitted[0] * 2 - fitted[1]) < 0.05  # along (1, 2), whichever way round


def test_an_outlines_arms_are_fitted_either_way_and_round_its_start() -> None:
    # A 60 px square's outline traced clockwise from its top-left corner, as findContours gives it.
    side = np.arange(60)
    outline = np.concatenate(
        [
            np.stack([side, np.zeros(60)], 1),
            np.stack([np.full(60, 60), side], 1),
            np.stack([60 - side, np.full(60, 60)], 1),
            np.stack([np.zeros(60), 60 - side], 1),
        ]
    ).astype(np.float32)
    # At the top-right corner (index 60) along the top edge back and down the right edge; at the
    # top-left corner (index 0) the stretch back wraps round to the left edge's end.
    arms = _local_directions(
        outline,
        np.array([60, 60, 0, 0]),
        np.array([30, 30, 30, 30]),
        np.array([False, True, False, True]),
        np.array([True, True, True, False]),
    )
    assert np.allclose(arms[:3], [[-1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], atol=1e-9)
    assert np.isnan(arms[3]).all()  # not asked for


def test_each_vertex_is_found_at_its_first_visit() -> None:
    # An outline that passes (5, 5) twice, as a one-pixel neck makes it do.
    outline = np.array([[0, 0], [5, 5], [9, 0], [9, 9], [5, 5], [0, 9]], np.int32).reshape(-1, 1, 2)
    points = np.array([[5.0, 5.0], [9.0, 9.0], [0.0, 0.0], [0.0, 9.0], [9.0, 0.0]])
    assert first_visits(outline, points).tolist() == [1, 3, 0, 5, 2]


def test_first_visits_agree_with_a_plain_search_on_real_outlines() -> None:
    rng = np.random.default_rng(4)
    mask = np.zeros((300, 400), np.uint8)
    for _ in range(6):
        centre = rng.uniform(60, 300), rng.uniform(60, 240)
        box = cv2.boxPoints((centre, (rng.uniform(40, 90), rng.uniform(60, 120)), rng.uniform(0, 90)))
        cv2.fillPoly(mask, [np.round(box).astype(np.int32)], 255)
    for outline in blob_outlines(mask):
        pixels = outline.reshape(-1, 2)
        points = np.concatenate([pixels[rng.integers(0, len(pixels), 20)], outline_polygon(outline)])
        expected = [pixels.tolist().index(q) for q in points.tolist()]
        assert first_visits(outline, points.astype(np.float64)).tolist() == expected
