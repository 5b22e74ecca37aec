"""Card texts as dealers and logs write them, and deck compositions that refuse impossible cards."""

import pytest

from dealerassist.core.cards import FULL_DECK, JOKER, Card, format_cards, parse_cards
from dealerassist.core.decks import DeckComposition, load_deck, take_all
from dealerassist.errors import CardError, ConfigError, DeckError


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("As", "AS"),
        ("AS", "AS"),
        ("10h", "TH"),
        ("Th", "TH"),
        ("JK", "JK"),
        ("joker", "JK"),
        (" qd ", "QD"),
        ("2c", "2C"),
    ],
)
def test_accepted_forms_parse_to_canonical_code(text: str, code: str) -> None:
    assert Card.parse(text).code == code


@pytest.mark.parametrize("text", ["", "A", "1s", "11h", "Ax", "AS!", "10", "KK", "joker2"])
def test_rejected_text_is_quoted_in_the_error(text: str) -> None:
    with pytest.raises(CardError) as err:
        Card.parse(text)
    assert repr(text) in str(err.value)


def test_index_round_trips_for_every_card() -> None:
    for card in [*FULL_DECK, JOKER]:
        assert Card.from_index(card.index) == card
        assert Card.parse(card.code) == card
    assert sorted(c.index for c in FULL_DECK) == list(range(52))


def test_parse_and_format_lists() -> None:
    assert format_cards(parse_cards("As, 10h jk")) == "AS TH JK"


def test_card_constructor_refuses_impossible_cards() -> None:
    with pytest.raises(CardError):
        Card(1, "S")
    with pytest.raises(CardError):
        Card(10, "X")


@pytest.mark.parametrize(
    ("name", "size"),
    [("standard-52", 52), ("standard-53-joker", 53), ("shoe-6", 312), ("pairs-and-up-52", 52)],
)
def test_shipped_decks_have_their_declared_size(name: str, size: int) -> None:
    assert load_deck(name).size == size


def test_pairs_and_up_deck_matches_the_rule_text() -> None:
    deck = load_deck("pairs-and-up-52")
    by_rank: dict[int, int] = {}
    for card, n in deck.counts.items():
        by_rank[card.rank] = by_rank.get(card.rank, 0) + n
    assert by_rank == {14: 25, 2: 12, 3: 8, 4: 7}
    assert deck.copies(Card.parse("3D")) == 2 and deck.copies(Card.parse("4D")) == 2


def test_round_refuses_a_card_the_deck_cannot_supply() -> None:
    with pytest.raises(DeckError, match="9S is not in the pairs-and-up-52 deck"):
        take_all(load_deck("pairs-and-up-52"), parse_cards("AS 9S"))
    with pytest.raises(DeckError, match="AS seen 7 times"):
        take_all(load_deck("shoe-6"), parse_cards("AS " * 7))
    with pytest.raises(DeckError, match="JK seen 2 times"):
        take_all(load_deck("standard-53-joker"), parse_cards("JK JK"))
    state = take_all(load_deck("shoe-6"), parse_cards("AS " * 6))
    assert state.remaining()[Card.parse("AS")] == 0


def test_bad_deck_config_names_file_and_key(tmp_path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[cards]\nZZ = 2\n')
    with pytest.raises(ConfigError) as err:
        load_deck(bad)
    assert str(bad) in str(err.value) and "cards.ZZ" in str(err.value)
    with pytest.raises(ConfigError, match="declares 51"):
        DeckComposition.from_mapping({"name": "x", "standard_decks": 1, "size": 51}, "mem")
    with pytest.raises(ConfigError, match="no such deck"):
        load_deck("no-such-deck")
