"""Training windows for the index classifier, from one deck design's own 53 images.

Two sources. ``render_samples``: small scenes around one card (any camera size, turn and felt,
sometimes in a fan, lit unevenly, blurred, noisy, JPEG) cut where a reader would cut them: the
index corners as a corner finder reports them, labelled with the card, and every kind of place
that is not one (other corners, edges, the inside, an index turned, shifted or at a wrong size)
labelled ``none``, or ``back`` on a face-down card. ``scene_samples``: the reader's own candidate
corners on whole tables.
"""

from __future__ import annotations

import cv2
import numpy as np

from dealerassist.vision.candidates import find_candidates, windows_of
from dealerassist.vision.card_corner import turned, unit
from dealerassist.vision.index_features import window_features
from dealerassist.vision.index_window import IndexWindow, sample_windows
from dealerassist.vision.indexnet import BACK, NONE
from dealerassist.vision.scenes import (
    SceneCard,
    gaussian_noise,
    glare_spot,
    make_scene,
    spoil,
    uneven_light,
    warp_card,
)

HEIGHTS = (66.0, 200.0)  # card heights in pixels, sampled evenly in log scale
SIDES = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])  # a card's TL, TR, BR, BL: across, down
# How far off a corner finder reports a corner (standard deviation, limit): in place (card
# heights), angle, and size (log). A corner with one short arm is squared at 90 degrees in the
# image, where camera tilt makes a card's corner 80-100: its edges can be 8-10 degrees out.
PLACE_ERROR = (0.015, 0.045)
ANGLE_ERROR = (np.deg2rad(2.5), np.deg2rad(8.0))
SIZE_ERROR = (0.06, 0.15)
FAR_SHIFT = (0.07, 0.2)  # card heights a "shifted index" negative is moved by
MATCH_PLACE = 0.045  # card heights: a candidate this close to a true index corner is that corner
MATCH_ANGLE = np.cos(np.deg2rad(10.0))  # and turned no further from it
MATCH_SIZE = 0.15  # and its height guess within this share of the true height
NEAR_PLACE = 0.1  # candidates this close to a true corner but not matching it are left out
# A window sampled for a card this much larger or smaller than the true one (a size guess taken
# from the wrong edge, or from a whole row of cards as one) shows an index shrunk or cut, or a
# whole card: "nothing".
WRONG_SIZE = 1.3
WRONG_LARGER = (WRONG_SIZE, 4.0)  # drawn evenly in log scale
WRONG_SMALLER = (0.6, 1.0 / WRONG_SIZE)
GLARE_CHANCE = 0.4  # share of training scenes with a glare spot
GLARE = (10.0, 110.0)  # its peak brightness: as strong as the glare an index can still be read under

Corner = tuple[np.ndarray, np.ndarray, np.ndarray]  # a point and its x (across) and y (down) axes


def render_samples(
    design: dict[str, np.ndarray],
    window: IndexWindow,
    rng: np.random.Generator,
    scenes_per_card: int = 100,
    looks: int = 3,
) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows and labels (card code or ``none``) for the index classifier of one design.

    ``design`` holds BGRA images (alpha = the card's rounded outline) by card code plus ``back``.
    Each visible index corner is cut ``looks`` times, each time found a little differently.
    """
    cards = {code: _halvings(image) for code, image in design.items() if code != "back"}
    aspect = float(np.median([sizes[0].shape[0] / sizes[0].shape[1] for sizes in cards.values()]))
    noise = np.random.default_rng(int(rng.integers(2**31)))  # the felt's grain and sensor noise
    backs = _halvings(design["back"])
    features: list[np.ndarray] = []
    labels: list[str] = []
    for code in cards:
        for _ in range(scenes_per_card):
            frame, quad, height, covered, face_down = _scene(cards, backs, code, aspect, rng, noise)
            points, x_axes, y_axes, sizes, names = _spots(
                quad, height, aspect, covered, BACK if face_down else code, looks, rng
            )
            features.append(window_features(sample_windows(frame, points, x_axes, y_axes, sizes, window)))
            labels.extend(names)
    return np.concatenate(features), np.array(labels)


def _halvings(image: np.ndarray) -> list[np.ndarray]:
    """The card at its own size and halved twice, so a small card is warped from a small image."""
    sizes = [image]
    for _ in range(2):
        sizes.append(cv2.resize(sizes[-1], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA))
    return sizes


def _scene(
    faces: dict[str, list[np.ndarray]],
    back: list[np.ndarray],
    code: str,
    aspect: float,
    rng: np.random.Generator,
    noise: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, float, bool, bool]:
    """One spoiled frame around ``code`` (its grain and sensor noise drawn by ``noise``); its quad,
    height, whether an upper card hides its second index, and whether it lies face down."""
    codes = list(faces)
    height = _log_uniform(rng, HEIGHTS)
    width = height / aspect
    size = int(np.ceil(1.7 * height))
    canvas = _felt(rng, size, noise)
    angle = rng.uniform(0, 2 * np.pi)
    x_axis = np.array([np.cos(angle), np.sin(angle)])
    y_axis = np.array([-np.sin(angle), np.cos(angle)])
    centre = np.array([size / 2, size / 2]) + rng.normal(0, 0.05 * height, 2)
    face_down = bool(rng.random() < 0.12)
    step_down = rng.uniform(-0.1, 0.1) * height if rng.random() < 0.5 else 0.0

    def quad_at(middle: np.ndarray) -> np.ndarray:
        """A card's TL, TR, BR, BL around ``middle``, each corner nudged a little (camera keystone)."""
        quad = middle + SIDES[:, :1] * (x_axis * width / 2) + SIDES[:, 1:] * (y_axis * height / 2)
        return quad + rng.normal(0, 0.01 * height, quad.shape)

    def lay_neighbour(side: float) -> None:
        """A card of a fan under this card's top-left part (``side`` -1) or over its right part (1)."""
        offset = side * (x_axis * rng.uniform(0.33, 0.6) * width + y_axis * step_down)
        image = faces[codes[rng.integers(len(codes))]] if rng.random() < 0.8 else back
        _paste(canvas, image, quad_at(centre + offset))

    if rng.random() < 0.35:
        lay_neighbour(-1.0)
    quad = quad_at(centre)
    _paste(canvas, back if face_down else faces[code], quad)
    covered = bool(rng.random() < 0.35)  # by an upper card, which hides the second index
    if covered:
        lay_neighbour(1.0)
    return _spoil(canvas, rng, noise), quad, height, covered, face_down


def _felt(rng: np.random.Generator, size: int, noise: np.random.Generator) -> np.ndarray:
    hsv = (rng.integers(0, 180), rng.integers(0, 240), rng.integers(50, 170))
    blue, green, red = cv2.cvtColor(np.uint8([[hsv]]), cv2.COLOR_HSV2BGR)[0, 0].tolist()
    felt = gaussian_noise((size, size, 3), 4.0, noise)
    return cv2.add(felt, (blue, green, red, 0), dst=felt)  # a scalar per channel: 20x numpy's broadcast


def _paste(canvas: np.ndarray, card: list[np.ndarray], quad: np.ndarray) -> None:
    """Warp one card (``_halvings``) into ``quad`` of a float canvas, from its smallest halving at
    least 1.5 times the card's height there."""
    height = float(np.linalg.norm(quad[3] - quad[0]))
    warp_card(canvas, next((im for im in reversed(card) if im.shape[0] >= 1.5 * height), card[0]), quad)


def _spoil(canvas: np.ndarray, rng: np.random.Generator, noise: np.random.Generator) -> np.ndarray:
    """Uneven light, tint and a little glare, then ``scenes.spoil``."""
    axis = np.linspace(0.0, 1.0, canvas.shape[0], dtype=np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    low = rng.uniform(0.45, 1.0)
    canvas *= uneven_light(axis, axis, angle, low, rng.uniform(0.9, 1.1, 3))
    if rng.random() < GLARE_CHANCE:
        cx, cy, spread = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.1, 0.4)
        glare = glare_spot(axis, axis, (cx, cy), (spread, spread), rng.uniform(*GLARE))
        canvas += cv2.cvtColor(glare, cv2.COLOR_GRAY2BGR)
    return spoil(canvas, rng, noise, blur=1.4, grain=7.0, quality=(45, 97))


def _spots(
    quad: np.ndarray,
    height: float,
    aspect: float,
    covered: bool,
    label: str,
    looks: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The windows cut from one scene, as found (points, x and y axes, sizes, labels): its visible
    index corners and one of each kind of non-index."""
    corners = _corners(quad)
    width = height / aspect
    index_corners = [0] if covered else [0, 2]
    # Where each window lies before a corner finder's error is added, its label, and whether it
    # gets that error (the inside of the card is taken anywhere, turned any way, as it is).
    where: list[tuple[np.ndarray, np.ndarray, np.ndarray, float, str, bool]] = [
        (*corners[k], height, label, True) for k in index_corners for _ in range(looks)
    ]
    plain = BACK if label == BACK else NONE  # a back looks alike at all four corners
    for k in (1, 3):  # the corners without an index, read either way up
        where.append((*corners[k], height * rng.choice([1.0, 1.0 / aspect]), plain, True))
    p, xa, ya = corners[0]
    t = rng.uniform(0.15, 0.85)
    along = p + xa * t * width if rng.random() < 0.5 else p + ya * t * height
    where.append((along, xa, ya, height, NONE, True))  # a "junction" on the card's own edge
    inner = p + xa * rng.uniform(0.1, 0.9) * width + ya * rng.uniform(0.1, 0.9) * height
    turn = rng.uniform(0, 2 * np.pi)
    where.append((inner, turned(xa, turn), turned(ya, turn), height * rng.uniform(0.8, 1.2), NONE, False))
    p, xa, ya = corners[index_corners[rng.integers(len(index_corners))]]
    where.append((p, ya, -xa, height, NONE, True))  # the index corner read sideways
    # Well off the index corner (a junction further along an edge, another card's corner beside
    # this index): the index shows there cut or displaced, and must not be read.
    for direction in (xa, ya, turned(xa, rng.uniform(0, 2 * np.pi))):
        off = rng.uniform(*FAR_SHIFT) * height * direction * rng.choice([-1.0, 1.0])
        where.append((p + off, xa, ya, height, NONE, True))
    if label != BACK:
        p, xa, ya = corners[0]
        scale = _log_uniform(rng, WRONG_LARGER) if rng.random() < 0.5 else rng.uniform(*WRONG_SMALLER)
        where.append((p, xa, ya, height * scale, NONE, True))  # the index at a wrong size
        p, xa, ya = corners[int(rng.choice([1, 3]))]  # a plain corner, too large
        where.append((p, xa, ya, height * _log_uniform(rng, WRONG_LARGER), NONE, True))
    points, x_axes, y_axes, sizes, labels, moved = (np.array(column) for column in zip(*where, strict=True))
    points[moved], x_axes[moved], y_axes[moved], sizes[moved] = _as_found(
        points[moved], x_axes[moved], y_axes[moved], sizes[moved], rng
    )
    return points, x_axes, y_axes, sizes, labels.tolist()


def _corners(quad: np.ndarray) -> list[Corner]:
    """All four corners with the axes a corner finder reports (x across, y down, right-handed);
    TL and BR (0 and 2) are the index corners."""
    return [(quad[k], unit(quad[(k + 1) % 4] - quad[k]), unit(quad[k - 1] - quad[k])) for k in range(4)]


def _as_found(
    points: np.ndarray, x_axes: np.ndarray, y_axes: np.ndarray, heights: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Corners (n x 2 points and axes, n heights) the way a corner finder reports them: each a
    little off in place, angle and size (``PLACE_ERROR`` ...)."""
    n = len(points)
    shift = _error(rng, PLACE_ERROR, (n, 2)) * heights[:, None]
    turn = _error(rng, ANGLE_ERROR, n)
    skew = _error(rng, ANGLE_ERROR, n)
    sizes = heights * np.exp(_error(rng, SIZE_ERROR, n))
    moved = points + shift[:, :1] * x_axes + shift[:, 1:] * y_axes
    return moved, turned(x_axes, turn), turned(y_axes, turn + skew), sizes


def _error(rng: np.random.Generator, error: tuple[float, float], shape: int | tuple[int, int]) -> np.ndarray:
    """Normal errors of ``error``'s standard deviation, clipped to its limit."""
    spread, limit = error
    return np.clip(rng.normal(0, spread, shape), -limit, limit)


def _log_uniform(rng: np.random.Generator, bounds: tuple[float, float]) -> float:
    """A value drawn evenly in log scale between ``bounds``."""
    return float(np.exp(rng.uniform(np.log(bounds[0]), np.log(bounds[1]))))


def scene_samples(
    design: dict[str, np.ndarray],
    window: IndexWindow,
    rng: np.random.Generator,
    scenes: int,
    rank_box: tuple[float, float, float, float] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows and labels of the reader's own candidate corners on whole synthetic tables.

    The corner finders report corners where no card has one (along edges, inside fans), a little
    off where one has, and at the wrong size: training on exactly those windows teaches the
    classifier the places it will really be shown (labelled by ``_labels``). ``design`` holds the
    BGRA images by code plus ``back``; with its ``rank_box`` the candidates include those found
    where an index starts along an edge.
    """
    aspect = float(np.median([im.shape[0] / im.shape[1] for k, im in design.items() if k != "back"]))
    features: list[np.ndarray] = []
    labels: list[str] = []
    for _ in range(scenes):
        frame, truth = make_scene(design, rng)
        # Not the corners across a notch: the few found on the tables of a design without a dark
        # border are nearly all elsewhere than an index, and taught as nothing there they cost the
        # networks reads.
        candidates = find_candidates(frame, aspect, rank_box, window, notches=False).candidates
        if not candidates:
            continue
        windows, owner, heights = windows_of(frame, candidates, window)
        points = np.array([candidates[i].corner.point for i in owner.tolist()], float).reshape(-1, 2)
        x_axes = np.array([candidates[i].corner.x_axis for i in owner.tolist()], float).reshape(-1, 2)
        found = _labels(points, x_axes, np.asarray(heights, float), truth)
        keep = [row for row, label in enumerate(found) if label is not None]
        if keep:
            features.append(window_features(windows[keep]))
            labels.extend(found[row] for row in keep)
    return np.concatenate(features), np.array(labels)


def _labels(
    points: np.ndarray, x_axes: np.ndarray, heights: np.ndarray, truth: list[SceneCard]
) -> list[str | None]:
    """What each candidate corner (``points``, ``x_axes``: n x 2; sampled at ``heights``) is on a
    synthetic table, decided by the first true corner it lies on and is turned as: the card at a
    visible index corner of a fitting size, ``back`` at a face-down card's, ``none`` elsewhere;
    None (left out) near a true corner it fits badly, neither clearly right nor clearly nothing."""
    quads = np.array([card.quad for card in truth], float).reshape(-1, 4, 2)
    true_heights = np.repeat(np.linalg.norm(quads[:, 3] - quads[:, 0], axis=1), 4)  # per true corner
    corners = quads.reshape(-1, 2)
    across = (np.roll(quads, -1, axis=1) - quads).reshape(-1, 2)
    across /= np.maximum(np.linalg.norm(across, axis=1, keepdims=True), 1e-9)
    gap = np.linalg.norm(points[:, None, :] - corners[None], axis=2) / true_heights
    turn = x_axes @ across.T
    on = (gap < MATCH_PLACE) & (turn >= MATCH_ANGLE)
    near = ((gap < NEAR_PLACE) & (turn > 0.7)).any(axis=1)

    def label(row: int) -> str | None:
        hits = np.flatnonzero(on[row])
        if not len(hits):
            return None if near[row] else NONE
        card, k, true_height = truth[hits[0] // 4], int(hits[0] % 4), true_heights[hits[0]]
        if not card.face_up:
            return BACK
        if k in (1, 3) or abs(np.log(heights[row] / true_height)) > np.log(WRONG_SIZE):
            return NONE
        fits = abs(heights[row] - true_height) < MATCH_SIZE * true_height
        return card.code if fits and card.corners_visible[k // 2] else None

    return [label(row) for row in range(len(points))]
