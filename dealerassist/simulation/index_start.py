"""The networks every enrollment starts from (``vision.enrollment.INDEX_START``), learnt across
the training designs.

A deck's own draw teaches a small index poorly in the minute enrollment has; started from
networks that have read dozens of designs, its members learn it from the same draw. Each training
design of ``designs.toml`` gives a small draw of the windows enrollment trains on (a design
without standard corner indices is left out); every member learns the pooled draw from its own
seed. Made by ``dealerassist vision index-start --out dealerassist/data/vision/index-start-1.npz``
(some 8 minutes on two cores); bump the file's number when the recipe or the features change.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from dealerassist.simulation import artwork
from dealerassist.vision.blas import training_kernels
from dealerassist.vision.deck import DeckFileError, load_card_image
from dealerassist.vision.enrollment import MEMBERS, check_folder, in_training_processes, index_place
from dealerassist.vision.indexnet import Committee, train
from dealerassist.vision.scenes import card_names, load_design
from dealerassist.vision.training import render_samples, scene_samples

SEED = 20261207
SCENES_PER_CARD = 20  # a third of an enrollment's draw a design, from some seventy designs
TABLES = 40
EPOCHS = 12
DRAW_BYTES = 100_000_000  # a design's draw process at its peak, besides the libraries


def design_draw(name: str) -> tuple[np.ndarray, np.ndarray] | str:
    """A design's training windows as float16 feature rows and their labels, or why it has none;
    ``name`` a design's name or a folder of its card images."""
    folder = check_folder(name if Path(name).is_dir() else artwork.design_dir(name))
    faces = {card: load_card_image(folder / f"{card}.png") for card in card_names() if card != "back"}
    try:
        place = index_place(folder, faces)
    except DeckFileError as exc:
        return str(exc)
    design = load_design(folder)
    rng = np.random.default_rng([SEED, zlib.crc32(name.encode())])
    rendered, rendered_labels = render_samples(design, place.window, rng, SCENES_PER_CARD)
    mined, mined_labels = scene_samples(design, place.window, rng, TABLES, place.rank_box)
    features = np.concatenate([rendered, mined]).astype(np.float16)
    return features, np.concatenate([rendered_labels, mined_labels])


def train_index_start(
    designs: Sequence[str], members: int = MEMBERS, notice: Callable[[str], None] = print
) -> Committee:
    """``members`` networks learnt on the pooled draws of ``designs``."""
    draws = []
    drawn = in_training_processes(design_draw, list(designs), DRAW_BYTES)
    for name, draw in zip(designs, drawn, strict=True):
        if isinstance(draw, str):
            notice(f"{name} left out: {draw}")
        else:
            draws.append(draw)
    if not draws:
        raise DeckFileError("no design with standard corner indices to learn from")
    features = np.concatenate([draw[0] for draw in draws]).astype(np.float32)
    labels = np.concatenate([draw[1] for draw in draws])
    notice(f"{len(features):,} windows of {len(draws)} designs; training {members} network(s)")
    with training_kernels():
        nets = [
            train(features, labels, np.random.default_rng([SEED, member]), epochs=EPOCHS)
            for member in range(members)
        ]
    return Committee(tuple(nets))
