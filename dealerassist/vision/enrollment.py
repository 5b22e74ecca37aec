"""Learn a deck design from one clean image per card (``dealerassist vision enroll``).

Finds where the design prints its corner index, learns the deck's own classifier heads on the
universal trunk's features (``indexnet``, ``index_cnn``) from small scenes rendered around its
cards (``training``), and measures the back's corners: some half a minute of CPU. A self-check
reads fresh windows of the design's own cards, the operator's first sign that the deck is (or is
not) readable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from dealerassist.core.cards import FULL_DECK
from dealerassist.vision.corner import Glyph, find_glyphs, rectify
from dealerassist.vision.deck import (
    DeckFileError,
    DeckModel,
    back_feature,
    load_card_image,
    load_trunk,
    vision_code_version,
)
from dealerassist.vision.index_window import IndexWindow
from dealerassist.vision.indexnet import BACK, NONE, SURE, Committee, Trunk, train
from dealerassist.vision.scenes import load_design
from dealerassist.vision.training import Describe, render_samples, scene_samples

ENROLL_HEIGHTS = (72, 86, 100, 120, 145, 175, 210)
FIRST_PASS_RANK_BOX = (0.0, 0.0, 0.16, 0.16)
WINDOW_SLACK = 0.03  # card heights of paper kept around the printed index in the classifier window
MIN_INDEXES_FOUND = 26  # cards whose rank and suit must be found to learn where the deck prints them
TRAINING_SEED = 20261129  # enrollment is repeatable: the same images give the same deck file
CHECK_SEED = TRAINING_SEED + 1
CHECK_SCENES = 4  # fresh scenes per card for the self-check (about 3 windows each)
# The deck's heads: a committee of MEMBERS, each learnt on its own draw of SCENES_PER_CARD small
# scenes around every card and the candidate corners of TABLES whole synthetic tables. On the
# validation designs this read 98.9 % of the cards right in some 30 CPU seconds a deck.
MEMBERS = 2
SCENES_PER_CARD = 20
TABLES = 40
HIDDEN = (128,)  # units of each head's hidden layer


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
    image: np.ndarray, height: int, rank_box: tuple[float, float, float, float], slack: float
) -> list[tuple[Glyph, Glyph]]:
    pad = 8
    scaled, h = _scaled(image, height, pad)
    found = []
    for corner, x_axis, y_axis in _corner_frames(scaled, pad):
        pair = find_glyphs(rectify(scaled, corner, x_axis, y_axis, h), rank_box, slack)
        if pair is not None:
            found.append(pair)
    return found


def check_folder(folder: str | Path) -> Path:
    """The folder, or DeckFileError naming what is missing, before any image is read."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DeckFileError(f"{folder}: not a folder of card images: {FOLDER_LAYOUT}")
    missing = [c.code for c in FULL_DECK if not (folder / f"{c.code}.png").is_file()]
    if not (folder / "back.png").is_file():
        missing.append("back")
    images = len(FULL_DECK) + 1  # the faces and the back
    if len(missing) > images // 2:  # not a deck folder with a few cards left out: say what one holds
        raise DeckFileError(f"{folder}: {images - len(missing)} of the {images} card images: {FOLDER_LAYOUT}")
    if missing:
        raise DeckFileError(f"{folder}: missing {', '.join(m + '.png' for m in missing)}")
    return folder


FOLDER_LAYOUT = (
    "a deck folder holds one clean image per card, AS.png ... TD.png ... KC.png (rank A 2-9 T J Q K, "
    "suit S H D C), and back.png"
)


@dataclass(frozen=True)
class IndexPlace:
    """Where a design prints its corner index, learnt from its clean card images."""

    rank_box: tuple[float, float, float, float]  # the median card's rank (card heights)
    window: IndexWindow  # around rank and suit of nearly every card, with a margin of paper
    not_found: tuple[str, ...]  # cards whose rank and suit were not found apart from the pips


def index_place(folder: Path, faces: dict[str, np.ndarray]) -> IndexPlace:
    """Where the cards of ``faces`` (images by code, from ``folder``) print rank and suit.

    A design prints its index in one place on every card, so the cards where it stands clear say
    where: some designs crowd a small card's index against its pips (a 4 of clubs whose suit sign
    touches the pip beside it), and on those cards it is not found. DeckFileError when fewer than
    MIN_INDEXES_FOUND cards show one, naming them: then the images are not of a design with
    standard corner indexes, or not cut to the card.
    """
    rank_boxes, index_ends, not_found = [], [], []
    for code, image in faces.items():
        pairs = _glyphs_of(image, image.shape[0], FIRST_PASS_RANK_BOX, 1.0)
        if not pairs:
            not_found.append(code)
            continue
        rank, suit = pairs[0]
        rank_boxes.append(rank.box)
        index_ends.append((max(rank.box[2], suit.box[2]), suit.box[3]))
    if len(rank_boxes) < MIN_INDEXES_FOUND:
        listed = ", ".join(f"{code}.png" for code in not_found[:8]) + (", ..." if len(not_found) > 8 else "")
        raise DeckFileError(
            f"{folder}: no rank and suit found in the top-left corner of {len(not_found)} of "
            f"{len(faces)} cards ({listed}); each image must be one card, cut to its outline, "
            "with its rank printed above its suit"
        )
    x0, y0, x1, y1 = (float(v) for v in np.median(np.array(rank_boxes), axis=0))
    across, down = np.percentile(np.array(index_ends), 90, axis=0) + WINDOW_SLACK
    return IndexPlace(
        (x0, y0, x1, y1),
        IndexWindow(float(min(across, 0.24)), float(min(down, 0.5))),
        tuple(not_found),
    )


def enroll(
    folder: str | Path,
    name: str | None = None,
    notice: Callable[[str], None] | None = None,
    trunk: Trunk | None = None,
    members: int = MEMBERS,
) -> DeckModel:
    """Learn a design from ``folder`` holding ``AS.png`` .. ``KC.png`` and ``back.png``.

    The deck's ``members`` heads read the shipped trunk (``deck.TRUNK``) unless given another.
    ``notice`` is told of cards whose index was not found (``index_place``).
    """
    if members < 1:
        raise ValueError(f"a committee needs at least one member, not {members}")
    folder = check_folder(folder)
    trunk = load_trunk() if trunk is None else trunk
    faces = {c.code: load_card_image(folder / f"{c.code}.png") for c in FULL_DECK}
    back = load_card_image(folder / "back.png")
    aspect = float(np.median([im.shape[0] / im.shape[1] for im in faces.values()]))

    place = index_place(folder, faces)
    if place.not_found and notice is not None:
        notice(
            f"no rank and suit found apart from the pips on {', '.join(place.not_found)}: "
            f"where the other {len(faces) - len(place.not_found)} cards print them is learnt"
        )
    rank_box, window = place.rank_box, place.window

    heads = []
    for member in range(members):
        rng = np.random.default_rng([TRAINING_SEED, member])
        draw = training_draw(folder, window, rank_box, rng, SCENES_PER_CARD, TABLES, trunk.describe)
        features, labels = draw
        heads.append(train(features, labels, rng, hidden=HIDDEN, overwrite=True))
    net = Committee(tuple(heads), trunk)
    design = load_design(folder)
    cards = {code: image for code, image in design.items() if code != "back"}
    check = _self_check(net, cards, design["back"], window)

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
        window=window,
        net=net,
        back_features=np.array(back_f, np.float32),
        check=check,
        enrolled_by=vision_code_version(),
    )


def training_draw(
    folder: Path,
    window: IndexWindow,
    rank_box: tuple[float, float, float, float],
    rng: np.random.Generator,
    scenes_per_card: int,
    tables: int,
    describe: Describe,
) -> tuple[np.ndarray, np.ndarray]:
    """What ``describe`` keeps of one design's training windows, and their labels: windows of
    small scenes around each card and the candidate corners of whole tables."""
    design = load_design(folder)
    cards = {code: image for code, image in design.items() if code != "back"}
    rendered = render_samples(cards, design["back"], window, rng, scenes_per_card, describe=describe)
    mined = scene_samples(design, window, rng, tables, rank_box, describe=describe)
    return np.concatenate([rendered[0], mined[0]]), np.concatenate([rendered[1], mined[1]])


def _self_check(
    net: Committee, cards: dict[str, np.ndarray], back: np.ndarray, window: IndexWindow
) -> dict[str, float]:
    """How the classifier does on fresh windows of the design: the operator's first sign that a
    deck is (or is not) readable."""
    features, labels = render_samples(
        cards, back, window, np.random.default_rng(CHECK_SEED), CHECK_SCENES, 1, describe=net.describe
    )
    names, probability, _ = net.best(features)
    named = probability >= SURE
    index = np.array([label not in (NONE, BACK) for label in labels])
    right = np.array([name == label for name, label in zip(names, labels, strict=True)])
    return {
        "index_windows": int(index.sum()),
        "named_right": float((named & right)[index].mean()),
        "named_wrong": float((named & ~right)[index].mean()),
        "other_windows_named": float(named[~index].mean()),
    }
