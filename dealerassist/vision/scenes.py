"""Synthetic overhead frames of a dealt table, with the truth written beside each frame.

Cards of one design are laid out as single cards, touching pairs and fans (each card's index
left visible unless glare or the fan hides it), seen through a tilted camera over felt of any
colour, then spoiled the way real frames are: uneven light, glare, blur, noise, JPEG. Enrollment's
small training scenes (``training``) are drawn and spoiled with the same helpers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from dealerassist.core.cards import FULL_DECK
from dealerassist.vision.deck import read_card_png

FRAME_SIZE = (1280, 720)
INDEX_WINDOW = (0.0, 0.0, 0.2, 0.46)  # card heights from an index corner: where any design prints it
GLARE_HIDES = 70.0  # added brightness above which glare counts as hiding an index
FACE_DOWN_SHARE = 0.15  # of the cards dealt
NOISE_BANK = 1 << 22  # normals drawn once per process, a frame's 2.8 M values cut from them
NOISE_SEED = 20261207
SHADOW_ROOM = 10  # pixels around a laid card that its blurred, shifted shadow can reach

Region = tuple[slice, slice]  # rows and columns of a frame


@dataclass
class SceneCard:
    """The truth of one card in a scene: what it is, where it lies, which index a reader can see."""

    code: str
    face_up: bool
    quad: np.ndarray  # TL, TR, BR, BL in the image
    index_visible: bool = True
    corners_visible: tuple[bool, bool] = (True, True)  # the top-left and bottom-right index each

    def to_json(self) -> dict[str, object]:
        return {
            "card": self.code,
            "face_up": self.face_up,
            "quad": np.round(self.quad, 2).tolist(),
            "index_visible": self.index_visible,
        }


def card_names() -> list[str]:
    """The images a design folder holds: one per card (``AS`` .. ``KC``) and ``back``."""
    return [card.code for card in FULL_DECK] + ["back"]


def load_design(folder: str | Path) -> dict[str, np.ndarray]:
    """Card images of one design keyed by code, plus ``back``; transparent corners kept as alpha."""
    return {name: read_card_png(Path(folder) / f"{name}.png") for name in card_names()}


@cache
def _noise_bank() -> np.ndarray:
    return np.random.default_rng(NOISE_SEED).standard_normal(NOISE_BANK, dtype=np.float32)


def gaussian_noise(shape: tuple[int, ...], sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Gaussian noise of ``sigma`` in a fresh float32 array of ``shape``, cut at an offset ``rng``
    draws from a bank of normals drawn once: within a frame as independent as fresh values, which
    would cost a fifth of an enrollment's rendering to draw. Larger than the bank: drawn afresh."""
    count = int(np.prod(shape))
    bank = _noise_bank()
    if count > bank.size:
        return rng.standard_normal(shape, dtype=np.float32) * np.float32(sigma)
    start = int(rng.integers(0, bank.size - count + 1))
    return np.multiply(bank[start : start + count].reshape(shape), np.float32(sigma))


def spoil(
    canvas: np.ndarray,
    rng: np.random.Generator,
    noise: np.random.Generator,
    blur: float,
    grain: float,
    quality: tuple[int, int],
) -> np.ndarray:
    """A float canvas as a camera delivers it: blurred by a sigma of up to ``blur``, with sensor
    noise (drawn by ``noise``) of up to ``grain``, and JPEG-compressed at a ``quality`` in range."""
    sigma = rng.uniform(0.0, blur)
    if sigma > 0.3:
        canvas = cv2.GaussianBlur(canvas, (0, 0), sigma)
    noisy = gaussian_noise(canvas.shape, rng.uniform(0, grain), noise)
    noisy += canvas
    frame = np.clip(noisy, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*quality))])
    return cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else frame


def _felt(rng: np.random.Generator, noise: np.random.Generator) -> np.ndarray:
    w, h = FRAME_SIZE
    if rng.random() < 0.15:
        hsv = (rng.integers(0, 180), rng.integers(0, 25), rng.integers(50, 120))
    else:
        hsv = (rng.integers(0, 180), rng.integers(70, 240), rng.integers(60, 170))
    colour = cv2.cvtColor(np.uint8([[hsv]]), cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
    grain = cv2.GaussianBlur(gaussian_noise((h, w), 6.0, noise), (0, 0), 1.2)
    return cv2.merge([grain + value for value in colour.tolist()])


def _camera(rng: np.random.Generator) -> np.ndarray:
    """A mild perspective: the far side of the table a little narrower than the near side."""
    w, h = FRAME_SIZE
    squeeze = rng.uniform(0.0, 0.12) * w
    lift = rng.uniform(-0.05, 0.05) * h
    if rng.random() < 0.5:
        dst = np.float32([[squeeze, lift], [w - squeeze, -lift], [w, h], [0, h]])
    else:
        dst = np.float32([[0, 0], [w, 0], [w - squeeze, h + lift], [squeeze, h - lift]])
    return cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), dst)


def _layout(rng: np.random.Generator, count: int, height: float, aspect: float) -> list[np.ndarray]:
    """Up to ``count`` card quads on the flat table, before the camera, group by group (singles,
    touching pairs, fans), each group clear of the others; fewer when no room is found."""
    width = height / aspect
    laid: list[np.ndarray] = []
    boxes: list[tuple[float, float, float, float]] = []
    left = count
    for _ in range(400):
        if left <= 0:
            break
        size = int(min(left, rng.choice([1, 1, 2, 2, 3, 4, 5])))
        touching = size == 2 and rng.random() < 0.3
        angle = rng.uniform(0, 2 * np.pi)
        ux = np.array([np.cos(angle), np.sin(angle)])
        uy = np.array([-np.sin(angle), np.cos(angle)])
        quads = []
        offset = np.zeros(2)
        # Half the fans are spread flush, half with a small step across.
        step_down = 0.0 if rng.random() < 0.5 else rng.choice([-1.0, 1.0]) * rng.uniform(0.03, 0.1)
        for _ in range(size):
            scale = rng.uniform(0.95, 1.05)
            w_, h_ = width * scale, height * scale
            quads.append(np.array([offset, offset + ux * w_, offset + ux * w_ + uy * h_, offset + uy * h_]))
            step = w_ * (rng.uniform(1.0, 1.02) if touching else rng.uniform(0.33, 0.6))
            offset = offset + ux * step + uy * (0.0 if touching else step_down * h_)
        pts = np.concatenate(quads)
        span = pts.max(axis=0) - pts.min(axis=0)
        x0 = rng.uniform(10, FRAME_SIZE[0] - span[0] - 10) if span[0] < FRAME_SIZE[0] - 20 else None
        y0 = rng.uniform(10, FRAME_SIZE[1] - span[1] - 10) if span[1] < FRAME_SIZE[1] - 20 else None
        if x0 is None or y0 is None:
            continue
        shift = np.array([x0, y0]) - pts.min(axis=0)
        box = (x0 - 8, y0 - 8, x0 + span[0] + 8, y0 + span[1] + 8)
        if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in boxes):
            continue
        boxes.append(box)
        laid += [q + shift for q in quads]
        left -= size
    return laid


def paste_card(canvas: np.ndarray, card: np.ndarray, quad: np.ndarray) -> tuple[Region, np.ndarray]:
    """``warp_card`` from an image shrunk to at most 1.5 times the quad's height; returns the box
    laid in and the card's mask there."""
    target_h = float(np.linalg.norm(quad[3] - quad[0]))
    factor = max(1.0, card.shape[0] / (1.5 * target_h))
    if factor > 1:
        card = cv2.resize(card, None, fx=1 / factor, fy=1 / factor, interpolation=cv2.INTER_AREA)
    box, alpha = warp_card(canvas, card, quad)
    return box, (alpha > 0.5).astype(np.uint8)


def warp_card(canvas: np.ndarray, image: np.ndarray, quad: np.ndarray) -> tuple[Region, np.ndarray]:
    """Warp a card image (BGRA) into ``quad`` of a float canvas and lay it there with a soft
    shadow cast 2 px down and right, touching only the card's box and its shadow's room; returns
    that box and where the card covers it (0..1). ``cv2.blendLinear`` weighs three channels by one
    directly: a tenth of the time of numpy's broadcast."""
    low = np.maximum(np.floor(quad.min(axis=0)).astype(int) - SHADOW_ROOM, 0)
    high = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + SHADOW_ROOM, canvas.shape[1::-1])
    high = np.maximum(high, low)  # an empty box where the card lies off the canvas
    box = (slice(int(low[1]), int(high[1])), slice(int(low[0]), int(high[0])))
    roi = canvas[box]
    if roi.size == 0:
        return box, np.zeros(roi.shape[:2], np.float32)
    h, w = image.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    matrix = cv2.getPerspectiveTransform(src, (quad - low).astype(np.float32))
    size = (roi.shape[1], roi.shape[0])
    warped = cv2.warpPerspective(image, matrix, size, flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3].astype(np.float32) * np.float32(1 / 255)
    blurred = cv2.GaussianBlur(alpha, (0, 0), 2.0)
    shade = np.zeros_like(blurred)
    shade[2:, 2:] = np.float32(0.3) * blurred[:-2, :-2]
    shaded = cv2.blendLinear(roi, np.zeros_like(roi), np.float32(1) - shade, shade)
    roi[:] = cv2.blendLinear(shaded, warped[:, :, :3].astype(np.float32), np.float32(1) - alpha, alpha)
    return box, alpha


def _corners_seen(quad: np.ndarray, above: np.ndarray, glare: np.ndarray) -> tuple[bool, bool]:
    """Whether a reader can see the index at a card's top-left and bottom-right corner: no more
    than 1 % of its ``INDEX_WINDOW`` under the cards laid later (``above``), and no ``glare``
    there brighter than ``GLARE_HIDES``."""
    seen = []
    for origin, across, down in ((0, 1, 3), (2, 3, 1)):
        p, ux, uy = quad[origin], quad[across] - quad[origin], quad[down] - quad[origin]
        height = np.linalg.norm(uy)
        ux = ux / np.linalg.norm(ux) * height
        x0, y0, x1, y1 = INDEX_WINDOW
        poly = np.array([p + ux * x + uy * y for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))])
        points = np.round(poly).astype(np.int32)
        left, top = np.clip(points.min(axis=0), 0, None)
        right, bottom = np.minimum(points.max(axis=0) + 1, (above.shape[1], above.shape[0]))
        window = np.zeros((max(bottom - top, 0), max(right - left, 0)), np.uint8)
        if window.size:
            cv2.fillConvexPoly(window, points - (left, top), 1)
        box = (slice(top, bottom), slice(left, right))
        area = int(window.sum())
        hidden = int((window & above[box]).sum()) > 0.01 * area
        glared = area > 0 and float(glare[box][window > 0].max()) > GLARE_HIDES
        seen.append(not hidden and not glared)
    return seen[0], seen[1]


def make_scene(
    design: dict[str, np.ndarray],
    rng: np.random.Generator,
    cards: int | None = None,
    sensor: np.random.Generator | None = None,
) -> tuple[np.ndarray, list[SceneCard]]:
    """One JPEG-degraded 1280x720 frame and the truth for every card in it. With ``sensor`` its
    sensor noise is drawn from that generator: the same ``rng`` state with another ``sensor`` is
    another frame of the same still table, as a camera's next frame is."""
    w, h = FRAME_SIZE
    # Grain and sensor noise draw from a generator of their own, so ``rng`` draws the same table
    # however the noise is made.
    noise = np.random.default_rng(int(rng.integers(2**31)))
    canvas = _felt(rng, noise)
    aspect = design["AS"].shape[0] / design["AS"].shape[1]
    count = int(cards if cards is not None else rng.integers(1, 15))
    height = rng.uniform(78, 185)
    camera = _camera(rng)
    codes = rng.permutation([c.code for c in FULL_DECK])[:count]
    quads = _layout(rng, count, height, aspect)
    placed: list[tuple[SceneCard, tuple[Region, np.ndarray]]] = []
    for code, quad in zip(codes[: len(quads)].tolist(), quads, strict=True):
        face_up = bool(rng.random() >= FACE_DOWN_SHARE)
        img_quad = cv2.perspectiveTransform(quad[None].astype(np.float32), camera)[0].astype(np.float64)
        laid = paste_card(canvas, design[code] if face_up else design["back"], img_quad)
        placed.append((SceneCard(code, face_up, img_quad), laid))
    glare = _light(canvas, rng)
    above = np.zeros((h, w), np.uint8)  # the cards laid after the one looked at, from the top down
    for card, (box, mask) in reversed(placed):
        card.corners_visible = _corners_seen(card.quad, above, glare)
        card.index_visible = any(card.corners_visible)
        above[box] |= mask
    frame = spoil(canvas, rng, noise if sensor is None else sensor, blur=1.2, grain=6.0, quality=(55, 96))
    return frame, [card for card, _ in placed]


def _light(canvas: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uneven light and glare, applied in place; returns the glare brightness map."""
    h, w = canvas.shape[:2]
    across = np.arange(w, dtype=np.float32) / np.float32(w)
    down = np.arange(h, dtype=np.float32) / np.float32(h)
    angle, low = rng.uniform(0, 2 * np.pi), rng.uniform(0.5, 0.9)
    tint = rng.uniform(0.93, 1.07, 3)
    canvas *= uneven_light(across, down, angle, low, tint)
    glare = np.zeros((h, w), np.float32)
    spots = int(rng.integers(0, 3))
    for _ in range(spots):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        sx, sy = rng.uniform(20, 90), rng.uniform(20, 90)
        glare += glare_spot(across, down, (cx / w, cy / h), (sx / w, sy / h), rng.uniform(50, 170))
    if spots:
        canvas += cv2.cvtColor(glare, cv2.COLOR_GRAY2BGR)
    return glare


def uneven_light(
    across: np.ndarray, down: np.ndarray, angle: float, low: float, tint: np.ndarray
) -> np.ndarray:
    """A three-channel light gain falling evenly in direction ``angle`` over a frame whose columns
    and rows lie at ``across`` and ``down``: 1 at the brightest corner, ``low`` at the darkest, each
    channel scaled by its ``tint``. The sum of a row and a column (a tenth of the time of every
    pixel's coordinates), merged per channel (half the time of numpy's broadcast)."""
    row, column = np.float32(np.cos(angle)) * across, np.float32(np.sin(angle)) * down
    lowest = row.min() + column.min()
    step = np.float32((1 - low) / max(float(row.max() + column.max() - lowest), 1e-6))
    gain = (np.float32(low) + step * (row - lowest))[None, :] + (step * column)[:, None]
    return cv2.merge([gain * np.float32(value) for value in tint.tolist()])


def glare_spot(
    across: np.ndarray,
    down: np.ndarray,
    centre: tuple[float, float],
    spread: tuple[float, float],
    peak: float,
) -> np.ndarray:
    """A glare spot's added brightness, ``peak`` at ``centre`` (in the units of ``across`` and
    ``down``) and falling as a Gaussian of ``spread``: the product of a row and a column."""
    row = np.exp(-(((across - np.float32(centre[0])) / np.float32(spread[0])) ** 2))
    column = np.float32(peak) * np.exp(-(((down - np.float32(centre[1])) / np.float32(spread[1])) ** 2))
    return column[:, None] * row[None, :]


def write_scenes(
    design_folder: str | Path, out_dir: str | Path, count: int, seed: int = 0, cards: int | None = None
) -> list[Path]:
    """Write ``scene-NNNN.jpg`` plus ``scene-NNNN.json`` (the truth) for ``count`` scenes."""
    design = load_design(design_folder)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    written = []
    for i in range(count):
        frame, truth = make_scene(design, rng, cards)
        path = out / f"scene-{i:04d}.jpg"
        cv2.imwrite(str(path), frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
        meta = {
            "design": Path(design_folder).name,
            "size": list(FRAME_SIZE),
            "seed": seed,
            "scene": i,
            "cards": [c.to_json() for c in truth],
        }
        path.with_suffix(".json").write_text(json.dumps(meta, indent=1))
        written.append(path)
    return written
