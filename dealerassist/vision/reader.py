"""Read every card in a frame from its corner indices, abstaining rather than guessing.

A corner's read is trusted only when the rank and the suit each match their templates well and
beat the runner-up class by a clear margin, the ink colour agrees with the suit, the rank is not
a pip and sits where the deck prints it with clear paper to the card's edges. Corners that grow
into the same card are merged; two reads of one printed index, or two confident corners of one
card, that disagree make the card unknown.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from dealerassist.vision.corner import GLYPH_SIZE, Glyph, find_glyphs, rectify
from dealerassist.vision.deck import DeckModel, back_feature
from dealerassist.vision.detect import (
    MAX_CARD_HEIGHT,
    MIN_CARD_HEIGHT,
    Corner,
    blob_outlines,
    card_mask,
    card_quad,
    corner_arms,
    edge_evidence,
    edge_junctions,
    height_candidates,
    outline_corners,
    paper_coverages,
    projected_corners,
)

WORKING_SIDE = 1600  # larger frames are read scaled down to this longer side
MIN_COVERAGE = 0.9  # share of a back's outline that must lie on card paper
ACHROMATIC = 20.0  # a*b* chroma below which a suit's ink counts as black
INNER_CORNER = 12  # patch pixels (0.06 card heights) past the white edge every design has
BACK_MIN_INK = 0.12  # mean ink inside a corner below which it is plain paper, not a back


@dataclass(frozen=True)
class Thresholds:
    """Decision levels, tuned on the development design only (kennard-2color)."""

    min_rank_score: float = 0.75  # rank correlation (common part removed) needed at all
    min_suit_score: float = 0.70  # the same for the suit, a simpler shape
    full_ratio: float = 1.0  # runner-up distance / best distance - 1 that gives full confidence
    accept: float = 0.80  # card confidence below this is reported as unknown
    index_offset: float = 0.04  # card heights the rank may sit away from where the deck prints it
    projected_accept: float = 0.9  # confidence needed for a read at a projected corner
    projected_offset: float = 0.08  # the same for a corner reached along the edges from another corner
    back_distance: float = 12.0  # mean per-value Lab distance to the nearest enrolled back corner


@dataclass
class CardSighting:
    """One card in one frame: the read (or None), how sure, which way up, where."""

    card: str | None
    confidence: float
    face_up: bool
    quad: np.ndarray  # 4x2 image points: the index corner first, then round the card
    zone: str | None = None
    votes: list[tuple[str | None, float]] = field(default_factory=list)
    projected: bool = False  # read at a corner reached along the edges rather than seen
    index_point: np.ndarray | None = None  # where in the image the rank that was read is printed

    @property
    def centre(self) -> np.ndarray:
        return self.quad.mean(axis=0)

    def to_json(self) -> dict[str, object]:
        return {
            "card": self.card,
            "confidence": round(float(self.confidence), 4),
            "face_up": self.face_up,
            "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad],
            "zone": self.zone,
        }


class _Templates:
    """Glyph templates with their common part (the generic blob every glyph shares) taken out.

    Every suit is a dark blob in the middle of its box; correlating what is left after removing
    the average glyph compares only what tells one class from another. Templates are grouped by
    class so the best score per class is one vectorised reduction.
    """

    def __init__(self, features: np.ndarray, labels: np.ndarray, remove_common: bool = True) -> None:
        order = np.argsort(labels, kind="stable")
        self.mean = features.mean(axis=0) if remove_common else np.zeros(features.shape[1], features.dtype)
        self.features = _normalised(features[order] - self.mean)
        sorted_labels = labels[order]
        self.starts = np.flatnonzero(np.r_[True, sorted_labels[1:] != sorted_labels[:-1]])
        self.classes = [str(v) for v in sorted_labels[self.starts]]

    def per_class(self, feature: np.ndarray) -> np.ndarray:
        """Best correlation of each class (in ``classes`` order) with the common part removed."""
        centred = feature - self.mean
        centred = centred / max(float(np.linalg.norm(centred)), 1e-6)
        # einsum stays off the BLAS thread pool, which costs more than this small product on a busy host
        return np.maximum.reduceat(np.einsum("ij,j->i", self.features, centred), self.starts)

    def ranked(self, feature: np.ndarray) -> tuple[str, float, str, float]:
        """Best class and its correlation, then the runner-up class and its correlation."""
        per_class = self.per_class(feature)
        if len(per_class) == 1:
            return self.classes[0], float(per_class[0]), self.classes[0], -1.0
        top2 = np.argpartition(-per_class, 1)[:2]
        best, runner = (top2[0], top2[1]) if per_class[top2[0]] >= per_class[top2[1]] else (top2[1], top2[0])
        return self.classes[best], float(per_class[best]), self.classes[runner], float(per_class[runner])

    def scores(self, feature: np.ndarray) -> tuple[str, float, float]:
        """Best class, its correlation, and the runner-up class's correlation."""
        best, score, _, runner = self.ranked(feature)
        return best, score, runner


class _RankShapes:
    """A second, independent look at a rank: raw shape correlation and where its ink mass sits.

    The main test correlates glyphs with their common part removed; this one correlates the plain
    glyphs and compares the ink's centre of mass with the enrolled average of the best and the
    runner-up rank. A rank is sure only when both looks name the same rank. (On kennard-2color the
    6 and 9 averages differ by only 1 % of the glyph height; the plain correlation does most of it.)
    """

    def __init__(self, features: np.ndarray, labels: np.ndarray) -> None:
        self.raw = _Templates(features, labels, remove_common=False)
        centres = _mass_centres(features)
        self.centres = {c: centres[labels == c].mean(axis=0) for c in self.raw.classes}

    def agrees(self, feature: np.ndarray, rank: str, runner: str) -> bool:
        """Plain correlation names ``rank`` too; the mass centre is nearer ``rank``'s than ``runner``'s."""
        if self.raw.ranked(feature)[0] != rank:
            return False
        if runner == rank:
            return True
        centre = _mass_centres(feature[None, :])[0]
        return bool(
            np.linalg.norm(centre - self.centres[rank]) < np.linalg.norm(centre - self.centres[runner])
        )


def _mass_centres(features: np.ndarray) -> np.ndarray:
    """Centre of ink mass (x, y in 0..1 of the glyph box) of each normalised glyph image."""
    images = features.reshape(len(features), GLYPH_SIZE[1], GLYPH_SIZE[0])
    mass = np.maximum(images - images.min(axis=(1, 2), keepdims=True), 0.0)
    total = np.maximum(mass.sum(axis=(1, 2)), 1e-6)
    ys = (mass.sum(axis=2) * np.linspace(0.0, 1.0, GLYPH_SIZE[1])).sum(axis=1) / total
    xs = (mass.sum(axis=1) * np.linspace(0.0, 1.0, GLYPH_SIZE[0])).sum(axis=1) / total
    return np.stack([xs, ys], axis=1)


def _colour_groups(colours: dict[str, np.ndarray]) -> list[list[str]]:
    """Suits printed in one ink: all black ones together, coloured ones when their hues are close."""
    groups: list[list[str]] = []
    for suit, chroma in sorted(colours.items()):
        strength = float(np.linalg.norm(chroma))
        home = next(
            (
                g
                for g in groups
                if (strength < ACHROMATIC and float(np.linalg.norm(colours[g[0]])) < ACHROMATIC)
                or float(np.linalg.norm(colours[g[0]] - chroma)) < 0.5 * max(strength, ACHROMATIC)
            ),
            None,
        )
        if home is None:
            groups.append([suit])
        else:
            home.append(suit)
    return groups


def _normalised(rows: np.ndarray) -> np.ndarray:
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-6)


class CardReader:
    """Reads frames against one enrolled deck."""

    def __init__(self, deck: DeckModel, thresholds: Thresholds | None = None) -> None:
        self.deck = deck
        self.thresholds = thresholds or Thresholds()
        self.ranks = _Templates(deck.rank_features, deck.rank_labels)
        self.suits = _Templates(deck.suit_features, deck.suit_labels)
        self.rank_shapes = _RankShapes(deck.rank_features, deck.rank_labels)
        self.suit_groups = [
            (group, _Templates(deck.suit_features[mask], deck.suit_labels[mask]))
            for group in _colour_groups(deck.suit_colours)
            for mask in [np.isin(deck.suit_labels, group)]
            if mask.any()
        ]

    def _glyph_confidence(self, score: float, runner: float, floor: float) -> float:
        """Ratio test: the runner-up class must be several times further away than the best one."""
        t = self.thresholds
        if score < floor:
            return 0.0
        ratio = (1.0 - runner) / max(1.0 - score, 1e-3)
        return float(min(1.0, (ratio - 1.0) / t.full_ratio))

    def read_corner(self, rank: Glyph, suit: Glyph) -> tuple[str | None, float]:
        """Classify one index; (None, confidence) when it must abstain."""
        r_label, r_score, r_next, r_runner = self.ranks.ranked(rank.feature)
        s_label, s_score, s_runner = self.suits.scores(suit.feature)
        t = self.thresholds
        rank_confidence = self._glyph_confidence(r_score, r_runner, t.min_rank_score)
        suit_confidence = self._glyph_confidence(s_score, s_runner, t.min_suit_score)
        if (
            suit_confidence < t.accept <= rank_confidence
            and self.rank_shapes.agrees(rank.feature, r_label, r_next)
            and self._suit_within_colour(suit) == s_label
            and self._pair_confidence >= 1.0
        ):
            # Small print blurs spade into club and heart into diamond, but the ink colour still splits
            # the suits in two; the pair left is told apart by what differs between just those two.
            # Trusted only with a rank that two independent looks agree on (see _RankShapes).
            suit_confidence = self._pair_confidence
        confidence = min(rank_confidence, suit_confidence)
        if self.suits.scores(rank.feature)[1] >= r_score - 0.05:
            confidence = 0.0  # the "rank" looks like a suit symbol: a pip seen from a false corner
        if not self._colour_agrees(suit.colour, s_label) or self._colour_conflicts(rank.colour, s_label):
            # An index prints rank and suit in the suit's colour: a grey edge or a court's frame read
            # as a rank, or a pip of another colour, fails here.
            confidence = min(confidence, 0.3)
        code = f"{r_label}{s_label}"
        return (code if confidence >= self.thresholds.accept else None), confidence

    def _suit_within_colour(self, suit: Glyph) -> str | None:
        """The suit named by the one colour group its ink agrees with, or None when that is unclear.

        Sets ``_pair_confidence`` to the ratio-test confidence of the choice within the group.
        """
        self._pair_confidence = 0.0
        groups = [
            (group, templates)
            for group, templates in self.suit_groups
            if any(self._colour_agrees(suit.colour, member) for member in group)
        ]
        if len(groups) != 1:
            return None
        templates = groups[0][1]
        label, score, _, runner = templates.ranked(suit.feature)
        self._pair_confidence = self._glyph_confidence(score, runner, self.thresholds.min_suit_score)
        return label

    def _colour_agrees(self, seen: np.ndarray, suit: str) -> bool:
        """The suit ink must show the suit's hue; blur and small print only wash it towards grey.

        A coloured suit needs a good share of its enrolled chroma, in its direction; a black suit
        must show less than a third of the weakest coloured suit's chroma.
        """
        colours = self.deck.suit_colours
        own = colours[suit]
        strength = float(np.linalg.norm(own))
        if strength < ACHROMATIC:
            coloured = [float(np.linalg.norm(c)) for c in colours.values() if np.linalg.norm(c) >= ACHROMATIC]
            return not coloured or float(np.linalg.norm(seen)) < min(coloured) / 3.0
        along = float(seen @ own) / strength
        across = float(np.linalg.norm(seen - own * (along / strength)))
        return along >= 0.35 * strength and across <= 0.5 * along

    def _colour_conflicts(self, seen: np.ndarray, suit: str) -> bool:
        """Rank ink clearly of another colour than the suit (thin strokes may only look greyer)."""
        colours = self.deck.suit_colours
        own = colours[suit]
        strength = float(np.linalg.norm(own))
        chroma = float(np.linalg.norm(seen))
        if strength < ACHROMATIC:
            coloured = [float(np.linalg.norm(c)) for c in colours.values() if np.linalg.norm(c) >= ACHROMATIC]
            return bool(coloured) and chroma >= min(coloured) / 2.0
        return chroma >= 0.35 * strength and float(seen @ own) < 0.7 * chroma * strength

    def _index_in_place(self, rank: Glyph, limit: float) -> bool:
        """The rank must start where the deck prints it, measured in the card size its own height implies."""
        expected = self.deck.rank_box
        scale = (rank.box[3] - rank.box[1]) / max(expected[3] - expected[1], 1e-6)
        if not 0.6 <= scale <= 1.6:
            return False
        off_x = abs(rank.box[0] / scale - expected[0])
        off_y = abs(rank.box[1] / scale - expected[1])
        return off_x <= limit and off_y <= limit

    def _size_from_rank(self, rank: Glyph, height: float, heights: list[float]) -> float:
        """Card height implied by the printed rank's size; snapped to an edge measurement that agrees."""
        expected = self.deck.rank_box[3] - self.deck.rank_box[1]
        implied = height * (rank.box[3] - rank.box[1]) / max(expected, 1e-6)
        nearest = min(heights, key=lambda h: abs(h - implied))
        return nearest if abs(nearest - implied) <= 0.2 * implied else implied

    def _is_back(self, frame: np.ndarray, corner: Corner, height: float) -> float:
        """Distance of this corner's inside to the nearest enrolled back corner (lower = more back-like)."""
        feature = back_feature(frame, corner.point, corner.x_axis, corner.y_axis, height)
        diffs = np.abs(self.deck.back_features - feature).mean(axis=1)
        return float(diffs.min())

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
        paper = card_mask(frame)
        outlines = blob_outlines(paper)
        filled = np.zeros_like(paper)
        cv2.drawContours(filled, outlines, -1, 255, cv2.FILLED)
        sightings: list[CardSighting] = []
        aspect = self.deck.aspect
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        projected: list[tuple[Corner, float]] = []
        for index, outline in enumerate(outlines):
            direct = outline_corners(outline, index)
            arms = [corner_arms(filled, corner) for corner in direct]
            for corner, arm in zip(direct, arms, strict=True):
                sighting = self._sight(frame, filled, corner, height_candidates(filled, corner, aspect, arm))
                if sighting is not None:
                    sightings.append(sighting)
            for corner in edge_junctions(gray, filled, outline, index):
                sighting = self._sight(frame, filled, corner, height_candidates(filled, corner, aspect))
                # A junction is a guess at a corner: it may name a card or see a back, but an unread
                # "card" there is mostly a stretch of another card's edge.
                if sighting is not None and (sighting.card is not None or not sighting.face_up):
                    sightings.append(sighting)
            for corner, arm in zip(direct, arms, strict=True):
                projected.extend(projected_corners(filled, corner, aspect, arm))
        read_corners = [s.quad[k] for s in sightings if s.card for k in (0, 2)]
        for corner, height in _distinct(projected, read_corners):
            if not edge_evidence(gray, filled, corner, height):
                continue
            # A projected corner only counts when it names the card: no back test there.
            sighting = self._sight(
                frame, filled, corner, [height], self.thresholds.projected_offset, names_only=True
            )
            if sighting is not None and sighting.card is not None:
                if sighting.confidence < self.thresholds.projected_accept:
                    continue
                sighting.projected = True
                sightings.append(sighting)
        return _merge(sightings)

    def _sight(
        self,
        frame: np.ndarray,
        filled: np.ndarray,
        corner: Corner,
        heights: list[float],
        offset_limit: float | None = None,
        names_only: bool = False,
    ) -> CardSighting | None:
        """The card at one corner: a read, a back, or an index seen but not read (None: nothing).

        ``names_only`` skips the back test for corners whose other outcomes are not used anyway.
        """
        if not heights:
            return None
        aspect = self.deck.aspect
        best: CardSighting | None = None
        pair = None
        patches = {}
        for height, join in [(h, False) for h in heights] + [(h, True) for h in heights]:
            if join and (best is not None or pair is None):
                break  # broken strokes are worth a second look only at an index that was not read
            patch = patches.get(height) or rectify(frame, corner.point, corner.x_axis, corner.y_axis, height)
            patches[height] = patch
            found = find_glyphs(patch, self.deck.rank_box, 0.35 if offset_limit is None else 0.9, join)
            if found is None:
                continue
            pair = found
            if not self._index_in_place(found[0], offset_limit or self.thresholds.index_offset):
                continue  # an index, but not this corner's: another card's, seen through a fan
            code, confidence = self.read_corner(*found)
            if confidence > 0.0 and (best is None or confidence > best.confidence):
                size = self._size_from_rank(found[0], height, heights)
                rank_box = found[0].box
                across, down = (
                    (rank_box[0] + rank_box[2]) / 2 * height,
                    (rank_box[1] + rank_box[3]) / 2 * height,
                )
                best = CardSighting(
                    code,
                    confidence,
                    True,
                    card_quad(corner, size, aspect),
                    votes=[(code, confidence)],
                    index_point=corner.point + corner.x_axis * across + corner.y_axis * down,
                )
                if confidence >= 1.0:
                    break  # nothing to gain from another size guess
        if best is not None or names_only:
            return best
        # Not an index corner: maybe a back. A back's pattern inks the inside of the corner, plain paper
        # does not, so most corners are settled without the colour-layout test.
        inked = float(patch.ink[INNER_CORNER:, INNER_CORNER:].mean())
        if inked < BACK_MIN_INK and pair is None:
            return None
        # Either edge may be the long one; the card must lie on paper.
        options = [(h, False) for h in heights] + [(h * aspect, True) for h in heights]
        options = sorted(
            ((h, lng) for h, lng in options if MIN_CARD_HEIGHT <= h <= MAX_CARD_HEIGHT), reverse=True
        )
        if not options:
            return None
        # The largest card that lies on paper.
        quads = np.array([card_quad(corner, h, aspect, lng) for h, lng in options])
        on_paper = np.flatnonzero(paper_coverages(filled, quads) >= MIN_COVERAGE)
        if not len(on_paper):
            return None
        full, long_across = options[on_paper[0]]
        quad = card_quad(corner, full, aspect, long_across)
        height = heights[0]
        distance = self._is_back(frame, corner, full)
        if distance <= self.thresholds.back_distance:
            return CardSighting(
                None,
                float(max(0.0, 1.0 - distance / (2 * self.thresholds.back_distance))),
                False,
                quad,
                votes=[("back", 1.0)],
            )
        if pair is not None:
            return CardSighting(None, 0.0, True, card_quad(corner, height, aspect), votes=[(None, 0.0)])
        return None


def _merge(sightings: list[CardSighting]) -> list[CardSighting]:
    """Corners of the same card grow into overlapping quads: one sighting per card.

    A card is named only when its confident corners agree; a back corner alone makes it face down;
    anything else is a card seen but not read.
    """
    _one_index_one_read(sightings)
    sightings.sort(key=lambda s: (s.card is None, -s.confidence))
    groups: list[list[CardSighting]] = []
    for s in sightings:
        size = float(np.linalg.norm(s.quad[2] - s.quad[0]))
        home = next((g for g in groups if _same_card(g[0], s, size)), None)
        if home is None:
            groups.append([s])
        else:
            home.append(s)
    merged = []
    for group in groups:
        lead = group[0]
        reads = {s.card for s in group if s.card is not None}
        votes = [v for s in group for v in s.votes]
        if len(reads) > 1:
            merged.append(CardSighting(None, 0.0, True, lead.quad, votes=votes))
        elif reads:
            merged.append(
                CardSighting(
                    lead.card, lead.confidence, True, lead.quad, votes=votes, projected=lead.projected
                )
            )
        else:
            backs = [s for s in group if not s.face_up]
            if backs and len(backs) == len(group):
                merged.append(CardSighting(None, backs[0].confidence, False, backs[0].quad, votes=votes))
            else:
                merged.append(CardSighting(None, 0.0, True, lead.quad, votes=votes))
    return _drop_shadows(merged)


def _distinct(candidates: list[tuple[Corner, float]], known: list[np.ndarray]) -> list[tuple[Corner, float]]:
    """Projected corners not already read and not repeating each other (same spot, same way round)."""
    if not candidates:
        return []
    points = np.array([c.point for c, _ in candidates], float)
    axes = np.array([c.x_axis for c, _ in candidates], float)
    near = 0.06 * np.array([h for _, h in candidates], float)
    fresh = np.ones(len(candidates), bool)
    if known:
        # All distances at once: about a hundred candidates against the read corners, every frame.
        gaps = np.linalg.norm(points[:, None, :] - np.array(known, float)[None, :, :], axis=2)
        fresh = ~(gaps < near[:, None]).any(axis=1)
    apart = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    same_way = (axes @ axes.T) > 0.9
    kept: list[int] = []
    for i in np.flatnonzero(fresh):
        if kept and bool(((apart[i, kept] < near[i]) & same_way[i, kept]).any()):
            continue
        kept.append(int(i))
    return [candidates[i] for i in kept]


def _one_index_one_read(sightings: list[CardSighting]) -> None:
    """Reads of the same printed rank (seen from different corners) must agree, or none stands."""
    named = [s for s in sightings if s.card is not None and s.index_point is not None]
    for a in list(named):
        if a.card is None:
            continue
        size = float(np.linalg.norm(a.quad[3] - a.quad[0]))
        clash = [
            b
            for b in named
            if b.card != a.card and np.linalg.norm(b.index_point - a.index_point) < 0.06 * size
        ]
        if clash:
            for s in [a, *clash]:
                s.card, s.confidence = None, 0.0


def _same_card(a: CardSighting, b: CardSighting, size: float) -> bool:
    """Two corners see one card when their quads share a centre, or name one card and overlap.

    Unread and face-down sightings merge only when their centres nearly agree: two backs in a fan
    lie a third of a card apart and must stay two cards.
    """
    if a.face_up != b.face_up:
        return False  # a back next to a face is a card under a card, not one card
    distance = float(np.linalg.norm(a.centre - b.centre))
    if distance < 0.1 * size:
        return True
    if a.card is not None and a.card == b.card:
        return _inside(a.quad, b.centre) or _inside(b.quad, a.centre)
    return a.card is None and b.card is None and distance < 0.12 * size


def _inside(quad: np.ndarray, point: np.ndarray) -> bool:
    return cv2.pointPolygonTest(quad.astype(np.float32), (float(point[0]), float(point[1])), False) > 0


def _drop_shadows(sightings: list[CardSighting]) -> list[CardSighting]:
    """An unread corner inside a card that was read or seen face down is that card's other corner."""
    known = [s for s in sightings if s.card is not None or not s.face_up]
    kept = []
    for s in sightings:
        if (
            s.card is None
            and s.face_up
            and any(
                cv2.pointPolygonTest(
                    k.quad.astype(np.float32), (float(s.centre[0]), float(s.centre[1])), False
                )
                > 0
                for k in known
            )
        ):
            continue
        kept.append(s)
    return kept
