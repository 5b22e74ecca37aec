"""One sighting per card: a frame's corners grow into overlapping quads, merged here; then the
clean-up (an unread corner inside a known card is that card's, each back is kept once)."""

from __future__ import annotations

import cv2
import numpy as np

from dealerassist.vision.candidates import distances
from dealerassist.vision.second_look import SAME_WAY
from dealerassist.vision.sighting import CardSighting
from dealerassist.vision.thresholds import Thresholds

PRINTS_APART = 0.1  # quad diagonals between one name's prints turned alike that make two cards
SMALLEST_CARD = 0.6  # a name on a quad under this share of the named cards' median height is a picture
BOTH_PRINTS_NEAR = 0.15  # quad diagonals between the centres of one card's reads at its two prints
BACKS_MEET = 0.08  # two back outlines with a corner this near (in diagonals) ...
BACKS_NEAR = 0.45  # ... and centres this near outline one back twice


def merge_sightings(sightings: list[CardSighting], t: Thresholds) -> list[CardSighting]:
    """One sighting per card: named when its reads agree or one outweighs the rest (``_settled``),
    face down when only backs see it, else a card seen but not read."""
    _one_print_one_read(sightings, t)
    quads = np.array([s.quad for s in sightings], float).reshape(-1, 4, 2)
    sizes = _lengths(quads[:, 2] - quads[:, 0])  # each quad's diagonal
    centres = (quads[:, 0] + quads[:, 1] + quads[:, 2] + quads[:, 3]) / 4.0  # as ``centre`` sums them
    count = len(sightings)
    between_centres = _lengths((centres[:, None] - centres[None, :]).reshape(-1, 2)).reshape(count, count)
    two_prints, half_round, far_print = _pairs(sightings, quads, sizes)
    earlier = np.triu(np.ones(two_prints.shape, bool), 1)  # each pair once, as listed
    two_cards = two_prints & earlier
    pair_reads = two_cards.any(axis=0) | two_cards.any(axis=1)
    paired_codes = {sightings[k].card for k in np.flatnonzero(pair_reads).tolist()}
    # Reads of one name turned half round that outline one card are its two prints. Outlining, not
    # merely overlapping: in a stack the lower card's far print lies on the upper card, and a misread
    # of it could pass for the upper card's own far print.
    one_card = between_centres < BOTH_PRINTS_NEAR * np.minimum.outer(sizes, sizes)
    at_both = half_round & earlier & one_card
    both_prints = at_both.any(axis=0) | at_both.any(axis=1)
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
            and not (paired and two_prints[g, k].any())
            and not (both_prints[k] and far_print[lead, k])
            and not (both_prints[lead] and far_print[k, lead])
        )
        n = min(fits, key=apart.__getitem__, default=None) if paired else next(fits, None)
        if n is None:
            groups.append([k])
            leads.append(k)
        else:
            groups[n].append(k)
    merged = [_one_card([sightings[k] for k in group], t) for group in groups]
    return _pictures_unnamed(drop_shadows(merged, keep_disputed=True))


def _one_card(group: list[CardSighting], t: Thresholds) -> CardSighting:
    """The card a group of sightings sees: named, face down, or seen but not read."""
    lead = group[0]
    named = [s for s in group if s.card is not None]
    votes = [v for s in group for v in s.votes]
    if named and _settled(named[0], named[1:], t):
        return CardSighting(lead.card, lead.confidence, True, lead.quad, votes=votes)
    backs = [s for s in group if not s.face_up]
    if not named and backs and len(backs) == len(group):
        return CardSighting(None, backs[0].confidence, False, backs[0].quad, votes=votes)
    return CardSighting(None, 0.0, True, lead.quad, votes=votes)


def _settled(best: CardSighting, others: list[CardSighting], t: Thresholds) -> bool:
    """Whether the surest read stands against the other reads of one card or print: a different
    name cancels it unless it is beyond doubt and no rival comes near (then the rival is the
    misread, mostly a fan neighbour read at a corner a little off)."""
    rivals = [s for s in others if s.card != best.card]
    return not rivals or (best.confidence >= t.settled and all(s.confidence <= t.rival for s in rivals))


def _one_print_one_read(sightings: list[CardSighting], t: Thresholds) -> None:
    """Reads of one printed index (overlapping index windows, or one corner point turned alike)
    must agree or be settled, or none of them stands."""
    named = [s for s in sightings if s.card is not None and s.index_point is not None]
    if len(named) < 2:
        return
    index = np.array([s.index_point for s in named], float)
    quads = np.array([s.quad for s in named], float)
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
    """Two corners see one card when their quads share a centre (``distance`` apart), or name one
    card and overlap. Unread and face-down sightings merge only when their centres nearly agree:
    two backs in a fan lie a third of a card apart."""
    if a.face_up != b.face_up:
        return False  # a back next to a face is a card under a card, not one card
    if distance < 0.1 * size:
        return True
    if a.card is not None and a.card == b.card:
        return _inside(a.quad, b_centre) or _inside(b.quad, a_centre)
    return a.card is None and b.card is None and distance < 0.12 * size


def _pairs(
    sightings: list[CardSighting], quads: np.ndarray, sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How every two sightings ``[a, b]`` of a frame lie to each other:

    - ``two_prints``: one name read at prints turned alike, more than PRINTS_APART apart: two cards
      of one code (from a multi-deck shoe), which a fan overlaps like one card;
    - ``half_round``: reads of one name whose quads' tops point (within SAME_WAY) opposite ways;
    - ``far_print``: ``a`` names another card than ``b``, turned half round from it. Where ``b`` is
      read at both its card's prints they stay apart: in a stack the upper card's far-print read
      lies near the lower card's centre, and merging would cancel both names.
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
    return two_prints, same_name & half_round, named[:, None] & ~same_name & half_round


def _lengths(vectors: np.ndarray) -> np.ndarray:
    """``np.linalg.norm`` of each (x, y) row to the last bit: the same dot products (a sum of
    squares written out can round differently)."""
    return np.sqrt((vectors[:, None, :] @ vectors[:, :, None]).ravel())


def _inside(quad: np.ndarray, point: np.ndarray) -> bool:
    return cv2.pointPolygonTest(quad.astype(np.float32), (float(point[0]), float(point[1])), False) > 0


def _pictures_unnamed(sightings: list[CardSighting]) -> list[CardSighting]:
    """A name read much smaller than the frame's named cards is left unread: a deck's cards are one
    size, so it is a card printed on a card (a back picturing a fan of aces)."""
    named = [s for s in sightings if s.card is not None]
    smallest = smallest_card(named)
    for s in named:
        if card_height(s) < smallest:
            s.card, s.confidence = None, 0.0
    return sightings


def smallest_card(named: list[CardSighting]) -> float:
    """The least height a card named among ``named`` may have (see ``_pictures_unnamed``)."""
    return SMALLEST_CARD * named_height(named)


def named_height(named: list[CardSighting]) -> float:
    """The height of a card of the frame: the median of the named cards', or 0 with fewer than
    three (too few to hold another card against)."""
    if len(named) < 3:
        return 0.0
    return float(np.median([card_height(s) for s in named]))


def card_height(s: CardSighting) -> float:
    return float(np.hypot(*(s.quad[3] - s.quad[0])))


def one_sighting_a_back(sightings: list[CardSighting]) -> list[CardSighting]:
    """Each back once: two corners of one back that guess its long edge differently outline it
    twice. The outline whose long side is nearest the named cards' height is kept, else the surer.
    Done last: until then the other outline may line up with a fan's cards."""
    card = named_height([s for s in sightings if s.card is not None])

    def misfit(s: CardSighting) -> float:
        """How far the outline's long side is from the named cards' height, as a ratio."""
        quad = np.asarray(s.quad, float)
        long_side = max(np.hypot(*(quad[1] - quad[0])), np.hypot(*(quad[3] - quad[0])))
        return abs(float(np.log(long_side / card))) if card else 0.0

    backs = sorted((s for s in sightings if not s.face_up), key=lambda s: (misfit(s), -s.confidence))
    kept: list[CardSighting] = []
    for back in backs:
        quad = np.asarray(back.quad, float)
        size = float(np.hypot(*(quad[2] - quad[0])))
        if not any(_outlined_again(np.asarray(k.quad, float), quad, size) for k in kept):
            kept.append(back)
    return [s for s in sightings if s.face_up or any(s is k for k in kept)]


def _outlined_again(kept: np.ndarray, other: np.ndarray, size: float) -> bool:
    """Whether ``other`` outlines ``kept``'s back again: two backs in a fan or side by side lie
    further apart and meet at no corner."""
    centres = np.hypot(*(kept.mean(axis=0) - other.mean(axis=0)))
    corners = kept[:, None, :] - other[None, :, :]
    meet = np.hypot(corners[..., 0], corners[..., 1]).min()
    return bool(centres < BACKS_NEAR * size and meet < BACKS_MEET * size)


def drop_shadows(sightings: list[CardSighting], keep_disputed: bool = False) -> list[CardSighting]:
    """An unread corner inside a card read or seen face down is that card's other corner. With
    ``keep_disputed``, an unread card whose names cancelled each other stays for the closer look."""
    known = [k.quad for k in sightings if k.card is not None or not k.face_up]

    def shadow(s: CardSighting) -> bool:
        disputed = keep_disputed and any(name is not None for name, _ in s.votes)
        return s.card is None and s.face_up and not disputed and any(_inside(q, s.centre) for q in known)

    return [s for s in sightings if not shadow(s)]
