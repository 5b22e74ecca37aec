"""Reviews folded onto flags: what a review concerns, what it covers, and what is refused."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from dealerassist.protection.report import Flag
from dealerassist.protection.reviews import ReviewBook, ReviewError, flag_id


@dataclass
class _Record:
    seq: int
    recorded_at: str
    event: Any


def _session(first: int, last: int, seat: int = 2, table: str = "tcp-1") -> Flag:
    return Flag(
        "hole-card",
        f"{table} seat {seat} rounds {first}-{last}",
        table,
        1e-9,
        {"matches": 9},
        [first],
        seat,
        (first, last),
    )


def _dealer(count: int, tables: str = "tcp-1") -> Flag:
    stat = {"dealer": "kim", "incident": "void", "count": count}
    return Flag("dealer", "dealer kim: void", tables, 1e-6, stat, [1, 2])


def _write(book: ReviewBook, flags: list[Flag], flag: Flag, action: str) -> None:
    event = book.review(flags, flag_id(flag), action, user="sue", role="surveillance")
    book.take(_Record(len(book.reviews) + 1, f"2026-12-07T0{len(book.reviews)}:00:00Z", event))


def test_a_session_review_covers_the_rounds_it_saw_and_follows_the_session() -> None:
    book = ReviewBook()
    seen = _session(1, 40)
    assert book.reviewed([seen])[0].status == "open"
    _write(book, [seen], seen, "looked")
    assert book.reviewed([seen])[0].status == "looked"
    _write(book, [seen], seen, "cleared")
    [now] = book.reviewed([seen])
    assert (now.status, now.cleared.event.user if now.cleared else None) == ("cleared", "sue")
    with pytest.raises(ReviewError, match="already cleared by sue") as twice:
        book.review([seen], flag_id(seen), "cleared", user="sue", role="surveillance")
    assert twice.value.status == 409
    # A window that starts mid-session is the same session; one that grew is open again.
    assert book.reviewed([_session(20, 40)])[0].status == "cleared"
    grown = book.reviewed([_session(1, 41)])[0]
    assert grown.status == "open" and [r.event.action for r in grown.history] == ["looked", "cleared"]
    # Another seat, table or later session is another flag.
    for other in (_session(1, 40, seat=3), _session(1, 40, table="tcp-2"), _session(45, 60)):
        assert book.reviewed([other])[0].history == []


def test_a_dealer_review_covers_the_incidents_it_counted() -> None:
    book = ReviewBook()
    flag = _dealer(5)
    _write(book, [flag], flag, "cleared")
    assert book.reviewed([_dealer(5, "tcp-1,pu-1")])[0].status == "cleared"  # tables seen differ
    assert book.reviewed([_dealer(6)])[0].status == "open"  # another incident since


def test_unknown_stale_and_bad_reviews_are_refused() -> None:
    book = ReviewBook()
    flags = [_session(1, 40)]
    for wanted, action, note, status, words in (
        ("hole-card:tcp-1:seat-9:1-40", "looked", "", 404, "no flag"),
        ("hole-card:tcp-1:seat-2:1-39", "looked", "", 409, "new evidence"),
        (flag_id(flags[0]), "approved", "", 422, "looked, cleared"),
        (flag_id(flags[0]), "looked", "n" * 501, 422, "500"),
        (None, "looked", "", 422, "required"),
    ):
        with pytest.raises(ReviewError, match=words) as refused:
            book.review(flags, wanted, action, user="sue", role="surveillance", note=note)
        assert refused.value.status == status
