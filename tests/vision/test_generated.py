"""Generated card designs: one seed, one design; seeds differ where casino decks do; every card
renders into the folder layout enrollment reads. And the split of all designs is by design."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from dealerassist.core.cards import FULL_DECK
from dealerassist.simulation import artwork
from dealerassist.simulation import card_designs as generated
from dealerassist.vision.deck import load_card_image


def test_a_seed_always_gives_the_same_design_and_seeds_vary_where_decks_do() -> None:
    assert generated.card_svgs(7) == generated.card_svgs(7)
    styles = [generated.style(seed) for seed in range(1, 41)]
    assert len({s.rank_font for s in styles}) >= 8
    assert len({s.stock for s in styles}) >= 4 and len({s.court for s in styles}) == 3
    four_colour = [s for s in styles if s.colours["D"] != s.colours["H"]]
    assert 0 < len(four_colour) < len(styles)
    heights = [s.rank_height for s in styles]
    assert max(heights) > 1.4 * min(heights)
    for s in styles:  # the index keeps clear of the edge whatever its size
        assert s.index_x - 0.75 * s.rank_height > 0.01


def test_every_card_is_valid_svg_printing_its_rank() -> None:
    svgs = generated.card_svgs(3)
    assert set(svgs) == {c.code for c in FULL_DECK} | {"back"}
    for code, text in svgs.items():
        texts = [e.text for e in ET.fromstring(text).iter("{http://www.w3.org/2000/svg}text")]
        if code != "back":
            printed = "10" if code[0] == "T" else code[0]
            assert texts.count(printed) >= 2  # the two corner indices at least


def test_a_generated_design_renders_into_the_enrollment_layout(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(artwork, "CACHE_DIR", tmp_path)
    folder = artwork.design_dir("gen-1")
    for name in artwork.card_names():
        image = load_card_image(folder / f"{name}.png")
        assert image.shape[1] == artwork.CARD_WIDTH and 1.3 < image.shape[0] / image.shape[1] < 1.5


def test_designs_are_split_apart_and_the_tuned_ones_are_never_test_designs() -> None:
    split = artwork.design_split()
    assert set(split) == {"train", "validation", "test"}
    names = [name for names in split.values() for name in names]
    assert len(names) == len(set(names))  # no design in two splits
    assert len(split["test"]) >= 8
    looked_at = {artwork.TUNING_DESIGN, "nicu-white", "cardsjs", "kde-standard", "kennard-4color-bf"}
    # Test designs whose results once chose between readers, and a universal network's training draw.
    looked_at |= {"dondorf", "gm-paris", "penguins", "gen-5", "gen-10", "gen-13", "gen-19", "gen-30"}
    looked_at |= {"gen-33", "gen-34", *(f"gen-{n}" for n in range(41, 81))}
    assert not looked_at & set(split["test"])
    for name in names:  # each one a design artwork knows how to make
        assert name in artwork.SHARED_DESIGNS + artwork.RENDERED_DESIGNS or name.startswith(artwork.GENERATED)
    with pytest.raises(artwork.ArtworkError, match="unknown card design 'gen-x'"):
        artwork.design_dir("gen-x")
