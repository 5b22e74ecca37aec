"""Hand evaluators for every game on the floor.

One call per hand (``evaluate_three``, ``evaluate_four``/``best_four``, ``evaluate_five``/
``best_five`` with the pai gow joker, ``evaluate_two`` and ``front_outranks_back``, the Pairs & Up
pattern functions, ``blackjack_total`` and ``perfect_pair``) and numpy batch versions for the
analyzer in ``dealerassist.hands.batch``. Every evaluator returns a ``HandValue`` whose strength
orders hands and whose name is the class slug the pay tables use.
"""

from dealerassist.hands.blackjack import BlackjackTotal, blackjack_total, perfect_pair
from dealerassist.hands.five import best_five, evaluate_five
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
    "evaluate_five",
    "evaluate_four",
    "evaluate_three",
    "evaluate_two",
    "front_outranks_back",
    "pairs_and_up_hand",
    "pairs_and_up_made",
    "pairs_and_up_precedence",
    "perfect_pair",
]
