"""The few tests game protection needs, exact where the numbers allow it (no SciPy in the core).

* ``PoissonBinomial``: the count of successes of independent trials each with its own known
  probability. It is the null distribution of the hole-card test (how often an uninformed player
  happens to match the informed choice), kept exactly round after round in O(n) per trial.
* ``binomial_upper``: P(X >= k) for X ~ Binomial(n, p), exact, for dealer incident counts.
* ``rank_correlation``: Spearman's rho with its one-sided p-value (Fisher z), for bets against
  the count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass
class PoissonBinomial:
    """The exact distribution of a sum of independent Bernoulli trials, grown one trial at a time."""

    pmf: np.ndarray = field(default_factory=lambda: np.ones(1))
    mean: float = 0.0
    variance: float = 0.0

    def add(self, p: float) -> None:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"a probability must be within 0..1, got {p!r}")
        grown = np.empty(len(self.pmf) + 1)
        grown[:-1] = self.pmf * (1.0 - p)
        grown[-1] = 0.0
        grown[1:] += self.pmf * p
        self.pmf = grown
        self.mean += p
        self.variance += p * (1.0 - p)

    @property
    def trials(self) -> int:
        return len(self.pmf) - 1

    def upper_tail(self, k: int) -> float:
        """P(K >= k): the chance of ``k`` or more successes under this distribution."""
        if k <= 0:
            return 1.0
        if k > self.trials:
            return 0.0
        return float(min(1.0, self.pmf[k:].sum()))


def binomial_upper(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), summed exactly in log space."""
    if k <= 0:
        return 1.0
    if k > n or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    logs = [
        math.lgamma(n + 1)
        - math.lgamma(i + 1)
        - math.lgamma(n - i + 1)
        + i * math.log(p)
        + (n - i) * math.log1p(-p)
        for i in range(k, n + 1)
    ]
    top = max(logs)
    return min(1.0, math.exp(top) * sum(math.exp(x - top) for x in logs))


def normal_upper(z: float) -> float:
    """P(Z >= z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def ranks(values: Sequence[float]) -> np.ndarray:
    """Average ranks (ties share the mean of their places), 1-based."""
    _, inverse, counts = np.unique(np.asarray(values, dtype=float), return_inverse=True, return_counts=True)
    return (np.cumsum(counts) - (counts - 1) / 2.0)[inverse.ravel()]


@dataclass(frozen=True)
class Correlation:
    n: int
    rho: float
    p_value: float  # one-sided: the chance of a rho this high or higher with no relation


def rank_correlation(x: Sequence[float], y: Sequence[float]) -> Correlation:
    """Spearman's rho of ``y`` on ``x`` and its one-sided p-value (Fisher z, n >= 4).

    A constant series has no correlation to speak of: rho 0, p-value 1.
    """
    n = len(x)
    if n != len(y):
        raise ValueError("the two series must be as long as each other")
    if n < 4:
        return Correlation(n, 0.0, 1.0)
    rx, ry = ranks(x), ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return Correlation(n, 0.0, 1.0)
    rho = float(np.corrcoef(rx, ry)[0, 1])
    clipped = min(max(rho, -0.999999), 0.999999)
    z = math.atanh(clipped) * math.sqrt((n - 3) / 1.06)
    return Correlation(n, rho, normal_upper(z))
