"""Learn a deck design from one clean image per card (``dealerassist vision enroll``).

Finds where the design prints its corner index, trains a committee of index classifiers
(``indexnet``) on windows cut from the design's own images (``training``), and measures the
back's corners.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import cv2
import numpy as np

from dealerassist.core.cards import FULL_DECK
from dealerassist.vision.blas import training_kernels
from dealerassist.vision.corner import Glyph, find_glyphs, rectify
from dealerassist.vision.deck import (
    DeckFileError,
    DeckModel,
    back_feature,
    load_card_image,
    vision_code_version,
)
from dealerassist.vision.index_window import IndexWindow
from dealerassist.vision.indexnet import BACK, NONE, SURE, Committee, IndexNet, train
from dealerassist.vision.scenes import load_design
from dealerassist.vision.training import render_samples, scene_samples

ENROLL_HEIGHTS = (72, 86, 100, 120, 145, 175, 210)
FIRST_PASS_RANK_BOX = (0.0, 0.0, 0.16, 0.16)
WINDOW_SLACK = 0.03  # card heights of paper kept around the printed index in the classifier window
PR_SET_PDEATHSIG = 1  # prctl(2): the signal this process gets when its parent dies
MIN_INDEXES_FOUND = 26  # cards whose rank and suit must be found to learn where the deck prints them
TRAINING_SEED = 20261129  # enrollment is repeatable: the same images give the same deck file
CHECK_SEED = TRAINING_SEED + 1
CHECK_SCENES = 4  # fresh scenes per card for the self-check (about 3 windows each)
HIDDEN = (256, 128)  # units of the index classifier's hidden layers
# Classifiers in the deck's committee by default, each trained on its own draw of scenes; a card is
# named where a majority of them name it (``indexnet.Committee``: both of two, two of three).
MEMBERS = 2
# Each member's training draw: small scenes rendered around every card, and whole synthetic
# tables whose candidate corners it learns. This draw enrolls a design in about a minute of CPU
# (docs/vision.md, Measured); ten times it (600 and 1,200) takes 10-20 minutes and read hidden
# designs no better (94.2 % right against 94.9 %), while half of it read 2 % fewer cards of the
# validation designs.
SCENES_PER_CARD = 60
TABLES = 120
# A training process's memory: its draw's feature rows (about 1.4 MB a scene per card and 0.35 MB
# a table), held twice over at the peak (joined from parts, standardised), and the rest (the
# libraries, the scenes being drawn): 3.42 GB at a draw of 600 and 1,200, where one peaked at 3.36 GB.
DRAW_BYTES_PER_SCENE = 1_400_000
DRAW_BYTES_PER_TABLE = 350_000
PROCESS_BYTES = 900_000_000

T = TypeVar("T")
R = TypeVar("R")


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
    """The folder, or DeckFileError naming what is missing: before minutes of training, not after."""
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
    scenes_per_card: int = SCENES_PER_CARD,
    tables: int = TABLES,
    notice: Callable[[str], None] | None = None,
    members: int = MEMBERS,
) -> DeckModel:
    """Learn a design from ``folder`` holding ``AS.png`` .. ``KC.png`` and ``back.png``.

    Each classifier of the committee learns from its own ``scenes_per_card`` small scenes around
    each card (about ten windows each) and every candidate corner on its own ``tables`` whole
    synthetic tables; there are ``members`` of them. ``notice`` is told of cards whose index was
    not found (``index_place``).
    """
    if members < 1:
        raise ValueError(f"a committee needs at least one member, not {members}")
    folder = check_folder(folder)
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

    design = load_design(folder)
    cards = {code: image for code, image in design.items() if code != "back"}
    jobs = [(folder, window, rank_box, member, scenes_per_card, tables) for member in range(members)]
    each = training_memory(scenes_per_card, tables)
    net = Committee(tuple(in_training_processes(_train_member, jobs, each, notice)))
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


def training_memory(scenes_per_card: int, tables: int) -> int:
    """Bytes one training process peaks at for a draw of this size."""
    draw = scenes_per_card * DRAW_BYTES_PER_SCENE + tables * DRAW_BYTES_PER_TABLE
    return 2 * draw + PROCESS_BYTES


def available_memory() -> int | None:
    """Bytes the kernel can give without swapping (Linux's MemAvailable), or None where unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def training_workers(jobs: int, each: int, cores: int | None, available: int | None) -> int:
    """Processes to train ``jobs`` networks in: one per core and per job, no more than the memory
    ``available`` holds at ``each`` bytes apiece, and always at least one."""
    workers = min(jobs, cores or 1)
    if available is not None:
        workers = min(workers, available // each)
    return max(1, workers)


def in_training_processes(
    work: Callable[[T], R],
    jobs: list[T],
    each: int = PROCESS_BYTES,
    notice: Callable[[str], None] | None = None,
) -> list[R]:
    """``work`` done for each job in processes of its own, one per core up to one per job and as
    many as the free memory holds at ``each`` bytes apiece (``training_workers``), on the pinned
    training kernels (``blas.training_kernels``). ``notice`` is told when memory, not the cores,
    holds them back, as the operator then waits longer.

    The processes are spawned, so no lock of a threaded parent is inherited, and numpy loads afresh
    in each. The seeds, not the processes, decide what each network learns: fewer processes take
    longer and train the same networks. A Ctrl-C to the process group ends them and this raises
    ``BrokenProcessPool``; a parent killed outright takes them with it (``_join_training``).
    """
    cores = os.cpu_count()
    workers = training_workers(len(jobs), each, cores, available_memory())
    if notice is not None and workers < training_workers(len(jobs), each, cores, None):
        notice(
            f"the free memory holds {workers} training process(es) of some {each / 1e9:.1f} GB: "
            f"the {len(jobs)} networks train {workers} at a time, which takes longer"
        )
    context = multiprocessing.get_context("spawn")
    with (
        training_kernels(),
        ProcessPoolExecutor(
            workers, mp_context=context, initializer=_join_training, initargs=(os.getpid(),)
        ) as pool,
    ):
        return list(pool.map(work, jobs))


def _join_training(parent: int) -> None:
    """Ready a training process to end with its parent.

    An interrupt ends it there, as SIGTERM would: raised as KeyboardInterrupt it could land
    anywhere, and inside numba's compiler it is swallowed and an unrelated error ("no compiled
    object yet") comes back in its place. And on Linux the kernel sends it SIGTERM when the parent
    dies: a benchmark killed while enrolling once left its trainers running, orphaned, for half an
    hour, each holding a core and some 600 MB.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the kernel was told to watch it
            os.kill(os.getpid(), signal.SIGTERM)


def _train_member(
    job: tuple[Path, IndexWindow, tuple[float, float, float, float], int, int, int],
) -> IndexNet:
    """One committee member, trained on its own draw of rendered scenes and mined tables."""
    folder, window, rank_box, member, scenes_per_card, tables = job
    rng = np.random.default_rng([TRAINING_SEED, member])
    features, labels = training_draw(folder, window, rank_box, rng, scenes_per_card, tables)
    return train(features, labels, rng, hidden=HIDDEN, overwrite=True)


def training_draw(
    folder: Path,
    window: IndexWindow,
    rank_box: tuple[float, float, float, float],
    rng: np.random.Generator,
    scenes_per_card: int,
    tables: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows and labels of one design: windows of small scenes around each card and the
    candidate corners of whole tables."""
    design = load_design(folder)
    cards = {code: image for code, image in design.items() if code != "back"}
    rendered = render_samples(cards, design["back"], window, rng, scenes_per_card)
    mined = scene_samples(design, window, rng, tables, rank_box)
    return np.concatenate([rendered[0], mined[0]]), np.concatenate([rendered[1], mined[1]])


def _self_check(
    net: Committee, cards: dict[str, np.ndarray], back: np.ndarray, window: IndexWindow
) -> dict[str, float]:
    """How the trained classifier does on fresh windows of the same design it never trained on:
    the operator's first sign that a deck is (or is not) learnable."""
    features, labels = render_samples(cards, back, window, np.random.default_rng(CHECK_SEED), CHECK_SCENES, 1)
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
