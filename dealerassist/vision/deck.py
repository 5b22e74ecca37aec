"""What the reader knows about one deck design, saved as one ``.npz`` deck file made by
``enrollment.enroll``: where the design prints its corner index, the committee of index
classifiers trained for it, and its back's corner colours.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from dealerassist.core.configfiles import bundled_dir
from dealerassist.errors import DealerAssistError
from dealerassist.vision.corner import corner_region
from dealerassist.vision.index_window import IndexWindow
from dealerassist.vision.indexnet import Committee

BACK_REGION = (0.05, 0.05, 0.2, 0.35)  # x0, y0, x1, y1 in card heights: inside the card either way round
BACK_GRID = (4, 6)
FELT_BGR = (90, 110, 60)  # what a card image's transparent corners become
# Bumped whenever what the networks are fed or the file's layout changes: a deck file of another
# format is refused rather than read wrong (the shipped decks' README says how to remake them).
DECK_FORMAT = 3
SHIPPED = "dealerassist/data/vision"  # in the source tree


class DeckFileError(DealerAssistError):
    """A deck folder or deck file that cannot be used; the message names the file."""


@dataclass(frozen=True)
class DeckModel:
    """Everything the reader knows about one design."""

    name: str
    aspect: float  # card height / width
    rank_box: tuple[float, float, float, float]  # where the rank is printed (card heights)
    window: IndexWindow  # the corner region the classifier looks at
    net: Committee
    back_features: np.ndarray  # (m, k)
    check: dict[str, float] = field(default_factory=dict)  # enrollment's self-check on fresh windows
    enrolled_by: str = ""  # ``vision_code_version()`` of the code that trained the networks

    def save(self, path: str | Path) -> None:
        meta = {
            "format": DECK_FORMAT,
            "name": self.name,
            "aspect": self.aspect,
            "rank_box": self.rank_box,
            "window": [self.window.across, self.window.down],
            "check": self.check,
            "enrolled_by": self.enrolled_by,
        }
        # Through an open file: given a name without ".npz", numpy would add it.
        with open(path, "wb") as out:
            np.savez_compressed(
                out, meta=np.array(json.dumps(meta)), back_features=self.back_features, **self.net.arrays()
            )

    @classmethod
    def load(cls, path: str | Path) -> DeckModel:
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                if meta.get("format") != DECK_FORMAT:
                    raise DeckFileError(
                        f"{path}: deck file format {meta.get('format')!r}, this code reads format"
                        f" {DECK_FORMAT}: enroll the deck again ('{remake_command(path)}')"
                    )
                return cls(
                    name=meta["name"],
                    aspect=float(meta["aspect"]),
                    rank_box=tuple(meta["rank_box"]),
                    window=IndexWindow(*(float(v) for v in meta["window"])),
                    net=Committee.from_arrays(data),
                    back_features=data["back_features"],
                    check={k: float(v) for k, v in meta.get("check", {}).items()},
                    enrolled_by=str(meta.get("enrolled_by", "")),
                )
        except FileNotFoundError:
            raise DeckFileError(
                f"{path}: no such deck file (make one with 'dealerassist vision enroll')"
            ) from None
        except (OSError, ValueError, KeyError):
            # numpy's own reasons (a bad zip or JSON, pickled data, a missing key) would mislead.
            raise DeckFileError(
                f"{path}: not a deck file made by 'dealerassist vision enroll' (enroll the deck to make one)"
            ) from None


def bundled_deck(design: str) -> Path:
    """The deck file shipped with the package for ``design`` (the demo's deck)."""
    return bundled_dir() / "vision" / "decks" / f"{design}.npz"


def remake_command(path: Path) -> str:
    """The command that enrolls the deck file ``path`` again: for a shipped deck, its recipe."""
    if path.resolve() == bundled_deck(path.stem).resolve():
        return (
            f"dealerassist vision enroll {SHIPPED}/cardart/{path.stem} --training-scenes 600 --tables 1200 "
            f"--out {SHIPPED}/decks/{path.name}"
        )
    return f"dealerassist vision enroll CARD_FOLDER --out {path}"


def vision_code_version() -> str:
    """A digest of the vision code, recorded in each deck file."""
    digest = hashlib.sha256()
    for source in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


def read_card_png(path: Path) -> np.ndarray:
    """A card image as 8-bit BGRA from any grey or colour PNG, with or without alpha, 8 or 16 bits
    a channel (a scanner's or an export's choice, not the design's)."""
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise DeckFileError(f"{path}: cannot read this image")
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    elif image.dtype != np.uint8:
        raise DeckFileError(f"{path}: {image.dtype} pixels; save it as an 8- or 16-bit PNG")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGRA)
    elif image.shape[2] == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    if min(image.shape[:2]) < 100:
        raise DeckFileError(
            f"{path}: {image.shape[1]}x{image.shape[0]} px is too small to enroll (need 100+)"
        )
    return image


def load_card_image(path: Path) -> np.ndarray:
    """A card PNG as BGR, its transparent corners felt so rounded corners look as on a table."""
    image = read_card_png(path)
    alpha = image[:, :, 3:4].astype(np.float32) / 255.0
    return (image[:, :, :3] * alpha + np.array(FELT_BGR, np.float32) * (1 - alpha)).astype(np.uint8)


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
    steps = (x1 * height_px / size[0], y1 * height_px / size[1])
    region = corner_region(image, corner, x_axis, y_axis, steps, size)
    lab = cv2.cvtColor(region, cv2.COLOR_BGR2LAB).astype(np.float32)
    # The white edge: the brightest of a lightly smoothed lightness (one bright pixel is noise).
    white = float(cv2.minMaxLoc(cv2.blur(lab[:, :, 0], (3, 3)))[1])
    inner = lab[round(size[1] * BACK_REGION[1] / y1) :, round(size[0] * BACK_REGION[0] / x1) :]
    cells = cv2.resize(inner, BACK_GRID, interpolation=cv2.INTER_AREA)
    cells[:, :, 0] -= white
    return cells.ravel()
