"""One card seen in one frame: what the reader reports and every later stage passes on."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class CardSighting:
    """One card in one frame: the read (or None), how sure, which way up, where."""

    card: str | None
    confidence: float
    face_up: bool
    quad: np.ndarray  # 4x2 image points: the index corner first, then round the card
    zone: str | None = None
    votes: list[tuple[str | None, float]] = field(default_factory=list)
    index_point: np.ndarray | None = None  # the middle of the index window the card was read from

    @property
    def centre(self) -> np.ndarray:
        q = self.quad  # the sum written out: asked for thousands of times a frame while merging
        return (q[0] + q[1] + q[2] + q[3]) / 4.0

    def to_json(self) -> dict[str, object]:
        return {
            "card": self.card,
            "confidence": round(float(self.confidence), 4),
            "face_up": self.face_up,
            "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad],
            "zone": self.zone,
        }
