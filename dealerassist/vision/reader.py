"""Read every card in a frame from its corner indices, abstaining rather than guessing.

Candidate corners come from the paper outlines (``paper``, ``outline_corners``); every candidate
is looked at, at each card size it may have, by the deck's index classifier (``indexnet``) in one
batch. A corner's read is trusted only when the classifier is sure of rank, suit and that an index
is there at all, at first sight or when windows placed around an unsure corner confirm its name (a
second look); corners that grow into the same card are merged, and two reads of one printed index,
or two confident corners of one card, that disagree make the card unknown unless one is beyond
doubt and the others are not close to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from dealerassist.vision.amend import (
    AROUND_WINDOWS,
    SAME_WAY,
    FirstLook,
    around_unsure_new_names,
    around_unsure_reads,
    around_unsure_reads_leaned,
    at_named_size,
    at_other_sizes,
    at_the_print,
    confirm_leaned_reads,
    confirm_new_names,
    confirm_unsure_reads,
    name_at_both_prints,
    read_second_looks,
    take_new_names,
    take_other_size_reads,
)
from dealerassist.vision.candidates import (
    JUNCTION,
    OUTLINE,
    PROJECTED,
    TRACED,
    Candidate,
    distances,
    find_candidates,
    windows_of,
)
from dealerassist.vision.card_corner import MAX_CARD_HEIGHT, MIN_CARD_HEIGHT, Corner, corner_arrays
from dealerassist.vision.card_extent import card_quad, paper_coverages
from dealerassist.vision.closer import BOTH_CORNERS, OWN_CORNER, closer_names, closer_windows
from dealerassist.vision.deck import DeckModel, back_feature
from dealerassist.vision.fans import middle_cards, stretches
from dealerassist.vision.indexnet import (
    SURE,
    ink_maps,
    sample_windows,
    sampling_image,
    window_features,
)

WORKING_SIDE = 1600  # larger frames are read scaled down to this longer side
MIN_COVERAGE = 0.9  # share of a back's outline that must lie on card paper
# Reads of one name are two cards when their prints are turned the same way (``amend.SAME_WAY``)
# and further apart than PRINTS_APART quad diagonals.
PRINTS_APART = 0.1
# A name read on a quad under this share of the named cards' median height is a picture.
SMALLEST_CARD = 0.6
# Two backs' outlines with a corner in common (within BACKS_MEET of a diagonal) and centres within
# BACKS_NEAR of it outline one back twice (see ``_one_sighting_a_back``).
BACKS_MEET = 0.08
BACKS_NEAR = 0.45


@dataclass(frozen=True)
class Thresholds:
    """Decision levels, tuned on the development designs only (kennard-2color; KDE's nicu-white,
    Paris and Tigullio)."""

    accept: float = SURE  # rank x suit x index probability below which a corner names nothing
    projected_accept: float = SURE  # the same at a corner reached along the edges from another
    seen_index: float = 0.5  # index probability above which an unread corner is a card seen
    seen_back: float = 0.5  # back probability above which a corner is compared with the enrolled back
    back_distance: float = 12.0  # mean per-value Lab distance to the nearest enrolled back corner
    settled: float = 0.99  # a read this sure outweighs rival names of one card or one print ...
    rival: float = 0.97  # ... when none of them reaches this
    unsure: float = 0.3  # a corner's best read from this sure up to accept is looked at again ...
    confirm_windows: int = 4  # ... and stands when this many of its 15 windows reach accept
    confirm_new_name_windows: int = 5  # the same for an unsure new name (at the print, at the named size)
    new_name: float = 0.9  # a window at the print or at the named size brings a new name this sure
    other_sizes: float = 0.001  # index probability at a first size that earns the others a read
    both_prints: float = 0.5  # unsure reads from this sure name a card when its two prints agree
    fan_middle: float = 0.8  # two windows between a fan's neighbours name its middle card this sure
    glimpse: float = 0.2  # index probability from which a corner that left no card seen is looked at closer

    def __post_init__(self) -> None:
        for name in ("confirm_windows", "confirm_new_name_windows"):
            if not 1 <= getattr(self, name) <= AROUND_WINDOWS:
                raise ValueError(f"{name} must be 1..{AROUND_WINDOWS}, not {getattr(self, name)}")


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
        # Made once, first: the corner search reads it too (a pixel as one 32-bit word, see
        # ``paper.card_mask``), and both looks sample their index windows from it.
        bgra = sampling_image(frame)
        geometry = find_candidates(bgra, self.deck.aspect, self.deck.rank_box, self.deck.window)
        candidates = geometry.candidates
        if not candidates:
            return []
        corners = corner_arrays([c.corner for c in candidates])
        sizes = [_first_look_sizes(c) for c in candidates]
        windows, owner, heights = windows_of(bgra, candidates, self.deck.window, corners, sizes)
        features = window_features(windows)
        names, probability, kind = self.deck.net.best(features)
        t = self.thresholds
        # Each candidate's rows are consecutive: its surest row (the first of equals) and its most
        # index- and back-like kinds, one array pass each rather than a mask per candidate.
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if len(owner) else owner
        sure = probability.tolist()
        best = [
            max(range(start, end), key=sure.__getitem__)
            for start, end in zip(starts.tolist(), [*starts[1:].tolist(), len(owner)], strict=True)
        ]
        look = FirstLook(
            bgra,
            candidates,
            *corners,
            owner,
            heights,
            ink_maps(features),
            names,
            probability,
            best,
            kind[:, 1],
        )
        for row in self._look_twice(look):
            sure[row] = float(probability[row])
        # Compared in the probabilities' own precision, as a scalar of them is against a threshold.
        accepted = (probability[best] >= t.accept).tolist()
        projected_accepted = (probability[best] >= t.projected_accept).tolist()
        index_seen = np.maximum.reduceat(kind[:, 1], starts).tolist() if len(owner) else []
        back_seen = np.maximum.reduceat(kind[:, 2], starts).tolist() if len(owner) else []
        # In candidate order: a sighting, or a corner that may be a back's with the unread card it
        # is otherwise (if any); the backs are looked for together, their paper in one pass.
        found: list[CardSighting | tuple[Corner, list[float], CardSighting | None]] = []
        glimpsed: list[np.ndarray] = []
        for k, row in enumerate(best):
            i = int(owner[row])
            corner, tried, source = candidates[i].corner, candidates[i].heights, candidates[i].source
            if projected_accepted[k] if source == PROJECTED else accepted[k]:
                found.append(
                    self._named(corner, float(heights[row]), names[row], sure[row], source == PROJECTED)
                )
                continue
            if source == PROJECTED:
                continue  # a corner guessed from another one only counts when it names the card
            unread = None
            # A junction is a guess at a corner: an unread "card" there is mostly another card's edge.
            if source == OUTLINE and index_seen[k] >= t.seen_index:
                quad = card_quad(corner, float(heights[row]), self.deck.aspect)
                unread = CardSighting(None, 0.0, True, quad, votes=[(None, 0.0)])
            if back_seen[k] >= t.seen_back:
                found.append((corner, tried, unread))
            elif unread is not None:
                found.append(unread)
            if index_seen[k] >= t.glimpse:
                glimpsed.append(card_quad(corner, float(heights[row]), self.deck.aspect))
        asked = [f for f in found if not isinstance(f, CardSighting)]
        backs = iter(self._backs(frame, geometry.filled, [(corner, tried) for corner, tried, _ in asked]))
        sightings: list[CardSighting] = []
        for f in found:
            seen = f if isinstance(f, CardSighting) else next(backs) or f[2]
            if seen is not None:
                sightings.append(seen)
        merged = _merge(sightings, t)
        seen = self._fans_middle_cards(bgra, merged) if len(merged) > 1 else merged
        named = _named_count(seen)
        seen = self._closer_look(bgra, seen, _glimpses(glimpsed, seen))
        if _named_count(seen) > named:
            # A card the closer look named is a neighbour the fans lacked: between it and another
            # card a middle card may now be found.
            seen = self._fans_middle_cards(bgra, seen)
        return _one_sighting_a_back(_drop_shadows(seen))

    def _named(
        self, corner: Corner, size: float, name: str, sure: float, projected: bool = False
    ) -> CardSighting:
        """A card named at this corner and size."""
        window = self.deck.window
        return CardSighting(
            name,
            sure,
            True,
            card_quad(corner, size, self.deck.aspect),
            votes=[(name, sure)],
            projected=projected,
            index_point=corner.point
            + (corner.x_axis * window.across + corner.y_axis * window.down) * size / 2,
        )

    def _fans_middle_cards(self, bgra: np.ndarray, merged: list[CardSighting]) -> list[CardSighting]:
        """The sightings, with each fan's middle card read between its neighbours (see ``fans``)
        added; an unread sighting inside a card so named is that card's."""
        found = stretches([s.quad for s in merged])
        if not len(found.sizes):
            return merged
        windows = sample_windows(
            bgra, found.points, found.x_axes, found.y_axes, found.sizes, self.deck.window
        )
        names, probability, _ = self.deck.net.best(window_features(windows))
        named = {s.card for s in merged if s.card is not None}
        middle = middle_cards(found, names, probability, self.thresholds.fan_middle, named)
        if not middle:
            return merged
        added = [
            self._named(
                Corner(found.points[row], found.x_axes[row], found.y_axes[row], blob=-1),
                float(found.sizes[row]),
                name,
                sure,
            )
            for name, (row, sure) in middle.items()
        ]
        return _drop_shadows(merged + added, keep_disputed=True)

    def _closer_look(
        self, bgra: np.ndarray, found: list[CardSighting], glimpsed: list[CardSighting]
    ) -> list[CardSighting]:
        """The sightings, each face-up card seen but not read named where a dense grid of windows
        at its index corners names it (see ``closer``); a glimpsed card joins them only when so named."""
        unread = [s for s in found if s.card is None and s.face_up]
        if not unread and not glimpsed:
            return found  # nearly every frame
        named = [s for s in found if s.card is not None]
        # Not a card printed on a card (``_pictures_unnamed``): those are left unread on purpose.
        smallest = _smallest_card(named)
        unread = [s for s in unread if _height(s) >= smallest]
        glimpsed = [s for s in glimpsed if _height(s) >= smallest]
        if not unread and not glimpsed:
            return found
        # A glimpse's far corner hangs on its size guess: it is looked at only at its own corner.
        corners = [BOTH_CORNERS] * len(unread) + [OWN_CORNER] * len(glimpsed)
        unread += glimpsed
        grid = closer_windows([s.quad for s in unread], corners)
        windows = sample_windows(bgra, grid.points, grid.x_axes, grid.y_axes, grid.sizes, self.deck.window)
        names, probability, _ = self.deck.net.best(window_features(windows))
        reads = closer_names(
            names, probability, self.thresholds.accept, {s.card for s in named if s.card}, grid.counts
        )
        for sighting, read in zip(unread, reads, strict=True):
            if read is not None:
                sighting.card, sighting.confidence = read
                sighting.votes = [*sighting.votes, read]
        return found + [s for s in glimpsed if s.card is not None]

    def _look_twice(self, look: FirstLook) -> list[int]:
        """The second looks, in the order of ``amend``'s cascade; the rows that now name a card.

        Every pass but the look around unsure new names chooses its windows from the first look
        alone, so those windows are sampled and read together; then each pass decides in turn.
        """
        t, window, net = self.thresholds, self.deck.window, self.deck.net
        around_unsure = around_unsure_reads(look, t.unsure, t.accept)
        around_leaned = around_unsure_reads_leaned(look, t.unsure, t.accept)
        at_print = at_the_print(look, t.accept, window)
        other_sizes = at_other_sizes(look, t.other_sizes, t.accept)
        named_size = at_named_size(look, t.accept, at_print, other_sizes)
        read_second_looks(
            look, [around_unsure, around_leaned, at_print, other_sizes, named_size], net, window, t.accept
        )
        confirmed_rows = confirm_unsure_reads(look, around_unsure, t.accept, t.confirm_windows)
        confirmed_rows += confirm_leaned_reads(
            look, around_leaned, t.accept, t.confirm_windows, confirmed_rows
        )
        other_size_rows = take_other_size_reads(look, other_sizes, t.accept)
        new_name_rows = take_new_names(look, at_print, t.new_name, t.accept)
        new_name_rows += take_new_names(look, named_size, t.new_name, t.accept, contrary=t.unsure)
        around_new_names = around_unsure_new_names(
            look, [at_print, named_size], t.unsure, t.new_name, t.accept
        )
        read_second_looks(look, [around_new_names], net, window, t.accept)
        new_name_rows += confirm_new_names(look, around_new_names, t.accept, t.confirm_new_name_windows)
        both_print_rows = name_at_both_prints(look, self.deck.aspect, t.both_prints, t.accept)
        return [*confirmed_rows, *other_size_rows, *new_name_rows, *both_print_rows]

    def _backs(
        self, frame: np.ndarray, filled: np.ndarray, corners: list[tuple[Corner, list[float]]]
    ) -> list[CardSighting | None]:
        """A face-down card at each corner (with its card heights), or None: the largest card on
        paper whose corner looks like the enrolled back's (either edge may be the long one). How
        much of each size lies on paper is measured for all corners in one pass."""
        aspect = self.deck.aspect
        choices = []
        for _, heights in corners:
            options = [(h, False) for h in heights] + [(h * aspect, True) for h in heights]
            choices.append(
                sorted(
                    ((h, lng) for h, lng in options if MIN_CARD_HEIGHT <= h <= MAX_CARD_HEIGHT), reverse=True
                )
            )
        quads = [
            card_quad(corner, h, aspect, lng)
            for (corner, _), options in zip(corners, choices, strict=True)
            for h, lng in options
        ]
        on_paper = (paper_coverages(filled, np.array(quads)) >= MIN_COVERAGE).tolist() if quads else []
        found: list[CardSighting | None] = []
        end = 0
        for (corner, _), options in zip(corners, choices, strict=True):
            start, end = end, end + len(options)
            full, long_across = next(
                (option for option, ok in zip(options, on_paper[start:end], strict=True) if ok), (None, False)
            )
            found.append(None if full is None else self._back_of_size(frame, corner, full, long_across))
        return found

    def _back_of_size(
        self, frame: np.ndarray, corner: Corner, full: float, long_across: bool
    ) -> CardSighting | None:
        """A face-down card of this size at this corner, or None when its corner is unlike the back's."""
        feature = back_feature(frame, corner.point, corner.x_axis, corner.y_axis, full)
        distance = float(np.abs(self.deck.back_features - feature).mean(axis=1).min())
        if distance > self.thresholds.back_distance:
            return None
        return CardSighting(
            None,
            float(max(0.0, 1.0 - distance / (2 * self.thresholds.back_distance))),
            False,
            card_quad(corner, full, self.deck.aspect, long_across),
            votes=[("back", 1.0)],
        )


_FIRST_SIZE_FIRST = frozenset({JUNCTION, TRACED})  # corners whose later size guesses seldom name a card


def _first_look_sizes(candidate: Candidate) -> list[float]:
    """The card sizes a candidate is read at first: a junction or a traced corner at its first
    guess only (its others where that window shows an index at all, ``amend.at_other_sizes``);
    an outline corner, whose second guess names cards often, at both."""
    return candidate.heights[:1] if candidate.source in _FIRST_SIZE_FIRST else candidate.heights


def _merge(sightings: list[CardSighting], t: Thresholds) -> list[CardSighting]:
    """Corners of the same card grow into overlapping quads: one sighting per card.

    A card is named when its confident corners agree, or when one read is sure enough to
    outweigh the others (see ``_settled``); a back corner alone makes it face down; anything
    else is a card seen but not read.
    """
    _one_print_one_read(sightings, t)
    quads = np.array([s.quad for s in sightings], float).reshape(-1, 4, 2)
    sizes = _lengths(quads[:, 2] - quads[:, 0])  # each quad's diagonal
    centres = (quads[:, 0] + quads[:, 1] + quads[:, 2] + quads[:, 3]) / 4.0  # as ``centre`` sums them
    count = len(sightings)
    between_centres = _lengths((centres[:, None] - centres[None, :]).reshape(-1, 2)).reshape(count, count)
    pairs = _Pairs.of(sightings, quads, sizes)
    earlier = np.triu(np.ones(pairs.two_prints.shape, bool), 1)  # each pair once, as listed
    two_cards = pairs.two_prints & earlier
    pair_reads = two_cards.any(axis=0) | two_cards.any(axis=1)
    paired_codes = {sightings[k].card for k in np.flatnonzero(pair_reads).tolist()}
    both_prints = _read_at_both_prints(sightings, pairs.half_round & pairs.same_name & earlier, centres)
    # A pair's index reads found the two cards first, so each other read of that name (a far
    # corner, turned half round) joins the card it lies on, not the surest.
    order = sorted(
        range(count),
        key=lambda k: (sightings[k].card is None, not pair_reads[k], -sightings[k].confidence),
    )
    groups: list[list[int]] = []
    leads: list[int] = []  # each group's first sighting, whose centre every later one is measured from
    for k in order:
        s, size, centre = sightings[k], float(sizes[k]), centres[k]
        apart = between_centres[leads, k].tolist()
        paired = s.card in paired_codes
        fits = (
            n
            for n, (g, lead, distance) in enumerate(zip(groups, leads, apart, strict=True))
            if _same_card(sightings[lead], s, size, centres[lead], centre, distance)
            and not (paired and pairs.two_prints[g, k].any())
            and not (both_prints[k] and pairs.far_print[lead, k])
            and not (both_prints[lead] and pairs.far_print[k, lead])
        )
        n = min(fits, key=apart.__getitem__, default=None) if paired else next(fits, None)
        if n is None:
            groups.append([k])
            leads.append(k)
        else:
            groups[n].append(k)
    merged = [_one_card([sightings[k] for k in group], t) for group in groups]
    return _pictures_unnamed(_drop_shadows(merged, keep_disputed=True))


def _one_card(group: list[CardSighting], t: Thresholds) -> CardSighting:
    """The card a group of sightings sees: named, face down, or seen but not read."""
    lead = group[0]
    named = [s for s in group if s.card is not None]
    votes = [v for s in group for v in s.votes]
    if named and _settled(named[0], named[1:], t):
        return CardSighting(
            lead.card, lead.confidence, True, lead.quad, votes=votes, projected=lead.projected
        )
    backs = [s for s in group if not s.face_up]
    if not named and backs and len(backs) == len(group):
        return CardSighting(None, backs[0].confidence, False, backs[0].quad, votes=votes)
    return CardSighting(None, 0.0, True, lead.quad, votes=votes)


def _settled(best: CardSighting, others: list[CardSighting], t: Thresholds) -> bool:
    """Whether the surest read stands against the other reads of the same card or print.

    Reads that agree always stand. A different name cancels the card, unless the surest read is
    beyond doubt and no rival is near it: then the rival is the misread (most often a neighbour
    in a fan, read at a corner a little off) and cancelling would only lose a card read well.
    """
    rivals = [s for s in others if s.card != best.card]
    return not rivals or (best.confidence >= t.settled and all(s.confidence <= t.rival for s in rivals))


def _one_print_one_read(sightings: list[CardSighting], t: Thresholds) -> None:
    """Reads of the same printed index must agree (or be settled), or none of them stands.

    The same print is read from different candidates at the same corner, at different card-size
    guesses (their index windows then overlap), or at the same corner point turned the same way.
    All pairs are compared at once: a fan gives dozens of reads.
    """
    named = [s for s in sightings if s.card is not None and s.index_point is not None]
    if len(named) < 2:
        return
    index = np.array([s.index_point for s in named], float)
    quads = np.array([s.quad for s in named], float)  # the same differences, all quads at once
    corner = quads[:, 0]
    across = quads[:, 1] - corner
    across /= np.maximum(np.hypot(across[:, 0], across[:, 1]), 1e-9)[:, None]
    down = quads[:, 3] - corner
    size = np.hypot(down[:, 0], down[:, 1])[:, None]
    sure = np.array([s.confidence for s in named], float)
    names = np.array([s.card for s in named])
    same_print = (distances(index, index) < 0.06 * size) | (
        (distances(corner, corner) < 0.04 * size) & (np.einsum("ik,jk->ij", across, across) > 0.95)
    )
    rivals = same_print & (names[:, None] != names[None, :])
    strongest_rival = np.where(rivals, sure[None, :], -1.0).max(axis=1)
    settled = (sure >= t.settled) & (strongest_rival <= t.rival)
    for k in np.flatnonzero(rivals.any(axis=1) & ~settled).tolist():
        named[k].card, named[k].confidence = None, 0.0


def _same_card(
    a: CardSighting, b: CardSighting, size: float, a_centre: np.ndarray, b_centre: np.ndarray, distance: float
) -> bool:
    """Two corners see one card when their quads share a centre, or name one card and overlap
    (``distance``: between the centres given).

    Unread and face-down sightings merge only when their centres nearly agree: two backs in a fan
    lie a third of a card apart and must stay two cards.
    """
    if a.face_up != b.face_up:
        return False  # a back next to a face is a card under a card, not one card
    if distance < 0.1 * size:
        return True
    if a.card is not None and a.card == b.card:
        return _inside(a.quad, b_centre) or _inside(b.quad, a_centre)
    return a.card is None and b.card is None and distance < 0.12 * size


@dataclass(frozen=True)
class _Pairs:
    """How every two sightings of a frame lie to each other, all measured at once: merging asks
    about each pair many times, and a fan gives dozens of sightings."""

    same_name: np.ndarray  # [a, b]: both read, as the same card
    half_round: np.ndarray  # [a, b]: the tops of the quads point (within SAME_WAY) opposite ways
    two_prints: np.ndarray  # [a, b]: see below
    far_print: np.ndarray  # [a, b]: see below

    @classmethod
    def of(cls, sightings: list[CardSighting], quads: np.ndarray, sizes: np.ndarray) -> _Pairs:
        """``two_prints[a, b]``: reads of one name from index prints turned the same way and further
        apart than PRINTS_APART of ``b``'s quad diagonal (``sizes``). One card's two prints are
        turned half round from each other, and reads of one print lie together: these are two cards
        of one code (a pair in a multi-deck shoe or a Pairs & Up deck), which a fan overlaps like
        one card.

        ``far_print[a, b]``: ``a`` names another card than ``b`` and is turned half round from it.
        Where ``b`` is read at both prints of its own card (``_read_at_both_prints``) the two stay
        apart: cards stacked a fifth of a card apart put the upper card's far-corner read within a
        tenth of a diagonal of the lower card's centre, which alone would merge them and cancel
        both names, whichever read is the surer and leads. A lone read there may be a misread of
        the lower card's own far print, and still merges.
        """
        names = np.array([s.card for s in sightings], object)
        named = np.array([s.card is not None for s in sightings], bool)
        same_name = named[:, None] & named[None, :] & (names[:, None] == names[None, :])
        tops = quads[:, 1] - quads[:, 0]
        lengths = np.hypot(tops[:, 0], tops[:, 1])
        turn = np.einsum("ik,jk->ij", tops, tops)
        reach = SAME_WAY * (lengths[:, None] * lengths[None, :])
        has_index = np.array([s.index_point is not None for s in sightings], bool)
        index = np.array(
            [(0.0, 0.0) if s.index_point is None else s.index_point for s in sightings], float
        ).reshape(-1, 2)
        apart = distances(index, index)
        half_round = turn <= -reach
        two_prints = (
            same_name
            & has_index[:, None]
            & has_index[None, :]
            & (turn >= reach)
            & (apart > PRINTS_APART * sizes[None, :])
        )
        far_print = named[:, None] & ~same_name & half_round
        return cls(same_name, half_round, two_prints, far_print)


def _read_at_both_prints(
    sightings: list[CardSighting], half_round_same_name: np.ndarray, centres: np.ndarray
) -> np.ndarray:
    """Which reads name a card at both its prints: one name, turned half round from each other
    (``half_round_same_name``, each pair once), one lying on the other's card."""
    both = np.zeros(len(sightings), bool)
    for a, b in np.argwhere(half_round_same_name).tolist():
        if _inside(sightings[a].quad, centres[b]) or _inside(sightings[b].quad, centres[a]):
            both[[a, b]] = True
    return both


def _lengths(vectors: np.ndarray) -> np.ndarray:
    """``np.linalg.norm`` of each (x, y) row, to the last bit: the same dot products, all at once
    (a sum of squares written out can round differently from the dot product it takes)."""
    return np.sqrt((vectors[:, None, :] @ vectors[:, :, None]).ravel())


def _inside(quad: np.ndarray, point: np.ndarray) -> bool:
    return cv2.pointPolygonTest(quad.astype(np.float32), (float(point[0]), float(point[1])), False) > 0


def _pictures_unnamed(sightings: list[CardSighting]) -> list[CardSighting]:
    """A name read much smaller than the frame's named cards are (their median, of three or more)
    is left unread.

    A deck's cards are one size, and a tilted camera changes that far less than SMALLEST_CARD
    allows; such a read is a card printed on a card, as on a back that pictures a fan of aces.
    """
    named = [s for s in sightings if s.card is not None]
    smallest = _smallest_card(named)
    for s in named:
        if _height(s) < smallest:
            s.card, s.confidence = None, 0.0
    return sightings


def _smallest_card(named: list[CardSighting]) -> float:
    """The least height a card named among ``named`` may have (see ``_pictures_unnamed``)."""
    return SMALLEST_CARD * _named_height(named)


def _named_height(named: list[CardSighting]) -> float:
    """The height of a card of the frame: the median of the named cards', or 0 with fewer than
    three (too few to hold another card against)."""
    if len(named) < 3:
        return 0.0
    return float(np.median([_height(s) for s in named]))


def _height(s: CardSighting) -> float:
    return float(np.hypot(*(s.quad[3] - s.quad[0])))


def _named_count(sightings: list[CardSighting]) -> int:
    return sum(s.card is not None for s in sightings)


def _glimpses(quads: list[np.ndarray], seen: list[CardSighting]) -> list[CardSighting]:
    """Unread sightings for the corners that showed some index but no card (``Thresholds.glimpse``),
    one a card, where no card seen already has its centre and no named or face-down card covers
    it: the closer look does not merge, so a glimpse on a named card (its far print, misread) would
    stand beside it as a second card."""
    kept: list[CardSighting] = []
    known = [k.quad for k in seen if k.card is not None or not k.face_up]
    centres = [s.centre for s in seen]
    sizes = [float(np.hypot(*(s.quad[2] - s.quad[0]))) for s in seen]
    for quad in quads:
        glimpse = CardSighting(None, 0.0, True, quad, votes=[(None, 0.0)])
        centre, size = glimpse.centre, float(np.hypot(*(quad[2] - quad[0])))
        if any(
            float(np.hypot(*(centre - c))) < 0.1 * max(size, other)
            for c, other in zip(centres, sizes, strict=True)
        ) or any(_inside(q, centre) for q in known):
            continue
        kept.append(glimpse)
        centres.append(centre)
        sizes.append(size)
    return kept


def _one_sighting_a_back(sightings: list[CardSighting]) -> list[CardSighting]:
    """Each back once: of two face-down sightings whose outlines have a corner in common (within
    BACKS_MEET of a diagonal) and whose centres lie within BACKS_NEAR of it, one is dropped.

    A back's corners each guess its size and which edge is the long one, and two corners that
    guess differently outline one back twice: on the development designs some two in three of
    the frames' false detections. The outline kept is the one whose long side is nearest the
    named cards' height (a deck's cards are one size; one guessed with its long edge across is
    some 1.4 times too long), else the surer. Two backs in a fan lie a third of a card apart and
    side by side a card's width apart, so neither is dropped. Done last: until then the other
    outline may line up with a fan's cards, and the fans' middle cards are found between such
    neighbours.
    """
    card = _named_height([s for s in sightings if s.card is not None])

    def misfit(s: CardSighting) -> float:
        """How far the outline's long side is from the named cards' height, as a ratio."""
        quad = np.asarray(s.quad, float)
        long_side = max(np.hypot(*(quad[1] - quad[0])), np.hypot(*(quad[3] - quad[0])))
        return abs(float(np.log(long_side / card))) if card else 0.0

    backs = sorted((s for s in sightings if not s.face_up), key=lambda s: (misfit(s), -s.confidence))
    kept: list[CardSighting] = []
    again: set[int] = set()
    for back in backs:
        quad = np.asarray(back.quad, float)
        size = float(np.hypot(*(quad[2] - quad[0])))
        if any(_outlined_again(np.asarray(k.quad, float), quad, size) for k in kept):
            again.add(id(back))
        else:
            kept.append(back)
    return [s for s in sightings if id(s) not in again]


def _outlined_again(kept: np.ndarray, other: np.ndarray, size: float) -> bool:
    """Whether ``other`` outlines the back ``kept`` outlines (see ``_one_sighting_a_back``)."""
    centres = np.hypot(*(kept.mean(axis=0) - other.mean(axis=0)))
    corners = kept[:, None, :] - other[None, :, :]
    meet = np.hypot(corners[..., 0], corners[..., 1]).min()
    return bool(centres < BACKS_NEAR * size and meet < BACKS_MEET * size)


def _drop_shadows(sightings: list[CardSighting], keep_disputed: bool = False) -> list[CardSighting]:
    """An unread corner inside a card that was read or seen face down is that card's other corner.

    With ``keep_disputed``, an unread card whose reads named cards that cancelled each other stays,
    for the closer look: a fan's upper card read sure at its far print can merge with the card
    below it and cancel both names, and the closer look at it may name it after all.
    """
    known = [k.quad.astype(np.float32) for k in sightings if k.card is not None or not k.face_up]
    kept = []
    for s in sightings:
        disputed = keep_disputed and any(name is not None for name, _ in s.votes)
        if s.card is None and s.face_up and not disputed:
            x, y = (float(v) for v in s.centre)
            if any(cv2.pointPolygonTest(quad, (x, y), False) > 0 for quad in known):
                continue
        kept.append(s)
    return kept
