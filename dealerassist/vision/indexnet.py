"""A small learned classifier of printed corner indices, trained per deck design at enrollment.

It reads a corner's whole index window (rank, suit and a little of the card edge, described by
``index_features``) and names one of the 52 cards, a card back, or nothing: template matching on
split-out glyphs breaks on small, blurred print (rank and suit run together, a "10" falls apart).
It learns from the design's own card images only (``training``), so a new deck needs nothing but
``vision enroll``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dealerassist.vision.index_features import window_features

SURE = 0.9  # card probability from which the reader names a card (its default accept level)
SCREENED = 0.9  # a committee's first member this sure a window holds nothing settles it alone
NONE = "none"  # the class of a window that holds no index of this design
BACK = "back"  # the class of a window at the corner of a card lying face down
RANKS = "A23456789TJQK"
SUITS = "SHDC"
_CARD_CODES = [r + s for r in RANKS for s in SUITS]  # rank by rank, each in SUITS order
# What a training label teaches the heads: (kind, rank, suit); rank and suit count only for an index.
_TARGETS = {NONE: (0, 0, 0), BACK: (2, 0, 0)} | {
    rank + suit: (1, r, s) for r, rank in enumerate(RANKS) for s, suit in enumerate(SUITS)
}
HEADS = (len(RANKS), len(SUITS), 3)  # rank, suit, and what the corner is: nothing, an index, a back
HIDDEN = (256, 128)  # units of the hidden layers


@dataclass(frozen=True)
class IndexNet:
    """Standardised features -> hidden ReLU layers -> three softmax heads: rank, suit, kind.

    Rank and suit are learned apart (every queen teaches the queen, whatever its suit), which needs
    far fewer samples per class than 52 card classes; the kind head says whether the window holds
    an index, a card back's corner, or neither. A card's probability is rank x suit x index.
    """

    mean: np.ndarray
    scale: np.ndarray
    weights: tuple[np.ndarray, ...]  # from the features to the heads, one a layer
    biases: tuple[np.ndarray, ...]

    def __post_init__(self) -> None:
        # A deck file may hold subnormal weights; the arrays given are left as they are.
        object.__setattr__(self, "weights", tuple(_flush_subnormals(w.copy()) for w in self.weights))
        object.__setattr__(self, "biases", tuple(_flush_subnormals(b.copy()) for b in self.biases))

    def heads(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rank, suit, kind) probabilities of each row; kind columns: nothing, index, back."""
        # numpy's products, not cv2.gemm, which multiplies a frame's few rows without its BLAS.
        # Bias and ReLU in place spare a fresh array a layer.
        layer = np.subtract(features, self.mean)
        layer *= self.scale
        for weight, bias in zip(self.weights[:-1], self.biases[:-1], strict=True):
            layer = layer @ weight
            layer += bias
            np.maximum(layer, 0.0, out=layer)
        logits = layer @ self.weights[-1]
        logits += self.biases[-1]
        return _softmax_heads(logits)

    def best(self, features: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The most likely card of each row, its probability, and the row's kind probabilities."""
        rank, suit, kind = self.heads(features)
        r, s = rank.argmax(axis=1), suit.argmax(axis=1)
        names = [_CARD_CODES[k] for k in (r * len(SUITS) + s).tolist()]
        return names, _card_probability(rank, suit, kind, r, s), kind

    def probability_of(self, features: np.ndarray, cards: Sequence[str]) -> np.ndarray:
        """Each row's probability that it shows its card of ``cards``."""
        rank, suit, kind = self.heads(features)
        ranks = [RANKS.index(card[0]) for card in cards]
        suits = [SUITS.index(card[1]) for card in cards]
        return _card_probability(rank, suit, kind, ranks, suits)

    def arrays(self, prefix: str = "") -> dict[str, np.ndarray]:
        """The network's arrays by their names in a deck file, each name after ``prefix``."""
        named = {"net_mean": self.mean, "net_scale": self.scale}
        for i, (weight, bias) in enumerate(zip(self.weights, self.biases, strict=True), start=1):
            named |= {f"net_w{i}": weight, f"net_b{i}": bias}
        return {prefix + key: array for key, array in named.items()}

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray], prefix: str = "") -> IndexNet:
        count = sum(key.startswith(f"{prefix}net_w") for key in data)  # a deck may hold any number of layers
        if not count:
            raise KeyError("no network layers in the arrays")

        def array(key: str) -> np.ndarray:
            return np.asarray(data[f"{prefix}net_{key}"], np.float32)

        return cls(
            array("mean"),
            array("scale"),
            tuple(array(f"w{i}") for i in range(1, count + 1)),
            tuple(array(f"b{i}") for i in range(1, count + 1)),
        )


@dataclass(frozen=True)
class Committee:
    """Index classifiers trained apart, each on its own draw of training windows, whose majority decides.

    One network's confident mistakes mostly come from its own draw of training scenes, and one
    trained on another draw rarely makes the same. A card is named where a majority of the members
    name it (``needed`` of them), its probability the geometric mean of the ``needed`` surest of
    those; where no majority names one card it is 0.
    """

    members: tuple[IndexNet, ...]

    def describe(self, windows: np.ndarray) -> np.ndarray:
        """What the members read of sampled windows: their feature rows."""
        return window_features(windows)

    @property
    def needed(self) -> int:
        """Members that must name a card: a majority."""
        return len(self.members) // 2 + 1

    def best(self, features: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        """As ``IndexNet.best``: the majority's names, their joint probability, and the members'
        mean kind probabilities.

        The first member screens: a window it is sure holds nothing (most windows of a frame) is
        not shown to the others, and keeps the first member's probabilities.
        """
        names, probability, kind = self.members[0].best(features)
        shown = np.flatnonzero(kind[:, 0] < SCREENED)
        if not len(shown) or len(self.members) == 1:
            return names, probability, kind
        reads = [(np.array(names)[shown], probability[shown], kind[shown])]
        reads += [member.best(features[shown]) for member in self.members[1:]]
        votes = np.array([read[0] for read in reads])  # (members, rows) of card codes
        same = votes[:, None, :] == votes[None, :, :]  # [m, k, row]: member k names m's card
        chosen = same.sum(axis=1).argmax(axis=0)  # the member whose card most name, the first of equals
        rows = np.arange(len(shown))
        backing = same[chosen, :, rows].T  # (members, rows): who names the chosen card
        each = np.array([read[1] for read in reads], np.float64)
        joint = _joint(np.where(backing, each, 0.0), self.needed)
        joint[backing.sum(axis=0) < self.needed] = 0.0
        named = np.array(names)
        named[shown] = votes[chosen, rows]
        probability[shown] = joint
        kind[shown] = sum(read[2].astype(np.float64) for read in reads) * (1.0 / len(self.members))
        return named.tolist(), probability, kind

    def probability_of(self, features: np.ndarray, cards: Sequence[str], at_least: float) -> np.ndarray:
        """Each row's committee probability of its card of ``cards`` where that can reach
        ``at_least``; where it cannot, that or 0.

        The joint probability reaches ``at_least`` only where each of the ``needed`` surest members
        reaches ``at_least`` to the power of ``needed``, so a member is asked only about the rows
        where enough members are left, or have reached that, to make a majority.
        """
        floor = at_least**self.needed
        count = len(self.members)
        each = np.zeros((count, len(features)))
        rows = np.arange(len(features))
        for m, member in enumerate(self.members):
            if len(rows):
                each[m, rows] = member.probability_of(features[rows], [cards[i] for i in rows.tolist()])
            so_far = each[: m + 1]
            reached = ((so_far >= floor) & (so_far > 0.0)).sum(axis=0)
            rows = np.flatnonzero(reached + (count - m - 1) >= self.needed)
        return _joint(each, self.needed)

    def arrays(self) -> dict[str, np.ndarray]:
        arrays: dict[str, np.ndarray] = {}
        for i, member in enumerate(self.members):
            arrays |= member.arrays(f"member{i}_")
        return arrays

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray]) -> Committee:
        count = sum(key.endswith("_net_mean") for key in data)
        if not count:
            raise KeyError("no committee members in the arrays")
        return cls(tuple(IndexNet.from_arrays(data, f"member{i}_") for i in range(count)))


def _card_probability(
    rank: np.ndarray, suit: np.ndarray, kind: np.ndarray, ranks: Sequence[int], suits: Sequence[int]
) -> np.ndarray:
    """Each row's probability of the card of its rank in ``ranks`` and suit in ``suits``: rank x
    suit x index."""
    rows = np.arange(len(kind))
    return rank[rows, ranks] * suit[rows, suits] * kind[:, 1]


def _joint(each: np.ndarray, needed: int) -> np.ndarray:
    """The geometric mean of the ``needed`` largest of each column of ``each`` (members, rows)."""
    return np.prod(np.sort(each, axis=0)[len(each) - needed :], axis=0) ** (1.0 / needed)


def _softmax_heads(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each head's probabilities from its columns of ``logits``: rank, suit, kind."""
    parts = np.split(logits, np.cumsum(HEADS)[:-1], axis=1)
    exps = [np.exp(part - part.max(axis=1, keepdims=True)) for part in parts]
    rank, suit, kind = (e / e.sum(axis=1, keepdims=True) for e in exps)
    return rank, suit, kind


def _flush_subnormals(values: np.ndarray) -> np.ndarray:
    """``values`` with every subnormal number made zero, in place.

    A hidden unit no training window switches on keeps only weight decay's pull, and its weights
    shrink into float32's subnormal range, where many x86 processors multiply a hundred times
    slower. Zero gives the same sums wherever any other term is a normal number.
    """
    values[np.abs(values) < np.finfo(np.float32).tiny] = 0
    return values


FLUSH_EVERY = 16  # Adam steps between flushes of subnormal numbers: a moment decays 0.9 a step


def _adam_step(
    params: list[np.ndarray],
    moments: list[np.ndarray],
    squares: list[np.ndarray],
    grads: list[np.ndarray],
    lr: np.float32,
    step: int,
) -> None:
    """One Adam update of every parameter, in place and without temporaries (a small network's
    step is as much array passes as arithmetic); ``grads`` are used up."""
    moment_gain = lr / np.float32(1 - 0.9**step)
    square_gain = np.float32(1.0 / np.sqrt(1 - 0.999**step))
    flush = step % FLUSH_EVERY == 0
    for param, moment, square, grad in zip(params, moments, squares, grads, strict=True):
        moment *= np.float32(0.9)
        moment += np.float32(0.1) * grad
        np.multiply(grad, grad, out=grad)
        grad *= np.float32(0.001)
        square *= np.float32(0.999)
        square += grad
        step_size = np.sqrt(square, out=grad)  # the used-up gradient holds the denominator
        step_size *= square_gain
        step_size += np.float32(1e-8)
        np.divide(moment, step_size, out=step_size)
        step_size *= moment_gain
        param -= step_size
        if flush:  # a dead unit's weights and moments would sink into the slow subnormal range
            for values in (param, moment, square):
                _flush_subnormals(values)


def _random_layers(widths: Sequence[int], rng: np.random.Generator) -> list[np.ndarray]:
    """Weights and biases of each layer between ``widths``, for a network trained from nothing."""
    params: list[np.ndarray] = []
    for k, (into, out) in enumerate(itertools.pairwise(widths)):
        gain = 2.0 if k < len(widths) - 2 else 1.0  # He's for a ReLU layer; the heads' logits plain
        params.append((rng.standard_normal((into, out)) * np.sqrt(gain / into)).astype(np.float32))
        params.append(np.zeros(out, np.float32))
    return params


def train(
    features: np.ndarray,
    labels: np.ndarray,
    rng: np.random.Generator,
    hidden: Sequence[int] = HIDDEN,
    epochs: int = 20,
    batch: int = 256,
    rate: float = 2e-3,
    decay: float = 1e-4,
    overwrite: bool = False,
    start: IndexNet | None = None,
) -> IndexNet:
    """Fit the network by minibatch Adam on the three heads' cross-entropies (rank and suit count
    only on windows that hold an index); ``labels`` are card codes, ``NONE`` or ``BACK``;
    ``hidden`` gives each hidden layer's width. Deterministic for a given ``rng``.

    From ``start`` (a network of the same shape), training keeps its standardisation and begins
    at its weights instead of random ones: what it learnt of other designs carries over.

    The rows are standardised in a copy, or with ``overwrite`` in ``features`` itself where they
    are float32 already: an enrollment's draw is a gigabyte, and a copy would double it.
    """
    unknown = sorted({str(label) for label in labels} - _TARGETS.keys())
    if unknown:
        raise ValueError(f"training labels must be card codes, {NONE!r} or {BACK!r}; got {unknown[:5]}")
    kind, rank, suit = np.array([_TARGETS[str(label)] for label in labels]).T
    is_index = kind == 1
    widths = [features.shape[1], *hidden, sum(HEADS)]
    if start is not None and [w.shape for w in start.weights] != list(itertools.pairwise(widths)):
        raise ValueError(
            f"the starting network's layers {[w.shape for w in start.weights]} do not fit "
            f"{features.shape[1]} features and hidden layers {list(hidden)}"
        )
    x = features.astype(np.float32, copy=not overwrite)
    if start is None:
        mean = x.mean(axis=0)
        scale = (1.0 / np.maximum(x.std(axis=0), 1e-3)).astype(np.float32)
        params = _random_layers(widths, rng)
    else:
        mean, scale = start.mean, start.scale
        params = [array.copy() for layer in zip(start.weights, start.biases, strict=True) for array in layer]
    x -= mean
    x *= scale
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    step = 0
    for epoch in range(epochs):
        lr = np.float32(rate * (0.5 * (1 + np.cos(np.pi * epoch / epochs))))
        order = rng.permutation(len(x))
        for start in range(0, len(x), batch):
            idx = order[start : start + batch]
            n = len(idx)
            layers = [x[idx]]  # each layer's input, the features first
            for weight, bias in zip(params[0:-2:2], params[1:-2:2], strict=True):
                layers.append(np.maximum(layers[-1] @ weight + bias, 0.0))
            p_rank, p_suit, p_index = _softmax_heads(layers[-1] @ params[-2] + params[-1])
            rows = np.arange(n)
            positive = is_index[idx].astype(np.float32)[:, None]
            p_rank[rows, rank[idx]] -= 1.0
            p_suit[rows, suit[idx]] -= 1.0
            p_index[rows, kind[idx]] -= 1.0
            g = np.concatenate([p_rank * positive, p_suit * positive, p_index], axis=1) / n
            grads: list[np.ndarray] = []
            for k in range(len(layers) - 1, -1, -1):  # back from the heads, layer by layer
                weight = params[2 * k]
                grads[:0] = [layers[k].T @ g + decay * weight, g.sum(axis=0)]
                if k:
                    g = (g @ weight.T) * (layers[k] > 0)
            step += 1
            _adam_step(params, moments, squares, grads, lr, step)
    return IndexNet(mean, scale, tuple(params[0::2]), tuple(params[1::2]))
