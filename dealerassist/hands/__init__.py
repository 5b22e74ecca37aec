"""Hand evaluators for every game on the floor.

Per hand (Card objects in, ``HandValue`` out)::

    value = evaluate_three(cards)             # Three Card Poker
    value = best_four(player_five)            # Four Card Poker (also evaluate_four)
    value = best_five(seven, wheel_second=True)   # pai gow: joker as the bug, wheel second
    foul = front_outranks_back(evaluate_two(front), evaluate_five(back, wheel_second=True))
    hand = pairs_and_up_hand(four, pairs_and_up_precedence(rules.deck))
    total = blackjack_total(cards, split=False); pair = perfect_pair(first, second)

Hot loops over five-card hands (simulations, counts) can skip ``Card`` and ``HandValue``: encode
the deck once with ``card_codes(deck)`` and call ``five_card_strength(five_codes)`` on tuples of
those ints; it returns the same ``strength`` as ``evaluate_five`` in about half the time (still
refusing a card twice, two jokers or a wrong count).

A ``HandValue`` compares with ``< == >`` against values of the same size (two, three, four or
five cards); ``.name`` is the class slug the pay tables use (``*_CLASSES`` list them weakest
first), ``.strength`` the packed integer (see ``value.py``), ``.cards`` the cards making the hand
in tie-break order, ``.ranks`` the tie-break ranks (1 = an ace playing low). Order of the input
never matters. Bad input raises ``HandError`` (a ``DealerAssistError``) naming the cards.

Whole arrays (numpy, for the analyzer): ``dealerassist.hands.batch`` gives the same strengths bit
for bit from card-index arrays, plus ``class_ids``/``class_names`` and chunked enumerations.
"""

from dealerassist.hands.blackjack import BlackjackTotal, blackjack_total, perfect_pair
from dealerassist.hands.five import best_five, card_codes, evaluate_five, five_card_strength
from dealerassist.hands.four import best_four, evaluate_four
from dealerassist.hands.paigow import evaluate_two, front_outranks_back
from dealerassist.hands.pairs_and_up import (
    PATTERNS as PAIRS_AND_UP_PATTERNS,
)
from dealerassist.hands.pairs_and_up import (
    pairs_and_up_hand,
    pairs_and_up_made,
    pairs_and_up_precedence,
)
from dealerassist.hands.three import evaluate_three
from dealerassist.hands.value import (
    FIVE_CLASSES,
    FOUR_CLASSES,
    THREE_CLASSES,
    TWO_CLASSES,
    HandError,
    HandValue,
)

__all__ = [
    "FIVE_CLASSES",
    "FOUR_CLASSES",
    "PAIRS_AND_UP_PATTERNS",
    "THREE_CLASSES",
    "TWO_CLASSES",
    "BlackjackTotal",
    "HandError",
    "HandValue",
    "best_five",
    "best_four",
    "blackjack_total",
    "card_codes",
    "evaluate_five",
    "evaluate_four",
    "evaluate_three",
    "evaluate_two",
    "five_card_strength",
    "front_outranks_back",
    "pairs_and_up_hand",
    "pairs_and_up_made",
    "pairs_and_up_precedence",
    "perfect_pair",
]
