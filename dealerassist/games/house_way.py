"""The House Way: how the house dealer sets a seven-card pai gow hand, read from a data table.

A house way is a named table (``house-ways/<name>.toml`` in the configuration folders;
``gold-star`` is the default, see ``shared/reference/house-way.md``). Casinos differ, so the rules
are data and this module is only their interpreter. A table is an ordered list of rules; each rule
says which hands it covers and which cards go in front::

    [[rules]]
    id = "two-pair-jacks-up"          # shown to the dealer as the reason for the setting
    pattern = "two-pair"              # the hand's shape (below)
    when = { high_pair_min = "J" }    # extra conditions, all must hold
    front = "low-pair"                # which cards the two-card hand takes
    back = "straight-or-flush"        # optional: the five-card hand must stay one

Shapes count the joker as an ace (it is one in every hand except a straight or flush it
completes): ``five-aces``, ``four-of-a-kind``, ``two-trips``, ``full-house`` (a set and at least
one pair), ``three-of-a-kind``, ``three-pair``, ``two-pair``, ``one-pair``, ``no-pair``.

Conditions (ranks written ``2``..``9``, ``T``, ``J``, ``Q``, ``K``, ``A``): ``straight_or_flush``
(some five of the seven make a straight, flush or straight flush), ``pair`` (a pair of that
rank), ``pairs_min``/``trips_min`` (at least N pairs / sets of three besides the hand's largest
group), ``high_pair_min``/``high_pair_max`` (the highest pair's rank), ``set_rank``,
``set_rank_min``, ``set_rank_max`` (the largest group's rank), ``singles_include`` (unpaired
cards of these ranks), ``single_min`` (an unpaired card of at least that rank).

Fronts: ``singles`` (two unpaired cards), ``any``, ``high-pair``/``low-pair`` (a pair exactly),
``two-of-set`` (two cards of the largest group, or of the highest set of three with
``set = "trips"``), ``one-of-set`` (one card of that group and one unpaired card).

Among the settings a rule allows, the dealer takes the best front, then the best back. A setting
is legal when it is not a foul and no other setting beats it in both hands (a chart line read
literally can point at one: tens, an ace and a straight that needs a ten, say); when a rule
allows no legal setting the next rule is tried, and a hand no rule covers gets the best legal
front. Ties between equal settings break on the cards' canonical order, so the same seven cards
always give the same setting whatever order they arrive in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any, Final

from dealerassist.core.cards import ACE, RANK_CHARS, Card
from dealerassist.core.configfiles import named_file
from dealerassist.core.tomlfile import read_toml
from dealerassist.errors import ConfigError, RuleViolation
from dealerassist.hands import HandValue, evaluate_five, evaluate_two, front_outranks_back

DEFAULT_HOUSE_WAY: Final = "gold-star"

PATTERNS: Final = (
    "five-aces",
    "four-of-a-kind",
    "two-trips",
    "full-house",
    "three-of-a-kind",
    "three-pair",
    "two-pair",
    "one-pair",
    "no-pair",
)
FRONTS: Final = ("singles", "any", "high-pair", "low-pair", "two-of-set", "one-of-set")
BACKS: Final = ("straight-or-flush",)
SETS: Final = ("largest", "trips")
RANK_CONDITIONS: Final = frozenset(
    {"pair", "high_pair_min", "high_pair_max", "set_rank", "set_rank_min", "set_rank_max", "single_min"}
)
COUNT_CONDITIONS: Final = frozenset({"pairs_min", "trips_min"})
CONDITIONS: Final = RANK_CONDITIONS | COUNT_CONDITIONS | {"straight_or_flush", "singles_include"}
STRAIGHT_OR_FLUSH: Final = frozenset({"straight", "flush", "straight-flush", "royal-flush"})


def pip_rank(card: Card) -> int:
    """The rank a card counts as when grouping pairs and sets: the joker is an ace."""
    return ACE if card.is_joker else card.rank


def parse_rank(text: object) -> int:
    """``"T"``/``"10"``/``"A"`` to 2..14; raises ``ValueError`` naming the text."""
    cleaned = str(text).strip().upper()
    if cleaned == "10":
        return 10
    if len(cleaned) == 1 and cleaned in RANK_CHARS:
        return RANK_CHARS.index(cleaned) + 2
    raise ValueError(f"not a rank: {text!r} (expected 2..9, T, J, Q, K or A)")


@dataclass(frozen=True)
class Setting:
    """A pai gow setting: the two-card front (low hand) and the five-card back (high hand)."""

    front: tuple[Card, Card]
    back: tuple[Card, Card, Card, Card, Card]
    rule: str = ""

    @property
    def front_value(self) -> HandValue:
        return evaluate_two(self.front)

    @property
    def back_value(self) -> HandValue:
        return evaluate_five(self.back, wheel_second=True)

    @property
    def foul(self) -> bool:
        return front_outranks_back(self.front_value, self.back_value)


def split_hand(seven: Sequence[Card], front: Sequence[Card]) -> Setting:
    """The setting that puts ``front`` in front and the rest in back; checks the cards belong."""
    if len(seven) != 7:
        raise RuleViolation("seven-cards", f"a pai gow hand has seven cards, got {len(seven)}")
    if len(front) != 2:
        raise RuleViolation("two-card-front", f"the front hand takes exactly two cards, got {len(front)}")
    rest = list(seven)
    for card in front:
        if card not in rest:
            raise RuleViolation("own-cards", f"{card.code} is not one of this hand's cards")
        rest.remove(card)
    return Setting(front=(front[0], front[1]), back=(rest[0], rest[1], rest[2], rest[3], rest[4]))


@dataclass(frozen=True)
class Shape:
    """What the rules look at: groups of equal rank (joker as ace) and straight/flush potential."""

    pattern: str
    groups: tuple[tuple[int, tuple[int, ...]], ...]  # (rank, positions in the hand), biggest first
    straight_or_flush: bool

    def sized(self, size: int) -> list[tuple[int, tuple[int, ...]]]:
        return [g for g in self.groups if len(g[1]) == size]

    @property
    def largest(self) -> tuple[int, tuple[int, ...]]:
        return self.groups[0]

    @property
    def singles(self) -> frozenset[int]:
        return frozenset(i for _, members in self.sized(1) for i in members)


def _pattern(sizes: list[int]) -> str:
    top = sizes[0]
    if top == 5:
        return "five-aces"
    if top == 4:
        return "four-of-a-kind"
    if top == 3:
        if sizes.count(3) >= 2:
            return "two-trips"
        return "full-house" if 2 in sizes else "three-of-a-kind"
    pairs = sizes.count(2)
    return {0: "no-pair", 1: "one-pair", 2: "two-pair"}.get(pairs, "three-pair")


@dataclass(frozen=True)
class Rule:
    id: str
    pattern: str
    front: str
    when: Mapping[str, Any] = field(default_factory=dict)
    back: str | None = None
    group: str = "largest"

    def matches(self, shape: Shape) -> bool:
        if shape.pattern != self.pattern:
            return False
        return all(_condition(shape, name, want) for name, want in self.when.items())


def _condition(shape: Shape, name: str, want: Any) -> bool:
    pairs = [rank for rank, _ in shape.sized(2)]
    singles = [rank for rank, _ in shape.sized(1)]
    set_rank = shape.largest[0]
    others = shape.groups[1:]
    if name == "straight_or_flush":
        return shape.straight_or_flush == want
    if name == "pair":
        return want in pairs
    if name == "pairs_min":
        return sum(1 for _, m in others if len(m) == 2) >= want
    if name == "trips_min":
        return sum(1 for _, m in others if len(m) == 3) >= want
    if name == "high_pair_min":
        return bool(pairs) and max(pairs) >= want
    if name == "high_pair_max":
        return bool(pairs) and max(pairs) <= want
    if name == "set_rank":
        return set_rank == want
    if name == "set_rank_min":
        return set_rank >= want
    if name == "set_rank_max":
        return set_rank <= want
    if name == "singles_include":
        return all(rank in singles for rank in want)
    if name == "single_min":
        return any(rank >= want for rank in singles)
    raise AssertionError(f"unchecked condition {name}")  # load_house_way validates names


@dataclass(frozen=True)
class HouseWay:
    """A named house way: its rules in the order the dealer applies them."""

    name: str
    rules: tuple[Rule, ...]
    description: str = ""

    def set_hand(self, cards: Sequence[Card]) -> Setting:
        """The house-way setting of seven cards (never a foul; the same for any input order)."""
        hand = sorted(cards, key=lambda c: c.index)
        if len(hand) != 7:
            raise RuleViolation("seven-cards", f"a pai gow hand has seven cards, got {len(hand)}")
        splits = _splits(hand)
        shape = _shape(hand, splits)
        options = undominated([o for o in splits if not o.foul])
        for rule in self.rules:
            if not rule.matches(shape):
                continue
            allowed = [o for o in options if _allows(rule, shape, o)]
            if allowed:
                return _best(hand, allowed, rule.id)
        return _best(hand, options, "best-front")


@dataclass(frozen=True)
class _Option:
    front: tuple[int, int]
    back: tuple[int, ...]
    front_value: HandValue
    back_value: HandValue

    @property
    def foul(self) -> bool:
        return front_outranks_back(self.front_value, self.back_value)


def _splits(hand: Sequence[Card]) -> list[_Option]:
    """All 21 ways to split the seven cards, fouls included (a straight may sit only in a foul's back)."""
    found = []
    for front in combinations(range(7), 2):
        back = tuple(i for i in range(7) if i not in front)
        fv = evaluate_two([hand[i] for i in front])
        bv = evaluate_five([hand[i] for i in back], wheel_second=True)
        found.append(_Option((front[0], front[1]), back, fv, bv))
    return found


def undominated(options: Sequence[_Option]) -> list[_Option]:
    """Drop every setting that another one beats in both hands: no house way should pick one."""
    pairs = [(o.front_value.strength, o.back_value.strength) for o in options]
    return [
        o
        for o, (front, back) in zip(options, pairs, strict=True)
        if not any(f > front and b > back for f, b in pairs)
    ]


def _shape(hand: Sequence[Card], splits: Sequence[_Option]) -> Shape:
    by_rank: dict[int, list[int]] = {}
    for i, card in enumerate(hand):
        by_rank.setdefault(pip_rank(card), []).append(i)
    groups = sorted(by_rank.items(), key=lambda g: (len(g[1]), g[0]), reverse=True)
    return Shape(
        pattern=_pattern([len(m) for _, m in groups]),
        groups=tuple((rank, tuple(m)) for rank, m in groups),
        straight_or_flush=any(o.back_value.name in STRAIGHT_OR_FLUSH for o in splits),
    )


def _allows(rule: Rule, shape: Shape, option: _Option) -> bool:
    if rule.back == "straight-or-flush" and option.back_value.name not in STRAIGHT_OR_FLUSH:
        return False
    front = set(option.front)
    kind = rule.front
    if kind == "any":
        return True
    if kind == "singles":
        return front <= shape.singles
    if kind in ("high-pair", "low-pair"):
        pairs = shape.sized(2)
        if not pairs:
            return False
        members = pairs[0][1] if kind == "high-pair" else pairs[-1][1]
        return front == set(members)
    group = shape.sized(3)[0] if rule.group == "trips" and shape.sized(3) else shape.largest
    in_group = front & set(group[1])
    if kind == "two-of-set":
        return len(in_group) == 2
    if kind == "one-of-set":
        return len(in_group) == 1 and (front - in_group) <= shape.singles
    raise AssertionError(f"unchecked front {kind}")  # load_house_way validates names


def _best(hand: Sequence[Card], options: Sequence[_Option], rule_id: str) -> Setting:
    chosen = max(options, key=lambda o: (o.front_value, o.back_value, tuple(-i for i in o.front)))
    front = _high_first(hand[i] for i in chosen.front)
    back = _high_first(hand[i] for i in chosen.back)
    return Setting(
        front=(front[0], front[1]), back=(back[0], back[1], back[2], back[3], back[4]), rule=rule_id
    )


def _high_first(cards: Iterable[Card]) -> list[Card]:
    """Cards as a dealer lays them out: highest first (the joker as an ace), then by card index."""
    return sorted(cards, key=lambda c: (-pip_rank(c), c.index))


def house_way_from_mapping(data: Mapping[str, Any], source: str) -> HouseWay:
    """Build and check a house way from parsed TOML; errors name the file, key and problem."""
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ConfigError(source, "name", "must name the house way")
    raw_rules = data.get("rules")
    if not isinstance(raw_rules, list) or not raw_rules:
        raise ConfigError(source, "rules", "must list at least one [[rules]] entry")
    rules = []
    for n, raw in enumerate(raw_rules):
        key = f"rules[{n}]"
        if not isinstance(raw, Mapping):
            raise ConfigError(source, key, "must be a table")
        rule_id = str(raw.get("id", key))
        pattern = _choice(raw, "pattern", PATTERNS, None, source, key)
        front = _choice(raw, "front", FRONTS, None, source, key)
        back = _choice(raw, "back", BACKS, "", source, key) or None
        group = _choice(raw, "set", SETS, "largest", source, key)
        unknown = set(raw) - {"id", "pattern", "front", "back", "set", "when"}
        if unknown:
            raise ConfigError(source, key, f"unknown key(s) {', '.join(sorted(unknown))}")
        when = _conditions(raw.get("when", {}), source, f"{key}.when")
        rules.append(Rule(id=rule_id, pattern=pattern, front=front, when=when, back=back, group=group))
    return HouseWay(name=name, rules=tuple(rules), description=str(data.get("description", "")))


def _choice(
    raw: Mapping[str, Any], name: str, allowed: Sequence[str], default: str | None, source: str, key: str
) -> str:
    value = raw.get(name, default)
    if value == default and default is not None:
        return default
    if value not in allowed:
        raise ConfigError(source, f"{key}.{name}", f"must be one of {', '.join(allowed)}, got {value!r}")
    return str(value)


def _conditions(raw: object, source: str, key: str) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise ConfigError(source, key, "must be a table of condition = value")
    when: dict[str, Any] = {}
    for name, value in raw.items():
        where = f"{key}.{name}"
        if name not in CONDITIONS:
            raise ConfigError(source, where, f"unknown condition (known: {', '.join(sorted(CONDITIONS))})")
        try:
            if name in RANK_CONDITIONS:
                when[name] = parse_rank(value)
            elif name == "singles_include":
                if not isinstance(value, list):
                    raise ValueError('must be a list of ranks like ["A", "K"]')
                when[name] = tuple(parse_rank(v) for v in value)
            elif name == "straight_or_flush":
                if not isinstance(value, bool):
                    raise ValueError("must be true or false")
                when[name] = value
            else:
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ValueError("must be a whole number >= 0")
                when[name] = value
        except ValueError as exc:
            raise ConfigError(source, where, str(exc)) from None
    return when


def load_house_way_file(path: str | Path) -> HouseWay:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(str(path), "-", "no such house-way file")
    data = read_toml(path)
    return house_way_from_mapping(data, str(path))


@cache
def load_house_way(name: str = DEFAULT_HOUSE_WAY) -> HouseWay:
    """A house way by name (``house-ways/<name>.toml`` in the configuration folders)."""
    return load_house_way_file(named_file("house-ways", name, "house way"))
