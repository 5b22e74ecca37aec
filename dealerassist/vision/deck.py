"""A deck design learned from one clean image per card: glyph templates and the card back.

``enroll(folder)`` cuts every card's rank and suit out of its two index corners at several
camera-like sizes (through ``corner``, the same code that reads frames), so a new design needs
nothing but its 53 images. The result is saved as one ``.npz`` deck file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from dealerassist.core.cards import FULL_DECK
from dealerassist.errors import DealerAssistError
from dealerassist.vision.corner import Glyph, find_glyphs, rectify

ENROLL_HEIGHTS = (72, 86, 100, 120, 145, 175, 210)
ENROLL_BLURS = (0.5, 1.0)
FIRST_PASS_RANK_BOX = (0.0, 0.0, 0.16, 0.16)
BACK_REGION = (0.05, 0.05, 0.2, 0.35)  # x0, y0, x1, y1 in card heights: inside the card either way round
BACK_GRID = (4, 6)
DECK_FORMAT = 1


class DeckFileError(DealerAssistError):
    """A deck folder or deck file that cannot be used; the message names the file."""


@dataclass(frozen=True)
class DeckModel:
    """Everything the reader knows about one design."""

    name: str
    aspect: float  # card height / width
    rank_box: tuple[float, float, float, float]
    rank_features: np.ndarray  # (n, d)
    rank_labels: np.ndarray  # (n,) rank characters
    rank_aspects: np.ndarray  # (n,)
    suit_features: np.ndarray
    suit_labels: np.ndarray
    suit_colours: dict[str, np.ndarray]  # suit letter -> ink chroma (a*, b*)
    back_features: np.ndarray  # (m, k)

    def save(self, path: str | Path) -> None:
        meta = {
            "format": DECK_FORMAT,
            "name": self.name,
            "aspect": self.aspect,
            "rank_box": self.rank_box,
            "suit_colours": {k: v.tolist() for k, v in self.suit_colours.items()},
        }
        np.savez_compressed(
            Path(path),
            meta=np.array(json.dumps(meta)),
            rank_features=self.rank_features,
            rank_labels=self.rank_labels,
            rank_aspects=self.rank_aspects,
            suit_features=self.suit_features,
            suit_labels=self.suit_labels,
            back_features=self.back_features,
        )

    @classmethod
    def load(cls, path: str | Path) -> DeckModel:
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                if meta.get("format") != DECK_FORMAT:
                    raise DeckFileError(
                        f"{path}: deck file format {meta.get('format')!r}, expected {DECK_FORMAT}"
                    )
                return cls(
                    name=meta["name"],
                    aspect=float(meta["aspect"]),
                    rank_box=tuple(meta["rank_box"]),
                    rank_features=data["rank_features"],
                    rank_labels=data["rank_labels"],
                    rank_aspects=data["rank_aspects"],
                    suit_features=data["suit_features"],
                    suit_labels=data["suit_labels"],
                    suit_colours={k: np.array(v, np.float32) for k, v in meta["suit_colours"].items()},
                    back_features=data["back_features"],
                )
        except DeckFileError:
            raise
        except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
            raise DeckFileError(
                f"{path}: not a deck file made by 'dealerassist vision enroll' ({exc})"
            ) from None


def load_card_image(path: Path, felt: tuple[int, int, int] = (90, 110, 60)) -> np.ndarray:
    """Read a card PNG; transparent corners become felt so rounded corners look as on a table."""
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise DeckFileError(f"{path}: cannot read this image")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        alpha = image[:, :, 3:4].astype(np.float32) / 255.0
        image = (image[:, :, :3] * alpha + np.array(felt, np.float32) * (1 - alpha)).astype(np.uint8)
    if min(image.shape[:2]) < 100:
        raise DeckFileError(
            f"{path}: {image.shape[1]}x{image.shape[0]} px is too small to enroll (need 100+)"
        )
    return image


def back_feature(
    image: np.ndarray, corner: np.ndarray, x_axis: np.ndarray, y_axis: np.ndarray, height_px: float
) -> np.ndarray:
    """Coarse colour layout just inside a corner: what a card back looks like from any side.

    Lightness is taken relative to the paper white at the very edge of the card (every design
    has one), so the light level cancels but a grey back pattern still differs from a white face.
    """
    x1, y1 = BACK_REGION[2], BACK_REGION[3]
    cols, rows = BACK_GRID
    size = (cols * 6, rows * 6)  # fine enough that a fine back pattern averages instead of aliasing
    step_x = x1 * height_px / size[0]
    step_y = y1 * height_px / size[1]
    matrix = np.array(
        [
            [x_axis[0] * step_x, y_axis[0] * step_y, corner[0]],
            [x_axis[1] * step_x, y_axis[1] * step_y, corner[1]],
        ]
    )
    region = cv2.warpAffine(
        image, matrix, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
    )
    lab = cv2.cvtColor(region, cv2.COLOR_BGR2LAB).astype(np.float32)
    # The white edge: the brightest of a lightly smoothed lightness (one bright pixel is noise).
    white = float(cv2.minMaxLoc(cv2.blur(lab[:, :, 0], (3, 3)))[1])
    inner = lab[round(size[1] * BACK_REGION[1] / y1) :, round(size[0] * BACK_REGION[0] / x1) :]
    cells = cv2.resize(inner, BACK_GRID, interpolation=cv2.INTER_AREA)
    cells[:, :, 0] -= white
    return cells.ravel()


def _scaled(image: np.ndarray, height: int, pad: int, blur: float = 0.5) -> tuple[np.ndarray, float]:
    """The card as a camera sees it at ``height`` pixels, with a little lens blur."""
    width = round(image.shape[1] * height / image.shape[0])
    small = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), blur)
    return cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_REPLICATE), float(height)


def _corner_frames(image: np.ndarray, pad: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Top-left and bottom-right index corners, each with its own edge axes (x across, y down)."""
    h, w = image.shape[:2]
    return [
        (np.array([pad, pad], float), np.array([1.0, 0.0]), np.array([0.0, 1.0])),
        (np.array([w - pad, h - pad], float), np.array([-1.0, 0.0]), np.array([0.0, -1.0])),
    ]


def _glyphs_of(
    image: np.ndarray,
    height: int,
    rank_box: tuple[float, float, float, float],
    slack: float,
    blur: float = 0.5,
) -> list[tuple[Glyph, Glyph]]:
    pad = 8
    scaled, h = _scaled(image, height, pad, blur)
    found = []
    for corner, x_axis, y_axis in _corner_frames(scaled, pad):
        pair = find_glyphs(rectify(scaled, corner, x_axis, y_axis, h), rank_box, slack)
        if pair is not None:
            found.append(pair)
    return found


def enroll(folder: str | Path, name: str | None = None) -> DeckModel:
    """Learn a design from ``folder`` holding ``AS.png`` .. ``KC.png`` and ``back.png``."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DeckFileError(f"{folder}: not a folder of card images")
    missing = [c.code for c in FULL_DECK if not (folder / f"{c.code}.png").is_file()]
    if not (folder / "back.png").is_file():
        missing.append("back")
    if missing:
        raise DeckFileError(f"{folder}: missing {', '.join(m + '.png' for m in missing)}")
    faces = {c.code: load_card_image(folder / f"{c.code}.png") for c in FULL_DECK}
    back = load_card_image(folder / "back.png")
    aspect = float(np.median([im.shape[0] / im.shape[1] for im in faces.values()]))

    boxes = []
    for code, image in faces.items():
        pairs = _glyphs_of(image, image.shape[0], FIRST_PASS_RANK_BOX, 1.0)
        if not pairs:
            raise DeckFileError(f"{folder / (code + '.png')}: no rank and suit found in the top-left corner")
        boxes.append(pairs[0][0].box)
    rank_box = tuple(float(v) for v in np.median(np.array(boxes), axis=0))

    rank_f, rank_l, rank_a, suit_f, suit_l = [], [], [], [], []
    colours: dict[str, list[np.ndarray]] = {s: [] for s in "SHDC"}
    for code, image in faces.items():
        for height, blur in ((h, b) for h in ENROLL_HEIGHTS for b in ENROLL_BLURS):
            for rank, suit in _glyphs_of(image, height, rank_box, 0.35, blur):
                rank_f.append(rank.feature)
                rank_l.append(code[0])
                rank_a.append(rank.aspect)
                suit_f.append(suit.feature)
                suit_l.append(code[1])
                if height >= 100:
                    colours[code[1]].append(suit.colour)
    unread = sorted({c.code for c in FULL_DECK} - {f"{r}{s}" for r, s in zip(rank_l, suit_l, strict=True)})
    if unread:
        raise DeckFileError(f"{folder}: index not readable on {', '.join(unread)} at camera sizes")

    back_f = []
    for height in ENROLL_HEIGHTS:
        for turn in range(4):
            turned = np.rot90(back, turn).copy()
            pad = 8
            scaled, _ = _scaled(turned, round(height * turned.shape[0] / back.shape[0]), pad)
            long_side = max(back.shape[:2]) * height / back.shape[0]
            for corner, x_axis, y_axis in _corner_frames(scaled, pad):
                back_f.append(back_feature(scaled, corner, x_axis, y_axis, long_side))
    return DeckModel(
        name=name or folder.name,
        aspect=aspect,
        rank_box=rank_box,
        rank_features=np.array(rank_f, np.float32),
        rank_labels=np.array(rank_l),
        rank_aspects=np.array(rank_a, np.float32),
        suit_features=np.array(suit_f, np.float32),
        suit_labels=np.array(suit_l),
        suit_colours={s: np.median(np.array(v), axis=0).astype(np.float32) for s, v in colours.items()},
        back_features=np.array(back_f, np.float32),
    )
