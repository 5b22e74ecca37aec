"""One index classifier for every design, trained once across the training designs.

Every design's index window is sampled at its own measured place and size (``enrollment.
index_place``), so windows of different designs line up and one committee can learn them all.
A new deck's enrollment then only measures its index place and its back (``vision enroll
--universal FILE``): seconds, no training. The file records the reading format
(``deck.DECK_FORMAT``) and the command that made it. It is not shipped: on the test designs it
reads far worse than the per-deck networks (docs/vision.md, Measured).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from dealerassist.core.cards import FULL_DECK
from dealerassist.vision import artwork
from dealerassist.vision.deck import DECK_FORMAT, DeckFileError, load_card_image
from dealerassist.vision.enrollment import (
    HIDDEN,
    TRAINING_SEED,
    check_folder,
    in_training_processes,
    index_place,
    training_draw,
    training_memory,
)
from dealerassist.vision.index_window import IndexWindow
from dealerassist.vision.indexnet import Committee, IndexNet, train

# Each member's draw per training design: some seventieth of a per-deck enrollment's, so that
# the whole draw over some thirty designs is under half of one enrollment's.
SCENES_PER_CARD = 8
TABLES = 16
MEMBERS = 2


def train_universal(
    designs: list[str],
    scenes_per_card: int = SCENES_PER_CARD,
    tables: int = TABLES,
    members: int = MEMBERS,
    notice: Callable[[str], None] | None = None,
) -> tuple[Committee, list[str]]:
    """A committee of ``members`` networks, each on its own draw over all ``designs`` whose index
    place can be measured (a design without standard corner indices is left out, and ``notice``
    told); with the designs it learnt."""
    places, learnt = [], []
    for name in designs:
        folder = artwork.design_dir(name)
        faces = {c.code: load_card_image(folder / f"{c.code}.png") for c in FULL_DECK}
        try:
            place = index_place(check_folder(folder), faces)
        except DeckFileError as exc:
            if notice is not None:
                notice(f"left out: {exc}")
            continue
        places.append((folder, place.window, place.rank_box))
        learnt.append(name)
    jobs = [(places, member, scenes_per_card, tables) for member in range(members)]
    each = training_memory(scenes_per_card * len(places), tables * len(places))
    return Committee(tuple(in_training_processes(_train_member, jobs, each, notice))), learnt


def _train_member(
    job: tuple[list[tuple[Path, IndexWindow, tuple[float, float, float, float]]], int, int, int],
) -> IndexNet:
    places, member, scenes_per_card, tables = job
    rng = np.random.default_rng([TRAINING_SEED, member, len(places)])
    features, labels = [], []
    for folder, window, rank_box in places:
        rows, names = training_draw(folder, window, rank_box, rng, scenes_per_card, tables)
        features.append(rows)
        labels.append(names)
    return train(np.concatenate(features), np.concatenate(labels), rng, hidden=HIDDEN, overwrite=True)


def save_universal(net: Committee, path: Path, designs: list[str], recipe: str) -> None:
    meta = {"format": DECK_FORMAT, "kind": "universal", "designs": designs, "recipe": recipe}
    with open(path, "wb") as out:  # through a file: numpy would add ".npz" to a name without it
        np.savez_compressed(out, meta=np.array(json.dumps(meta)), **net.arrays())


def load_universal(path: Path) -> Committee:
    """The universal classifier in ``path``; DeckFileError in one line when it is absent, not
    one, or of another reading format (then its recipe makes it again)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            if meta.get("kind") != "universal":
                raise DeckFileError(f"{path}: not a universal classifier file")
            if meta.get("format") != DECK_FORMAT:
                raise DeckFileError(
                    f"{path}: universal classifier of format {meta.get('format')!r}, this code reads "
                    f"format {DECK_FORMAT}: train it again ('{meta.get('recipe')}')"
                )
            return Committee.from_arrays(data)
    except FileNotFoundError:
        raise DeckFileError(
            f"{path}: no such file (make it with 'dealerassist vision train-universal')"
        ) from None
    except (OSError, ValueError, KeyError, json.JSONDecodeError):
        raise DeckFileError(f"{path}: not a universal classifier file") from None
