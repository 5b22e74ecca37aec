"""Score card sightings against a synthetic scene's truth: read right, read wrong, abstained, false alarms.

Shared by the benchmark and the tests so both count the same way. A sighting belongs to the
true card whose centre is nearest (within a third of the card's height), or whose index corner
lies where the sighting put its index corner: a right name with a poor outline is still right.
"""

from __future__ import annotations

from bisect import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

import numpy as np

# Card heights in pixels that split the right reads by size: how large a camera must show a card
# is the figure an installer needs, and the smallest cards are where a reader fails first.
HEIGHT_BANDS = (90.0, 110.0, 130.0, 160.0)


@dataclass
class Tally:
    """What was read of the cards of some frames, by what the truth says they were."""

    face_up_visible: int = 0
    correct: int = 0
    wrong: int = 0  # any face-up card named as a different card (index visible or not)
    abstained: int = 0
    face_up_hidden: int = 0
    face_down: int = 0
    face_down_read_as_face: int = 0
    face_down_seen: int = 0  # face-down cards reported as face down
    false_detections: int = 0
    frames: int = 0
    seconds: float = 0.0
    mistakes: list[str] = field(default_factory=list)
    # Per band of HEIGHT_BANDS (below the first, between each two, above the last): the face-up
    # cards with a visible index, how many of them were read right, and how many wrong.
    by_height: list[list[int]] = field(
        default_factory=lambda: [[0, 0, 0] for _ in range(len(HEIGHT_BANDS) + 1)]
    )

    def add(self, other: Tally) -> None:
        """Add ``other``'s counts, seconds and mistakes to this tally's."""
        for name in (f.name for f in fields(self) if f.name != "by_height"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mine, theirs in zip(self.by_height, other.by_height, strict=True):
            mine[:] = [a + b for a, b in zip(mine, theirs, strict=True)]

    def summary(self) -> dict[str, float | int]:
        shown = max(self.face_up_visible, 1)
        face_up = max(self.face_up_visible + self.face_up_hidden, 1)
        return {
            "face_up_visible": self.face_up_visible,
            "correct_pct": round(100.0 * self.correct / shown, 3),
            "wrong_pct": round(100.0 * self.wrong / face_up, 3),
            "abstained_pct": round(100.0 * self.abstained / shown, 3),
            "face_down": self.face_down,
            "face_down_read_as_face": self.face_down_read_as_face,
            "face_down_seen": self.face_down_seen,
            "false_detections": self.false_detections,
            "ms_per_frame": round(1000.0 * self.seconds / max(self.frames, 1), 2),
        }


def score_frame(found: Sequence[dict], truth: Sequence[dict], label: str = "") -> Tally:
    """Compare one frame's sightings (``vision read`` JSON form) with its truth (scene JSON form)."""
    tally = Tally(frames=1)
    quads = [np.array(t["quad"], float) for t in truth]
    centres = [quad.mean(axis=0) for quad in quads]
    heights = [float(np.linalg.norm(quad[3] - quad[0])) for quad in quads]
    claimed: dict[int, dict] = {}
    for sighting in sorted(found, key=lambda s: -float(s["confidence"])):
        seen = np.array(sighting["quad"], float)
        centre, corner = seen.mean(axis=0), seen[0]
        distances = []
        for quad, c, h in zip(quads, centres, heights, strict=True):
            by_corner = 0.1 * h + min(float(np.linalg.norm(corner - quad[k])) for k in (0, 2))
            distances.append(min(float(np.linalg.norm(centre - c)), by_corner) / h)
        order = [i for i in np.argsort(distances) if distances[i] < 0.34 and i not in claimed]
        if sighting["card"] is not None:
            named = [i for i in order if truth[i]["card"] == sighting["card"] and truth[i]["face_up"]]
            order = named + [i for i in order if i not in named]
        if not order:
            tally.false_detections += 1
            if sighting["card"] is not None:
                tally.wrong += 1
                tally.mistakes.append(f"{label}: read {sighting['card']} where there is no card")
            continue
        claimed[order[0]] = sighting
    for i, t in enumerate(truth):
        seen = claimed.get(i)
        read = seen["card"] if seen else None
        if not t["face_up"]:
            tally.face_down += 1
            if seen is not None and seen["card"] is None and not seen["face_up"]:
                tally.face_down_seen += 1
            if read is not None:
                tally.face_down_read_as_face += 1
                tally.mistakes.append(f"{label}: face-down {t['card']} read as {read}")
            continue
        if read is not None and read != t["card"]:
            tally.wrong += 1
            tally.mistakes.append(f"{label}: {t['card']} read as {read}")
        if not t["index_visible"]:
            tally.face_up_hidden += 1
            continue
        tally.face_up_visible += 1
        band = tally.by_height[bisect(HEIGHT_BANDS, heights[i])]
        band[0] += 1
        if read == t["card"]:
            tally.correct += 1
            band[1] += 1
        elif read is None:
            tally.abstained += 1
        else:
            band[2] += 1
    return tally
