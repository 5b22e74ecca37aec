"""Card designs of our own, drawn as SVG from a seed: the variety casino decks show in the corner.

Each seed picks a font for the index, the index's size and placement, two- or four-colour suits,
a tinted card stock, a court style, an ace and a back; ``card_svgs`` gives the 53 SVG texts
(``<rank><suit>`` and ``back``), which ``artwork`` renders into the ``<rank><suit>.png`` folder
layout that enrollment reads. The pips and courts are plain, as only the corner index is read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dealerassist.core.cards import FULL_DECK

WIDTH, HEIGHT = 250.0, 350.0  # poker size, 2.5 x 3.5
RANK_FONTS = (
    *("DejaVu Sans", "DejaVu Sans Condensed", "DejaVu Serif"),
    *("Liberation Sans", "Liberation Sans Narrow", "Liberation Serif", "FreeSans", "FreeSerif"),
    *("Nimbus Sans", "Nimbus Sans Narrow", "Nimbus Roman", "C059", "P052", "URW Bookman", "URW Gothic"),
)
SUIT_FONTS = ("DejaVu Sans", "FreeSerif", "FreeSans", "DejaVu Serif")
SUIT_GLYPHS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
BLACKS = ("#000000", "#1c1c1c", "#14143c", "#2a2a2a")
REDS = ("#cc0000", "#d8232a", "#b0102e", "#e0301e")
FOUR_COLOURS = (("#0050c8", "#00873c"), ("#e87800", "#00873c"), ("#0050c8", "#2e7d32"))
STOCKS = ("#ffffff", "#fffdf4", "#fbf6e6", "#f4f6fa", "#fff6f4", "#f2f2ec")
BACKS = ("#1d3f8f", "#a01c24", "#1d6b3a", "#5a2d82", "#202020", "#8a5a00")
COURT_STYLES = ("frame", "band", "figure")
# The pips of 2-10 in the pip area (0 to 1 across and down): the heights of the pairs at the sides
# and of the pips in the middle column. Those below the middle are drawn upside down.
PIP_ROWS = {
    2: ((), (0, 1)),
    3: ((), (0, 0.5, 1)),
    4: ((0, 1), ()),
    5: ((0, 1), (0.5,)),
    6: ((0, 0.5, 1), ()),
    7: ((0, 0.5, 1), (0.25,)),
    8: ((0, 0.5, 1), (0.25, 0.75)),
    9: ((0, 1 / 3, 2 / 3, 1), (0.5,)),
    10: ((0, 1 / 3, 2 / 3, 1), (1 / 6, 5 / 6)),
}


@dataclass(frozen=True)
class Style:
    """One generated design: everything that differs from one seed's deck to the next."""

    rank_font: str
    bold: bool
    suit_font: str
    rank_height: float  # cap height of the rank, in card heights
    suit_height: float  # of the suit glyph below it, in card heights
    index_x: float  # middle of the index from the left edge, in card heights
    index_y: float  # top of the rank from the top edge, in card heights
    four_corners: bool  # indices in all four corners, as some jumbo-index decks print
    colours: dict[str, str]  # by suit letter
    stock: str
    court: str
    back: str
    back_pattern: str


def style(seed: int) -> Style:
    """The design of ``seed``: the same seed always gives the same deck."""
    rng = np.random.default_rng(seed)
    black, red = str(rng.choice(BLACKS)), str(rng.choice(REDS))
    colours = {"S": black, "H": red, "D": red, "C": black}
    if rng.random() < 0.3:
        diamond, club = FOUR_COLOURS[int(rng.integers(len(FOUR_COLOURS)))]
        colours.update(D=diamond, C=club)
    rank_height = float(rng.uniform(0.055, 0.1))
    return Style(
        rank_font=str(rng.choice(RANK_FONTS)),
        bold=bool(rng.random() < 0.5),
        suit_font=str(rng.choice(SUIT_FONTS)),
        rank_height=rank_height,
        suit_height=rank_height * float(rng.uniform(0.6, 0.95)),
        index_x=max(float(rng.uniform(0.045, 0.075)), 0.75 * rank_height + 0.012),  # a 10 clear of the edge
        index_y=float(rng.uniform(0.025, 0.06)),
        four_corners=bool(rng.random() < 0.15),
        colours=colours,
        stock=str(rng.choice(STOCKS)),
        court=str(rng.choice(COURT_STYLES)),
        back=str(rng.choice(BACKS)),
        back_pattern=str(rng.choice(("lines", "checks", "dots"))),
    )


def card_svgs(seed: int) -> dict[str, str]:
    """The 53 SVG texts of the design of ``seed``, keyed by card code and ``back``."""
    s = style(seed)
    svgs = {card.code: _svg(s, _face(s, card.code)) for card in FULL_DECK}
    svgs["back"] = _svg(s, _back(s))
    return svgs


def _svg(s: Style, body: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH:g}" height="{HEIGHT:g}" '
        f'viewBox="0 0 {WIDTH:g} {HEIGHT:g}">'
        f'<rect x="1" y="1" width="{WIDTH - 2:g}" height="{HEIGHT - 2:g}" rx="{0.045 * HEIGHT:g}" '
        f'fill="{s.stock}" stroke="#9a9a9a" stroke-width="1"/>{body}</svg>'
    )


def _glyph(s: Style, text: str, x: float, y: float, size: float, colour: str, font: str, upside: bool) -> str:
    """``text`` centred on x with its cap height ``size`` from ``y`` down (turned about its middle
    when ``upside``); a font's cap height is some 0.72 of its size."""
    weight = "bold" if s.bold and font == s.rank_font else "normal"
    turn = f' transform="rotate(180 {x:.2f} {y + size / 2:.2f})"' if upside else ""
    return (
        f'<text x="{x:.2f}" y="{y + size:.2f}" font-family="{font}" font-weight="{weight}" '
        f'font-size="{size / 0.72:.2f}" fill="{colour}" text-anchor="middle"{turn}>{text}</text>'
    )


def _index(s: Style, rank: str, suit: str) -> str:
    """The rank above the suit in the top-left corner, turned in the bottom-right (and in the
    other two corners too on a four-corner deck)."""
    colour = s.colours[suit]
    rank_px, suit_px, gap = s.rank_height * HEIGHT, s.suit_height * HEIGHT, 0.015 * HEIGHT
    x, y = s.index_x * HEIGHT, s.index_y * HEIGHT
    bottom = HEIGHT - y - rank_px - suit_px - gap  # the top of a turned index
    corners = [(x, y, False), (WIDTH - x, bottom, True)]
    if s.four_corners:
        corners += [(WIDTH - x, y, False), (x, bottom, True)]
    parts = []
    for cx, top, upside in corners:
        rank_top, suit_top = (top + suit_px + gap, top) if upside else (top, top + rank_px + gap)
        parts.append(_glyph(s, rank, cx, rank_top, rank_px, colour, s.rank_font, upside))
        parts.append(_glyph(s, SUIT_GLYPHS[suit], cx, suit_top, suit_px, colour, s.suit_font, upside))
    return "".join(parts)


def _face(s: Style, code: str) -> str:
    rank, suit = code[0], code[1]
    printed = "10" if rank == "T" else rank
    colour, glyph = s.colours[suit], SUIT_GLYPHS[suit]
    body = _index(s, printed, suit)
    if rank == "A":
        return body + _glyph(s, glyph, WIDTH / 2, HEIGHT * 0.38, HEIGHT * 0.24, colour, s.suit_font, False)
    if rank in "JQK":
        return body + _court(s, printed, glyph, colour)
    pip = HEIGHT * 0.085
    x0, x1, y0, y1 = WIDTH * 0.3, WIDTH * 0.7, HEIGHT * 0.17, HEIGHT * 0.83 - pip
    sides, middle = PIP_ROWS[int(printed)]
    pips = [(px, py) for py in sides for px in (0, 1)] + [(0.5, py) for py in middle]
    for px, py in sorted(pips, key=lambda pip: (pip[1], pip[0])):  # row by row, left to right
        body += _glyph(s, glyph, x0 + px * (x1 - x0), y0 + py * (y1 - y0), pip, colour, s.suit_font, py > 0.5)
    return body


def _court(s: Style, letter: str, glyph: str, colour: str) -> str:
    """A plain court: a frame, a tinted band or a simple figure, with a big letter, mirrored."""
    x0, y0, x1, y1 = WIDTH * 0.24, HEIGHT * 0.14, WIDTH * 0.76, HEIGHT * 0.86
    box = f'x="{x0:g}" y="{y0:g}" width="{x1 - x0:g}" height="{y1 - y0:g}"'
    line = f'stroke="{colour}" stroke-width="3"'
    if s.court == "frame":
        art = f'<rect {box} fill="none" {line}/>'
    elif s.court == "band":
        art = f'<rect {box} fill="{colour}" fill-opacity="0.15"/>'
    else:
        art = f'<line x1="{x0:g}" y1="{HEIGHT / 2:g}" x2="{x1:g}" y2="{HEIGHT / 2:g}" {line}/>' + "".join(
            f'<circle cx="{WIDTH / 2:g}" cy="{cy:g}" r="{HEIGHT * 0.06:g}" fill="none" {line}/>'
            for cy in (HEIGHT * 0.27, HEIGHT * 0.73)
        )
    size = HEIGHT * 0.14
    for top, upside in ((HEIGHT * 0.2, False), (HEIGHT * 0.8 - size, True)):
        art += _glyph(s, letter, WIDTH * 0.42, top, size, colour, s.rank_font, upside)
        art += _glyph(s, glyph, WIDTH * 0.6, top + size * 0.3, size * 0.6, colour, s.suit_font, upside)
    return art


def _back(s: Style) -> str:
    m = HEIGHT * 0.05
    shapes = {
        "lines": '<path d="M0,8 L8,0" stroke="#ffffff" stroke-width="1.5"/>',
        "checks": '<rect width="4" height="4" fill="#ffffff" fill-opacity="0.5"/>',
        "dots": '<circle cx="4" cy="4" r="1.6" fill="#ffffff" fill-opacity="0.7"/>',
    }
    return (
        '<defs><pattern id="p" width="8" height="8" patternUnits="userSpaceOnUse">'
        f'<rect width="8" height="8" fill="{s.back}"/>{shapes[s.back_pattern]}</pattern></defs>'
        f'<rect x="{m:g}" y="{m:g}" width="{WIDTH - 2 * m:g}" height="{HEIGHT - 2 * m:g}" '
        f'rx="{m / 2:g}" fill="url(#p)"/>'
    )
