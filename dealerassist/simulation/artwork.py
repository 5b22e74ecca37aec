"""Card artwork for development: the CC0 Kennard decks in shared/, the LGPL/GPL decks of public
packages and the designs of ``card_designs`` rendered on demand into a cache (never committed).

Every design lands as ``<rank><suit>.png`` plus ``back.png`` in one folder, the layout that
``dealerassist vision enroll`` reads. ``data/vision/designs.toml`` splits them all by design into
training, validation and test designs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
import tomllib
from pathlib import Path

import cv2
import numpy as np

from dealerassist.core.configfiles import bundled_dir
from dealerassist.errors import DealerAssistError
from dealerassist.simulation.card_designs import card_svgs
from dealerassist.vision.scenes import card_names

REPO_DIR = Path(__file__).resolve().parents[2]
CACHE_DIR = Path(os.environ.get("DEALERASSIST_CACHE", Path.home() / ".cache" / "dealerassist")) / "cardart"
SHARED_DESIGNS = ("kennard-2color", "kennard-4color-bf")
# Decks of KDE's card package (GPL) with French suits: each one's folder and file in carddecks/.
KDE_DECKS = {
    "kde-standard": "svg-standard/standard.svgz",
    "nicu-white": "svg-nicu-white/white.svgz",
    "nicu-ornamental": "svg-nicu-ornamental/ornamental.svgz",
    "oxygen": "svg-oxygen/oxygen.svgz",
    "oxygen-air": "svg-oxygen-air/oxygen-air.svgz",
    "oxygen-white": "svg-oxygen-white/oxygen-white.svgz",
    "gm-paris": "svg-gm-paris/paris.svgz",
    "tigullio-international": "svg-tigullio-international/tigullio-international.svgz",
    "dondorf": "svg-dondorf/dondorf.svgz",
    "jolly-royal": "svg-jolly-royal/jolly-royal.svgz",
    "future": "svg-future/future.svgz",
    "penguins": "svg-penguins/penguins.svgz",
    "ancient-egyptians": "svg-ancient-egyptians/Ancient_Egyptians.svgz",
}
RENDERED_DESIGNS = ("cardsjs", *KDE_DECKS)
GENERATED = "gen-"  # gen-N: the design ``card_designs`` draws from seed N
TUNING_DESIGN = "kennard-2color"  # the demo's deck, and the design thresholds are set on
CARD_WIDTH = 300


class ArtworkError(DealerAssistError):
    """A card design that cannot be found or rendered."""


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


def design_split() -> dict[str, list[str]]:
    """The designs of each split (``train``, ``validation``, ``test``) from data/vision/designs.toml."""
    with open(bundled_dir() / "vision" / "designs.toml", "rb") as file:
        return {split: list(names) for split, names in tomllib.load(file).items()}


def _seed(name: str) -> int | None:
    """N of a generated design's name gen-N, else None."""
    number = name.removeprefix(GENERATED)
    return int(number) if name.startswith(GENERATED) and number.isdigit() else None


def design_dir(name: str) -> Path:
    """Folder of one design, rendering it into the cache first unless it is a bundled deck."""
    if name in SHARED_DESIGNS:
        return shared_cardart(name) / name
    if name not in RENDERED_DESIGNS and _seed(name) is None:
        raise ArtworkError(
            f"unknown card design {name!r} (known: {', '.join(SHARED_DESIGNS + RENDERED_DESIGNS)}, "
            f"{GENERATED}N for N = 1, 2, ...)"
        )
    out = CACHE_DIR / name
    if all((out / f"{n}.png").is_file() for n in card_names()):
        return out
    with tempfile.TemporaryDirectory() as tmp:
        staging = Path(tmp) / name
        staging.mkdir()
        if name == "cardsjs":
            _render_cardsjs(Path(tmp), staging)
        elif name in KDE_DECKS:
            _render_kde(Path(tmp), staging, KDE_DECKS[name])
        else:
            _render_generated(Path(tmp), staging, _seed(name) or 0)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(staging, out)
    return out


def _run(cmd: list[str], cwd: Path) -> bytes:
    try:
        return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, timeout=300).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise ArtworkError(f"{' '.join(cmd[:3])}: {exc}") from None


def _save_card(png: bytes, path: Path) -> None:
    """Cut an RGBA render to the card outline (rsvg's canvas can be larger) and save it
    ``CARD_WIDTH`` wide."""
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise ArtworkError("rsvg-convert did not produce an RGBA PNG")
    ys, xs = np.nonzero(image[:, :, 3] > 128)
    image = image[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    height = round(image.shape[0] * CARD_WIDTH / image.shape[1])
    cv2.imwrite(str(path), cv2.resize(image, (CARD_WIDTH, height), interpolation=cv2.INTER_AREA))


def _render_cardsjs(tmp: Path, out: Path) -> None:
    _run(["npm", "pack", "cardsJS@1.1.1", "--silent"], tmp)
    with tarfile.open(next(tmp.glob("cardsJS-*.tgz"))) as tar:
        tar.extractall(tmp, filter="data")
    cards = tmp / "package" / "cards"
    _render_svgs(
        {name: cards / ("Blue_Back.svg" if name == "back" else f"{name}.svg") for name in card_names()}, out
    )


def _render_generated(tmp: Path, out: Path, seed: int) -> None:
    for name, text in card_svgs(seed).items():
        (tmp / f"{name}.svg").write_text(text, encoding="utf-8")
    _render_svgs({name: tmp / f"{name}.svg" for name in card_names()}, out)


def _render_svgs(svgs: dict[str, Path], out: Path) -> None:
    for name, svg in svgs.items():
        png = _run(["rsvg-convert", "-w", str(CARD_WIDTH * 4), "-a", str(svg)], svg.parent)
        _save_card(png, out / f"{name}.png")


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
        _save_card(png, out / f"{name}.png")
