"""The Gold Star House Way (shared/reference/house-way.md) as data: one test per line of the chart,
the properties every house way must keep on thousands of seeded deals, and the table checks."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from dealerassist.core.cards import FULL_DECK, JOKER, Card, parse_cards
from dealerassist.errors import ConfigError
from dealerassist.games.house_way import house_way_from_mapping, load_house_way, split_hand

WAY = load_house_way("gold-star")
DECK = [*FULL_DECK, JOKER]


def ranks(cards: list[Card] | tuple[Card, ...]) -> list[str]:
    """The ranks a setting puts somewhere (suits of equal cards are the dealer's free choice)."""
    return sorted("JK" if c.is_joker else c.code[0] for c in cards)


def front_of(cards: str) -> list[str]:
    setting = WAY.set_hand(parse_cards(cards))
    assert not setting.foul
    return ranks(setting.front)


@pytest.mark.parametrize(
    ("rule", "cards", "front"),
    [
        ("1. no pair: highest back, next two front", "AS KD 9C 7H 5S 3D 2C", "KD 9C"),
        ("2. one pair: pair back, two highest singles front", "8S 8D AC KH 5S 3D 2C", "AC KH"),
        ("3. two pair with aces: split", "AS AD 4C 4H KS 9D 2C", "4C 4H"),
        ("3. two pair, jacks or better: split", "JS JD 5C 5H KS 9D 2C", "5C 5H"),
        ("3. both pairs 6s or lower: together, singles front", "6S 6D 3C 3H KS 9D 2C", "9D KS"),
        ("3. middle pairs with an ace singleton: together, ace front", "9S 9D 4C 4H AS 8D 2C", "8D AS"),
        ("3. middle pairs without an ace: split", "9S 9D 4C 4H KS 8D 2C", "4C 4H"),
        ("4. three pair: highest pair front", "9S 9D 4C 4H KS KD 2C", "KD KS"),
        ("5. three of a kind: set back, singles front", "8S 8D 8C KH QS 5D 2C", "KH QS"),
        ("5. three aces: pair of aces back, one ace front", "AS AD AC KH QS 5D 2C", "AC KH"),
        ("5. the joker makes three aces", "AS AD JK KH QS 5D 2C", "AS KH"),
        ("6. two sets: pair of the higher set front", "8S 8D 8C 5H 5S 5D 2C", "8C 8D"),
        ("7. no pair, straight: the straight that leaves the best front", "2S 3H 4D 5C 6S KH AH", "AH KH"),
        ("7. flush with a pair: flush back, pair front", "2S 5S 8S JS KS 8H 3D", "3D 8H"),
        (
            "7. straight, pair of 10s or better and an ace: pair back, ace front",
            "TS TD JC QH KS AS 3D",
            "AS KS",
        ),
        (
            "7. three of a kind and a straight: two of the set front, straight back",
            "7S 7H 7D 8C 9S TH JD",
            "7S 7H",
        ),
        ("7. two pair and a flush: the two-pair rule splits jacks up", "KS KH 5S 5D 9S 2S 3S", "5S 5D"),
        ("8. full house: set back, pair front", "9S 9D 9C 5H 5S KD 2C", "5H 5S"),
        ("8. full house of 2s with ace and king: keep it, A-K front", "9S 9D 9C 2H 2S KD AC", "AC KD"),
        ("8. set and two pairs: higher pair front", "9S 9D 9C 5H 5S KD KC", "KC KD"),
        ("9. low four of a kind stays together", "5S 5D 5C 5H KS QD 2C", "KS QD"),
        ("9. middle four of a kind with an ace: together, ace front", "9S 9D 9C 9H AS QD 2C", "AS QD"),
        ("9. middle four of a kind without an ace: split", "9S 9D 9C 9H KS QD 2C", "9C 9D"),
        ("9. high four of a kind always splits", "QS QD QC QH AS KD 2C", "QC QD"),
        ("9. four of a kind and a pair: pair front", "4S 4D 4C 4H KS KD 2C", "KD KS"),
        ("10. five aces split", "AS AD AC AH JK QD 2C", "AC AD"),
        ("10. five aces and a pair of kings: kings front", "AS AD AC AH JK KD KC", "KC KD"),
    ],
)
def test_gold_star_chart(rule: str, cards: str, front: str) -> None:
    assert front_of(cards) == ranks(parse_cards(front)), rule


def seeded_hands(count: int, seed: int) -> list[list[Card]]:
    rng = random.Random(seed)
    return [rng.sample(DECK, 7) for _ in range(count)]


def test_house_way_properties_on_seeded_deals() -> None:
    """Never a foul; all seven cards used once; no other setting beats it in both hands; the same
    seven cards in any order give the same setting."""
    rng = random.Random(99)
    for hand in seeded_hands(1500, seed=2026):
        setting = WAY.set_hand(hand)
        assert not setting.foul, hand
        assert sorted(setting.front + setting.back) == sorted(hand)
        front, back = setting.front_value, setting.back_value
        for other in combinations(hand, 2):
            alt = split_hand(hand, other)
            assert not (alt.front_value > front and alt.back_value > back), (hand, setting, alt)
        shuffled = hand[:]
        rng.shuffle(shuffled)
        again = WAY.set_hand(shuffled)
        assert (again.front, again.back) == (setting.front, setting.back)


@pytest.mark.slow
def test_house_way_never_fouls_on_many_more_deals() -> None:
    for hand in seeded_hands(20000, seed=7):
        assert not WAY.set_hand(hand).foul, hand


def test_a_house_way_table_names_its_file_key_and_problem() -> None:
    with pytest.raises(ConfigError) as err:
        house_way_from_mapping({"name": "x", "rules": [{"pattern": "two-pair", "front": "middle"}]}, "x.toml")
    assert err.value.key == "rules[0].front"
    with pytest.raises(ConfigError) as err:
        house_way_from_mapping(
            {"name": "x", "rules": [{"pattern": "two-pair", "front": "singles", "when": {"pair": "Z"}}]},
            "x.toml",
        )
    assert err.value.key == "rules[0].when.pair"
    with pytest.raises(ConfigError):
        load_house_way("no-such-way")


def test_another_house_way_is_just_another_table() -> None:
    """A house that always splits two pair differs from Gold Star only in its data."""
    always_split = house_way_from_mapping(
        {"name": "always-split", "rules": [{"pattern": "two-pair", "front": "low-pair"}]}, "always-split.toml"
    )
    cards = parse_cards("6S 6D 3C 3H KS 9D 2C")
    assert sorted(c.code for c in always_split.set_hand(cards).front) == ["3C", "3H"]
    assert sorted(c.code for c in WAY.set_hand(cards).front) == ["9D", "KS"]
