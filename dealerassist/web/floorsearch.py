"""The surveillance floor search: rounds of every table in the floor store, a page at a time.

The filters are those of ``audit rounds --floor`` (``dealerassist.floor.search`` checks a card and
the kinds for both), and the query is the floor store's own: ``FloorStore.round_page`` finds the
page's rounds, then their records are fetched and folded into the summaries the history page shows.
This module only checks what the browser sent. psycopg loads on the first search, so a dashboard
without a floor store never needs it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from dealerassist.floor.search import card_code, check_kinds, floor_records
from dealerassist.web.history import RoundSummary, round_summaries

PER_PAGE = 50
MAX_PER_PAGE = 500
CONNECT_TIMEOUT_S = 3.0  # a floor link that is down answers in seconds, never hangs a request
SEARCH_TIMEOUT_S = 10.0  # a search too wide for the indexes is cut off and says so
_LONGEST_TEXT = 200


class SearchError(ValueError):
    """A search that cannot be answered: a parameter it cannot use (400, naming it), or a floor
    store that does not answer (503, saying why)."""

    def __init__(self, field: str, message: str, status: int = 400) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Filters:
    """What surveillance asked for: the filters of ``audit rounds --floor``, all optional."""

    table: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    seat: int | None = None
    card: str | None = None
    user: str | None = None
    kinds: tuple[str, ...] = ()
    page: int = 1
    per_page: int = PER_PAGE

    def query(self, rounds: Sequence[tuple[str, int]] = ()) -> Any:
        """The ``FloorQuery`` of these filters (or, given ``rounds``, of those rounds' records)."""
        from dealerassist.floor.store import FloorQuery

        if rounds:
            return FloorQuery(rounds=rounds)
        return FloorQuery(
            tables=[self.table] if self.table else [],
            since=self.since,
            until=self.until,
            seat=self.seat,
            card=self.card,
            user=self.user,
            kinds=self.kinds,
        )


@dataclass
class Found:
    """One page of the rounds a search found, latest first."""

    filters: Filters
    total: int
    rounds: list[RoundSummary] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.filters.per_page))


def parse(args: Mapping[str, Any]) -> Filters:
    """The filters of a request's query string (a werkzeug ``MultiDict``), or ``SearchError``."""
    since, until = _instant(args, "from"), _instant(args, "to")
    if since and until and since >= until:
        raise SearchError("from", "is not before to: the window holds nothing")
    card = _text(args, "card")
    return Filters(
        table=_text(args, "table"),
        since=since,
        until=until,
        seat=_number(args, "seat", 1, 99),
        card=_checked("card", card_code, card) if card else None,
        user=_text(args, "user"),
        kinds=tuple(_checked("kind", check_kinds, [k for k in args.getlist("kind") if k])),
        page=_number(args, "page", 1, 10**6) or 1,
        per_page=_number(args, "per_page", 1, MAX_PER_PAGE) or PER_PAGE,
    )


def _checked(name: str, check: Any, value: Any) -> Any:
    try:
        return check(value)
    except ValueError as exc:
        raise SearchError(name, str(exc)) from None


def search(url: str, filters: Filters) -> Found:
    """One page of rounds from the floor store at ``url``."""
    with _floor(url) as store:
        total, keys = store.round_page(
            filters.query(), offset=(filters.page - 1) * filters.per_page, count=filters.per_page
        )
        rows = store.search(filters.query(rounds=keys)) if keys else []
    summaries = round_summaries(floor_records(rows))
    return Found(filters, total, [summaries[key] for key in keys if key in summaries])


def round_records(url: str, table: str, round_id: int) -> list[Any]:
    """The floor copy's records of one round (those carrying its round id), in time order."""
    with _floor(url) as store:
        return list(floor_records(store.search(Filters().query(rounds=[(table, round_id)]))))


@contextmanager
def _floor(url: str) -> Iterator[Any]:
    """A time-limited connection to the floor store; what it cannot answer is a 503."""
    from dealerassist.floor.store import FloorError, FloorStore

    try:
        with FloorStore(url, timeout_s=CONNECT_TIMEOUT_S, statement_timeout_s=SEARCH_TIMEOUT_S) as store:
            yield store
    except FloorError as exc:
        raise SearchError("floor", str(exc), 503) from None


def _text(args: Mapping[str, Any], name: str) -> str | None:
    raw = str(args.get(name) or "").strip()
    if len(raw) > _LONGEST_TEXT or not raw.isprintable():
        raise SearchError(name, f"must be at most {_LONGEST_TEXT} printable characters")
    return raw or None


def _number(args: Mapping[str, Any], name: str, low: int, high: int) -> int | None:
    raw = _text(args, name)
    if raw is None:
        return None
    if raw.isascii() and raw.isdigit() and len(raw) <= 7 and low <= int(raw) <= high:
        return int(raw)
    raise SearchError(name, f"must be a whole number {low}..{high}, got {raw[:40]!r}")


def _instant(args: Mapping[str, Any], name: str) -> datetime | None:
    """An ISO-8601 date or time; without a zone it is UTC, as ``export --from`` takes it."""
    raw = _text(args, name)
    if raw is None:
        return None
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise SearchError(
            name, f"must be a date or date-time like 2026-11-29T14:00, got {raw[:40]!r}"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
