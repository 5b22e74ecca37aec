"""Card artwork for development: the CC0 Kennard decks in shared/, and the LGPL/GPL decks rendered
on demand into a cache (never committed) so the benchmark evaluates on designs nobody tuned on.

Every design lands as ``<rank><suit>.png`` plus ``back.png`` in one folder, the layout that
``dealerassist vision enroll`` reads.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

import cv2
import numpy as np

from dealerassist.core.cards import FULL_DECK
from dealerassist.core.configfiles import bundled_dir
from dealerassist.errors import DealerAssistError

REPO_DIR = Path(__file__).resolve().parents[2]
CACHE_DIR = Path(os.environ.get("DEALERASSIST_CACHE", Path.home() / ".cache" / "dealerassist")) / "cardart"
SHARED_DESIGNS = ("kennard-2color", "kennard-4color-bf")
# Decks of KDE's card package (GPL): the deck file of each design in the package's carddecks folder.
KDE_DECKS = {"kde-standard": "svg-standard/standard.svgz", "nicu-white": "svg-nicu-white/white.svgz"}
RENDERED_DESIGNS = ("cardsjs", *KDE_DECKS)
TUNING_DESIGN = "kennard-2color"  # the demo's deck, and the design thresholds are set on
# A second design to develop on, never benchmarked: its fans' outlines mislead the size guesses
# the way the benchmark's cardsJS and KDE decks do, which kennard-2color's seldom do.
DEVELOPMENT_DESIGNS = (TUNING_DESIGN, "nicu-white")
EVALUATION_DESIGNS = ("cardsjs", "kde-standard", "kennard-4color-bf")
CARD_WIDTH = 300


class ArtworkError(DealerAssistError):
    """A card design that cannot be found or rendered."""


def card_names() -> list[str]:
    return [card.code for card in FULL_DECK] + ["back"]


def shared_cardart(design: str = TUNING_DESIGN) -> Path:
    """The artwork folder holding ``design``: $DEALERASSIST_CARDART, the CC0 decks bundled in
    ``dealerassist/data/vision/cardart``, or the development ``shared/cardart`` beside the work tree."""
    candidates = [
        os.environ.get("DEALERASSIST_CARDART", ""),
        bundled_dir() / "vision" / "cardart",
        REPO_DIR.parent / "shared" / "cardart",
    ]
    for candidate in candidates:
        if candidate and (Path(candidate) / design).is_dir():
            return Path(candidate)
    raise ArtworkError(
        f"card artwork {design!r} not found: set DEALERASSIST_CARDART to a folder that holds it"
    )


def design_dir(name: str) -> Path:
    """Folder of one design, rendering it into the cache first if it is an LGPL/GPL deck."""
    if name in SHARED_DESIGNS:
        return shared_cardart(name) / name
    if name not in RENDERED_DESIGNS:
        raise ArtworkError(
            f"unknown card design {name!r} (known: {', '.join(SHARED_DESIGNS + RENDERED_DESIGNS)})"
        )
    out = CACHE_DIR / name
    if all((out / f"{n}.png").is_file() for n in card_names()):
        return out
    with tempfile.TemporaryDirectory() as tmp:
        staging = Path(tmp) / name
        staging.mkdir()
        if name == "cardsjs":
            _render_cardsjs(Path(tmp), staging)
        else:
            _render_kde(Path(tmp), staging, KDE_DECKS[name])
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(staging, out)
    return out


def _run(cmd: list[str], cwd: Path) -> bytes:
    try:
        return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, timeout=300).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise ArtworkError(f"{' '.join(cmd[:3])}: {exc}") from None


def _trimmed(png: bytes) -> np.ndarray:
    """Decode an RGBA render and cut it to the card outline (rsvg's canvas can be larger)."""
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise ArtworkError("rsvg-convert did not produce an RGBA PNG")
    ys, xs = np.nonzero(image[:, :, 3] > 128)
    return image[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _save_width(image: np.ndarray, path: Path) -> None:
    height = round(image.shape[0] * CARD_WIDTH / image.shape[1])
    cv2.imwrite(str(path), cv2.resize(image, (CARD_WIDTH, height), interpolation=cv2.INTER_AREA))


def _render_cardsjs(tmp: Path, out: Path) -> None:
    _run(["npm", "pack", "cardsJS@1.1.1", "--silent"], tmp)
    with tarfile.open(next(tmp.glob("cardsJS-*.tgz"))) as tar:
        tar.extractall(tmp, filter="data")
    cards = tmp / "package" / "cards"
    for name in card_names():
        svg = cards / ("Blue_Back.svg" if name == "back" else f"{name}.svg")
        png = _run(["rsvg-convert", "-w", str(CARD_WIDTH * 4), "-a", str(svg)], tmp)
        _save_width(_trimmed(png), out / f"{name}.png")


def _render_kde(tmp: Path, out: Path, deck_file: str) -> None:
    _run(["apt-get", "download", "kdegames-card-data-kf5"], tmp)
    deb = next(tmp.glob("kdegames-card-data-kf5_*.deb"))
    _run(["dpkg", "-x", str(deb), "kde"], tmp)
    deck = tmp / "kde" / "usr" / "share" / "carddecks" / deck_file
    ranks = dict(zip("A23456789TJQK", "1 2 3 4 5 6 7 8 9 10 jack queen king".split(), strict=True))
    suits = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
    for name in card_names():
        element = "back" if name == "back" else f"{ranks[name[0]]}_{suits[name[1]]}"
        png = _run(["rsvg-convert", "-i", element, "-z", "4.2", str(deck)], tmp)
        _save_width(_trimmed(png), out / f"{name}.png")
