"""Train the universal corner-index classifier (``dealerassist.vision.index_cnn``) and export it.

The recipe, run from the repository with the ``train`` extra installed
(``pip install -e '.[train]'``):

    python training/index_cnn.py draw --out var/index-draw          # windows of every training design
    python training/index_cnn.py train --draw var/index-draw \\
        --out dealerassist/data/vision/classifiers/index-cnn-1.onnx

``draw`` renders, for each training design of ``data/vision/designs.toml`` (``train`` and, at half
the draw each, ``train_more``), the same training scenes a per-deck enrollment renders
(``enrollment.training_draw``), sampled at that design's own measured index place, and keeps the
windows themselves (uint8, ``x``) with their labels (``y``). ``train``
fits one small network over all of them in torch, with fixed seeds, and writes the ONNX file the
reader runs with OpenCV's ``dnn`` module, plus ``.json`` beside it recording the designs and the
command. Validation and test designs are never drawn.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from dealerassist.core.cards import FULL_DECK
from dealerassist.vision import artwork
from dealerassist.vision.deck import DeckFileError, load_card_image
from dealerassist.vision.enrollment import check_folder, index_place, training_draw
from dealerassist.vision.index_cnn import normalise
from dealerassist.vision.indexnet import BACK, HEADS, NONE, RANKS, SUITS

if TYPE_CHECKING:
    import torch

SEED = 7
SCENES_PER_CARD = 30  # per design of ``train``: a fifth of a per-deck enrollment's draw
TABLES = 60
NONE_PER_INDEX = 2  # "nothing" windows drawn afresh each epoch, per index or back window
WIDTHS = (8, 16, 32)  # channels of the three convolution blocks
HIDDEN = 64
EPOCHS = 4
BATCH = 512
SWAPPED = 0.4  # share of training windows shown with their colour channels swapped about
GREY = 0.1  # and in grey
LEARNING_RATE = 3e-3


def _raw(windows: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(windows[..., :3])


def draw_design(job: tuple[str, Path, int, int]) -> str:
    """Write one design's windows and labels to ``OUT/NAME.npz``; what became of it, in a line."""
    name, out, scenes_per_card, tables = job
    target = out / f"{name}.npz"
    if target.exists():
        return f"{name}: drawn already"
    folder = artwork.design_dir(name)
    faces = {c.code: load_card_image(folder / f"{c.code}.png") for c in FULL_DECK}
    try:
        place = index_place(check_folder(folder), faces)
    except DeckFileError as exc:
        return f"{name}: left out ({exc})"
    rng = np.random.default_rng([SEED, zlib.crc32(name.encode())])
    windows, labels = training_draw(
        folder, place.window, place.rank_box, rng, scenes_per_card, tables, describe=_raw
    )
    partial = target.with_suffix(".partial.npz")
    np.savez(partial, x=windows, y=labels)
    partial.rename(target)
    return f"{name}: {len(labels)} windows"


def _targets(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rank, suit and kind class of each label (-100, ignored, where a window holds no index)."""
    names = labels.tolist()
    kind = np.array([0 if name == NONE else 2 if name == BACK else 1 for name in names])
    rank = np.array([RANKS.index(n[0]) if k == 1 else -100 for n, k in zip(names, kind, strict=True)])
    suit = np.array([SUITS.index(n[1]) if k == 1 else -100 for n, k in zip(names, kind, strict=True)])
    return rank, suit, kind


def _recoloured(windows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The windows with their ink in other colours: a share with the channels swapped about, a
    share in grey. Suits are told by shape, and a deck prints its suits in any colours (a
    four-colour deck's green clubs read as queens by a network that knew only red and black)."""
    out = windows.copy()
    turn = rng.random(len(out))
    swapped = turn < SWAPPED
    for row in np.flatnonzero(swapped).tolist():
        out[row] = out[row][..., rng.permutation(3)]
    grey = (turn >= SWAPPED) & (turn < SWAPPED + GREY)
    out[grey] = out[grey].min(axis=-1, keepdims=True)
    return out


def build_network(widths: tuple[int, int, int], hidden: int) -> torch.nn.Sequential:
    import torch.nn as nn

    def block(inputs: int, outputs: int) -> list:
        return [
            nn.Conv2d(inputs, outputs, 3, padding=1, bias=False),
            nn.BatchNorm2d(outputs),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
        ]

    a, b, c = widths
    return nn.Sequential(
        *block(3, a),
        *block(a, b),
        *block(b, c),
        nn.Flatten(),
        nn.Linear(c * 6 * 3, hidden),
        nn.ReLU(inplace=True),
        nn.Dropout(0.2),
        nn.Linear(hidden, sum(HEADS)),
    )


def train(args: argparse.Namespace) -> None:
    import torch
    import torch.nn.functional as F

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    files = sorted(Path(args.draw).glob("*.npz"))
    drawn = [np.load(f) for f in files]
    windows = np.concatenate([d["x"] for d in drawn])
    rank, suit, kind = _targets(np.concatenate([d["y"] for d in drawn]))
    print(f"{len(windows)} windows of {len(files)} designs, {(kind == 1).sum()} of them indices", flush=True)
    network = build_network(args.widths, args.hidden)
    optimiser = torch.optim.AdamW(network.parameters(), lr=LEARNING_RATE, weight_decay=1e-4)
    shown = np.flatnonzero(kind != 0)
    nothing = np.flatnonzero(kind == 0)
    per_epoch = len(shown) + min(len(nothing), NONE_PER_INDEX * len(shown))
    batches = per_epoch // BATCH
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=LEARNING_RATE, total_steps=args.epochs * batches, pct_start=0.15
    )
    started = time.time()
    for epoch in range(args.epochs):
        order = np.concatenate([shown, rng.choice(nothing, per_epoch - len(shown), replace=False)])
        rng.shuffle(order)
        network.train()
        total = 0.0
        for b in range(batches):
            rows = np.sort(order[b * BATCH : (b + 1) * BATCH])
            logits = network(torch.from_numpy(normalise(_recoloured(windows[rows], rng))))
            r, s = HEADS[0], HEADS[0] + HEADS[1]
            loss = (
                F.cross_entropy(logits[:, s:], torch.from_numpy(kind[rows]))
                + F.cross_entropy(logits[:, :r], torch.from_numpy(rank[rows]), ignore_index=-100)
                + F.cross_entropy(logits[:, r:s], torch.from_numpy(suit[rows]), ignore_index=-100)
            )
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss)
        spent = time.time() - started
        print(f"epoch {epoch + 1}/{args.epochs}: loss {total / batches:.4f}, {spent:.0f} s", flush=True)
    network.eval()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        network,
        torch.zeros(1, 3, 48, 24),
        str(out),
        input_names=["windows"],
        output_names=["logits"],
        dynamic_axes={"windows": {0: "n"}, "logits": {0: "n"}},
        dynamo=False,
    )
    recipe = {
        "designs": [f.stem for f in files],
        "command": "python training/index_cnn.py " + " ".join(sys.argv[1:]),
        "windows": len(windows),
        "torch": torch.__version__,
    }
    out.with_suffix(".json").write_text(json.dumps(recipe, indent=1) + "\n")


def draw(args: argparse.Namespace) -> None:
    import tomllib

    from dealerassist.core.configfiles import bundled_dir

    with open(bundled_dir() / "vision" / "designs.toml", "rb") as split:
        designs = tomllib.load(split)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(name, out, args.scenes_per_card, args.tables) for name in designs["train"]]
    jobs += [(name, out, args.scenes_per_card // 2, args.tables // 2) for name in designs["train_more"]]
    with ProcessPoolExecutor(args.processes) as pool:
        for line in pool.map(draw_design, jobs):
            print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(required=True)
    p = commands.add_parser("draw", help="render every training design's windows")
    p.add_argument("--out", required=True)
    p.add_argument("--scenes-per-card", type=int, default=SCENES_PER_CARD)
    p.add_argument("--tables", type=int, default=TABLES)
    p.add_argument("--processes", type=int, default=2)
    p.set_defaults(handler=draw)
    p = commands.add_parser("train", help="train the network on a draw and export it to ONNX")
    p.add_argument("--draw", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--epochs", type=int, default=EPOCHS)
    p.add_argument("--widths", type=lambda v: tuple(int(w) for w in v.split(",")), default=WIDTHS)
    p.add_argument("--hidden", type=int, default=HIDDEN)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=SEED, help="another seed trains another committee member")
    p.set_defaults(handler=train)
    args = parser.parse_args()
    args.handler(args)


if __name__ == "__main__":
    main()
