"""Learn a deck design from one clean image per card (``dealerassist vision enroll``).

Finds where the design prints its corner index (``corner``), trains a committee of index
classifiers (``indexnet``) on windows cut from the design's own images (``training``), each in a
process of its own and each starting from a network learnt once across many designs (the shipped
``index-start``), and measures the back's corners.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import zipfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TypeVar

import cv2
import numpy as np

from dealerassist.core.configfiles import bundled_dir
from dealerassist.vision.blas import training_kernels
from dealerassist.vision.corner import Box, corner_ink, find_glyphs
from dealerassist.vision.deck import (
    DeckFileError,
    DeckModel,
    back_feature,
    load_card_image,
    vision_code_version,
)
from dealerassist.vision.index_window import IndexWindow
from dealerassist.vision.indexnet import BACK, NONE, SURE, Committee, IndexNet, train
from dealerassist.vision.scenes import card_names, load_design
from dealerassist.vision.training import Corner, render_samples, scene_samples

BACK_HEIGHTS = (72, 86, 100, 120, 145, 175, 210)  # camera card heights the back is measured at
PAD = 8  # pixels of a card's own edge added around its camera view, so its corners lie inside
WINDOW_SLACK = 0.03  # card heights of paper kept around the printed index in the classifier window
PR_SET_PDEATHSIG = 1  # prctl(2): the signal this process gets when its parent dies
MIN_INDEXES_FOUND = 26  # cards whose rank and suit must be found to learn where the deck prints them
TRAINING_SEED = 20261129  # enrollment is repeatable: the same images give the same deck file
CHECK_SEED = TRAINING_SEED + 1
CHECK_SCENES = 4  # fresh scenes per card for the self-check (about 3 windows each)
MEMBERS = 2  # classifiers in the committee, each trained on its own draw (``indexnet.Committee``)
# Each member's draw: small scenes around every card, and whole synthetic tables whose candidate
# corners it learns. About a minute of CPU a design; ten times it reads hidden designs no better.
SCENES_PER_CARD = 60
TABLES = 120
# The networks members start from, learnt across the training designs (``vision index-start``;
# docs/vision.md): a small index that one deck's draw teaches poorly, other decks taught already.
INDEX_START = "index-start-1.npz"
EPOCHS_FROM_START = 14
# A training process's memory: its draw's feature rows, held twice over at the peak (joined from
# parts, then standardised), and the rest (the libraries, the scenes being drawn).
DRAW_BYTES_PER_SCENE = 1_400_000
DRAW_BYTES_PER_TABLE = 350_000
PROCESS_BYTES = 900_000_000
FOLDER_LAYOUT = (
    "a deck folder holds one clean image per card, AS.png ... TD.png ... KC.png (rank A 2-9 T J Q K, "
    "suit S H D C), and back.png"
)

T = TypeVar("T")
R = TypeVar("R")


def _camera_view(image: np.ndarray, height: int) -> np.ndarray:
    """The card as a camera sees it at ``height`` pixels (a little lens blur), padded by ``PAD``."""
    width = round(image.shape[1] * height / image.shape[0])
    small = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), 0.5)
    return cv2.copyMakeBorder(small, PAD, PAD, PAD, PAD, cv2.BORDER_REPLICATE)


def _index_corners(view: np.ndarray) -> list[Corner]:
    """The top-left and bottom-right corners of a card's ``_camera_view``."""
    h, w = view.shape[:2]
    return [
        (np.array([PAD, PAD], float), np.array([1.0, 0.0]), np.array([0.0, 1.0])),
        (np.array([w - PAD, h - PAD], float), np.array([-1.0, 0.0]), np.array([0.0, -1.0])),
    ]


def check_folder(folder: str | Path) -> Path:
    """The folder, or DeckFileError naming what is missing: before minutes of training, not after."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DeckFileError(f"{folder}: not a folder of card images: {FOLDER_LAYOUT}")
    images = card_names()
    missing = [name for name in images if not (folder / f"{name}.png").is_file()]
    if len(missing) > len(images) // 2:  # not a deck folder with a few cards left out: say what one holds
        found = len(images) - len(missing)
        raise DeckFileError(f"{folder}: {found} of the {len(images)} card images: {FOLDER_LAYOUT}")
    if missing:
        raise DeckFileError(f"{folder}: missing {', '.join(m + '.png' for m in missing)}")
    return folder


@dataclass(frozen=True)
class IndexPlace:
    """Where a design prints its corner index, learnt from its clean card images."""

    rank_box: Box  # the median card's rank
    window: IndexWindow  # around rank and suit of nearly every card, with a margin of paper
    not_found: tuple[str, ...]  # cards whose rank and suit were not found apart from the pips


def index_place(folder: Path, faces: dict[str, np.ndarray]) -> IndexPlace:
    """Where the cards of ``faces`` (images by code, from ``folder``) print rank and suit.

    A design prints its index in one place on every card, so the cards where it stands clear say
    where; on a card whose index crowds its pips (a 4 of clubs whose suit sign touches a pip) it is
    not found. DeckFileError, naming them, when fewer than MIN_INDEXES_FOUND cards show one: then
    the images are not of a design with standard corner indexes, or not cut to the card.
    """
    rank_boxes, index_ends, not_found = [], [], []
    for code, image in faces.items():
        view = _camera_view(image, image.shape[0])
        found = (find_glyphs(corner_ink(view, *corner, image.shape[0])) for corner in _index_corners(view))
        glyphs = next((pair for pair in found if pair is not None), None)
        if glyphs is None:
            not_found.append(code)
            continue
        rank, suit = glyphs
        rank_boxes.append(rank)
        index_ends.append((max(rank[2], suit[2]), suit[3]))
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

    Each of the ``members`` classifiers learns from its own ``scenes_per_card`` small scenes
    around each card and the candidate corners of its own ``tables`` whole synthetic tables.
    ``notice`` is told of cards whose index was not found, and of memory holding training back.
    """
    if members < 1:
        raise ValueError(f"a committee needs at least one member, not {members}")
    folder = check_folder(folder)
    faces = {name: load_card_image(folder / f"{name}.png") for name in card_names()}
    back = faces.pop("back")
    place = index_place(folder, faces)
    if place.not_found and notice is not None:
        notice(
            f"no rank and suit found apart from the pips on {', '.join(place.not_found)}: "
            f"where the other {len(faces) - len(place.not_found)} cards print them is learnt"
        )
    starts = index_start().members
    jobs = [
        (folder, place.window, place.rank_box, member, scenes_per_card, tables, starts[member % len(starts)])
        for member in range(members)
    ]
    each = training_memory(scenes_per_card, tables)
    net = Committee(tuple(in_training_processes(_train_member, jobs, each, notice)))
    return DeckModel(
        name=name or folder.name,
        aspect=float(np.median([im.shape[0] / im.shape[1] for im in faces.values()])),
        rank_box=place.rank_box,
        window=place.window,
        net=net,
        back_features=_back_features(back),
        check=_self_check(net, load_design(folder), place.window),
        enrolled_by=vision_code_version(),
    )


def _back_features(back: np.ndarray) -> np.ndarray:
    """``back_feature`` rows of the back's index corners at camera sizes, turned every way."""
    rows = []
    for height in BACK_HEIGHTS:
        for turn in range(4):
            turned = np.rot90(back, turn).copy()
            view = _camera_view(turned, round(height * turned.shape[0] / back.shape[0]))
            long_side = max(back.shape[:2]) * height / back.shape[0]
            rows.extend(back_feature(view, *corner, long_side) for corner in _index_corners(view))
    return np.array(rows, np.float32)


def training_memory(scenes_per_card: int, tables: int) -> int:
    """Bytes one training process peaks at for a draw of this size."""
    draw = scenes_per_card * DRAW_BYTES_PER_SCENE + tables * DRAW_BYTES_PER_TABLE
    return 2 * draw + PROCESS_BYTES


def available_memory() -> int | None:
    """Bytes the kernel can give without swapping (Linux's MemAvailable), or None where unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            return next(
                (int(line.split()[1]) * 1024 for line in meminfo if line.startswith("MemAvailable:")), None
            )
    except OSError:
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
    """``work`` done for each job in spawned processes (``training_workers`` of them) on the
    pinned training kernels (``blas.training_kernels``); ``notice`` is told when memory, not the
    cores, holds them back, as the operator then waits longer.

    Spawned, so no lock of a threaded parent is inherited; the seeds, not the processes, decide
    what each network learns. A Ctrl-C to the process group ends them and this raises
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
    """Ready a training process to end with its parent: an interrupt ends it as SIGTERM would (a
    KeyboardInterrupt inside numba's compiler is swallowed and another error comes back), and on
    Linux the kernel sends it SIGTERM when the parent dies, so no orphan keeps a core and memory."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the kernel was told to watch it
            os.kill(os.getpid(), signal.SIGTERM)


def index_start_path() -> Path:
    """Where the package keeps the networks enrollment starts from."""
    return bundled_dir() / "vision" / INDEX_START


@cache
def index_start() -> Committee:
    """The shipped networks each enrollment's members start from (member k from the k-th, in turn)."""
    path = index_start_path()
    try:
        with np.load(path) as data:
            return Committee.from_arrays(data)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise DeckFileError(f"{path}: cannot load the networks enrollment starts from ({exc})") from exc


def _train_member(job: tuple[Path, IndexWindow, Box, int, int, int, IndexNet]) -> IndexNet:
    """One committee member, trained from its starting network on its own draw of rendered scenes
    and mined tables."""
    folder, window, rank_box, member, scenes_per_card, tables, start = job
    rng = np.random.default_rng([TRAINING_SEED, member])
    design = load_design(folder)
    rendered, rendered_labels = render_samples(design, window, rng, scenes_per_card)
    mined, mined_labels = scene_samples(design, window, rng, tables, rank_box)
    features, labels = np.concatenate([rendered, mined]), np.concatenate([rendered_labels, mined_labels])
    return train(features, labels, rng, epochs=EPOCHS_FROM_START, overwrite=True, start=start)


def _self_check(net: Committee, design: dict[str, np.ndarray], window: IndexWindow) -> dict[str, float]:
    """How the committee does on fresh windows of the design it never trained on: the operator's
    first sign that a deck is (or is not) learnable."""
    features, labels = render_samples(design, window, np.random.default_rng(CHECK_SEED), CHECK_SCENES, 1)
    names, probability, _ = net.best(features)
    named = probability >= SURE
    index = ~np.isin(labels, [NONE, BACK])
    right = np.array(names) == labels
    return {
        "index_windows": int(index.sum()),
        "named_right": float((named & right)[index].mean()),
        "named_wrong": float((named & ~right)[index].mean()),
        "other_windows_named": float(named[~index].mean()),
    }
