"""Read every card in a frame from its corner indices, abstaining rather than guessing.

``CardReader._read`` runs the stages in order, each a call into its module:

1. candidate corners with their card sizes (``candidates``);
2. a first look: one index window per corner and size, read in one batch (``index_window``,
   ``index_features``, the deck's ``indexnet`` committee);
3. second looks at unsure or unnamed corners, one cascade (``amend``);
4. a sighting per corner, and face-down cards among the rest (``backs``);
5. one sighting per card (``merging``);
6. a fan's middle cards (``fans``);
7. a closer look at cards seen but not read (``closer``);
8. the clean-up (``merging``).

A read is trusted only when the classifier is sure of rank, suit and that an index is there at
all; reads that disagree make a card unknown unless one is beyond doubt.
"""

from __future__ import annotations

import cv2
import numpy as np

from dealerassist.vision.amend import look_again
from dealerassist.vision.backs import backs_at
from dealerassist.vision.candidates import JUNCTION, OUTLINE, TRACED, Candidate, find_candidates, windows_of
from dealerassist.vision.card_corner import Corner, corner_arrays
from dealerassist.vision.card_extent import card_quad
from dealerassist.vision.closer import closer_names, closer_windows
from dealerassist.vision.deck import DeckModel
from dealerassist.vision.fans import middle_cards, stretches
from dealerassist.vision.index_features import ink_maps
from dealerassist.vision.index_window import sample_windows, sampling_image
from dealerassist.vision.merging import (
    card_height,
    drop_shadows,
    merge_sightings,
    one_sighting_a_back,
    smallest_card,
)
from dealerassist.vision.second_look import FirstLook, Windows
from dealerassist.vision.sighting import CardSighting
from dealerassist.vision.thresholds import Thresholds

WORKING_SIDE = 1600  # larger frames are read scaled down to this longer side
# Corners read at their first size guess only: their others add windows and name next to nothing.
_FIRST_SIZE_ONLY = frozenset({JUNCTION, TRACED})


class CardReader:
    """Reads frames against one enrolled deck. It changes nothing process-wide: a process that reads
    frames makes its thread and allocator settings itself (``vision.process``)."""

    def __init__(self, deck: DeckModel, thresholds: Thresholds | None = None) -> None:
        self.deck = deck
        self.thresholds = thresholds or Thresholds()

    def read(self, frame: np.ndarray) -> list[CardSighting]:
        """Every card found in a BGR frame (outlines in the frame's own pixels)."""
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or min(frame.shape[:2]) < 64:
            raise ValueError("a frame must be a BGR colour image of at least 64x64 pixels")
        scale = WORKING_SIDE / max(frame.shape[:2])
        if scale >= 1.0:
            return self._read(frame)
        # A photo or a high-resolution camera: read at the size the detector is built for.
        small = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        found = self._read(small)
        for sighting in found:
            sighting.quad = sighting.quad / scale
            if sighting.index_point is not None:
                sighting.index_point = sighting.index_point / scale
        return found

    def _read(self, frame: np.ndarray) -> list[CardSighting]:
        """The reader's stages in order."""
        # Made once: the corner search reads it too, and every look samples its windows from it.
        bgra = sampling_image(frame)
        geometry = find_candidates(bgra, self.deck.aspect, self.deck.rank_box, self.deck.window)
        if not geometry.candidates:
            return []
        look, kind, starts = self._first_look(bgra, geometry.candidates)
        look_again(look, self.deck.net, self.deck.window, self.deck.aspect, self.thresholds)
        sightings = self._at_each_corner(frame, geometry.filled, look, kind, starts)
        merged = merge_sightings(sightings, self.thresholds)
        seen = self._fans_middle_cards(bgra, merged) if len(merged) > 1 else merged
        seen = self._closer_look(bgra, seen)
        return one_sighting_a_back(drop_shadows(seen))

    def _first_look(
        self, bgra: np.ndarray, candidates: list[Candidate]
    ) -> tuple[FirstLook, np.ndarray, np.ndarray]:
        """One window at every candidate corner and size, read in one batch: the first look, each
        row's kinds (nothing, an index, a back) and where each candidate's rows start."""
        corners = corner_arrays([c.corner for c in candidates])
        sizes = [_first_look_sizes(c) for c in candidates]
        windows, owner, heights = windows_of(bgra, candidates, self.deck.window, corners, sizes)
        features = self.deck.net.describe(windows)
        names, probability, kind = self.deck.net.best(features)
        # Each candidate's rows are consecutive; its surest row is the first of equals.
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if len(owner) else owner
        ends = [*starts[1:].tolist(), len(owner)]
        best = [
            start + int(np.argmax(probability[start:end]))
            for start, end in zip(starts.tolist(), ends, strict=True)
        ]
        look = FirstLook(
            bgra, candidates, *corners, owner, heights, ink_maps(features), names, probability, best
        )
        return look, kind, starts

    def _at_each_corner(
        self, frame: np.ndarray, filled: np.ndarray, look: FirstLook, kind: np.ndarray, starts: np.ndarray
    ) -> list[CardSighting]:
        """What each candidate corner shows after both looks, in candidate order: a card named, a
        face-down card where the corner may be a back's and is one, else an unread card."""
        t, owner, best, heights = self.thresholds, look.owner, look.best, look.heights
        sure = look.probability.tolist()
        # Compared in the probabilities' own precision, as a scalar of them is against a threshold.
        accepted = (look.probability[best] >= t.accept).tolist()
        index_seen = np.maximum.reduceat(kind[:, 1], starts).tolist() if len(owner) else []
        back_seen = np.maximum.reduceat(kind[:, 2], starts).tolist() if len(owner) else []
        found: list[CardSighting | None] = []
        maybe_backs: dict[int, tuple[Corner, list[float]]] = {}  # at each place in found
        for k, row in enumerate(best):
            candidate = look.candidates[int(owner[row])]
            corner, source = candidate.corner, candidate.source
            if accepted[k]:
                found.append(self._named_at(corner, float(heights[row]), look.names[row], sure[row]))
                continue
            if back_seen[k] >= t.seen_back:
                maybe_backs[len(found)] = (corner, candidate.heights)
            # A junction is a guess at a corner: an unread "card" there is mostly another card's edge.
            if source == OUTLINE and index_seen[k] >= t.seen_index:
                quad = card_quad(corner, float(heights[row]), self.deck.aspect)
                found.append(CardSighting(None, 0.0, True, quad, votes=[(None, 0.0)]))
            else:
                found.append(None)
        backs = backs_at(frame, filled, list(maybe_backs.values()), self.deck, t.back_distance)
        for at, back in zip(maybe_backs, backs, strict=True):
            found[at] = back or found[at]
        return [s for s in found if s is not None]

    def _named_at(self, corner: Corner, size: float, name: str, sure: float) -> CardSighting:
        """A card named at this corner and size."""
        window = self.deck.window
        return CardSighting(
            name,
            sure,
            True,
            card_quad(corner, size, self.deck.aspect),
            votes=[(name, sure)],
            index_point=corner.point
            + (corner.x_axis * window.across + corner.y_axis * window.down) * size / 2,
        )

    def _fans_middle_cards(self, bgra: np.ndarray, merged: list[CardSighting]) -> list[CardSighting]:
        """The sightings and each fan's middle card read between its neighbours (``fans``)."""
        found = stretches([s.quad for s in merged])
        if not len(found.sizes):
            return merged
        names, probability = self._read_windows(bgra, found)
        named = {s.card for s in merged if s.card is not None}
        middle = middle_cards(found, names, probability, self.thresholds.fan_middle, named)
        if not middle:
            return merged
        added = [
            self._named_at(
                Corner(found.points[row], found.x_axes[row], found.y_axes[row], blob=-1),
                float(found.sizes[row]),
                name,
                sure,
            )
            for name, (row, sure) in middle.items()
        ]
        return drop_shadows(merged + added, keep_disputed=True)

    def _closer_look(self, bgra: np.ndarray, found: list[CardSighting]) -> list[CardSighting]:
        """The sightings, a face-up card seen but not read named where ``closer`` names it."""
        named = [s for s in found if s.card is not None]
        smallest = smallest_card(named)  # not a card printed on a card: left unread on purpose
        unread = [s for s in found if s.card is None and s.face_up and card_height(s) >= smallest]
        if not unread:
            return found  # nearly every frame
        names, probability = self._read_windows(bgra, closer_windows([s.quad for s in unread]))
        reads = closer_names(names, probability, self.thresholds.accept, {s.card for s in named if s.card})
        for sighting, read in zip(unread, reads, strict=True):
            if read is not None:
                sighting.card, sighting.confidence = read
                sighting.votes = [*sighting.votes, read]
        return found

    def _read_windows(self, bgra: np.ndarray, at: Windows) -> tuple[list[str], np.ndarray]:
        """The card each window names and how sure."""
        windows = sample_windows(bgra, at.points, at.x_axes, at.y_axes, at.sizes, self.deck.window)
        names, probability, _ = self.deck.net.best(self.deck.net.describe(windows))
        return names, probability


def _first_look_sizes(candidate: Candidate) -> list[float]:
    """The card sizes a candidate is read at at first look."""
    return candidate.heights[:1] if candidate.source in _FIRST_SIZE_ONLY else candidate.heights
