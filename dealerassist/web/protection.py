"""Game-protection flags for the surveillance page, from the surveillance reader.

**Computed on request with a bound, cached per rounds' head.** A request names a window (rounds
opened in ``[since, until)``); of its rounds at most ``max_rounds`` (the latest) are analysed, read
from the surveillance reader from the first of them on (the shared ``LogIndex`` says where each
round starts), so a view costs the window's records, never the whole log. The report is cached per
window and the ``last_seq`` of every round in it: another view, or the review that follows one,
costs nothing until a round of the window gets a record. Reviews come from the pit-wide records,
read incrementally and folded onto the flags on every request (a review shows at once).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dealerassist.events import PIT_WIDE
from dealerassist.protection.records import fold_rounds
from dealerassist.protection.report import ProtectionReport, Settings, protect
from dealerassist.protection.reviews import ReviewBook, ReviewedFlag
from dealerassist.web.history import LogIndex, RoundSummary

MAX_ROUNDS = 2000


@dataclass(frozen=True)
class Findings:
    since: str | None
    until: str | None
    window_rounds: int  # rounds opened in the window
    analysed: int  # of them, the latest ones analysed (at most the bound)
    report: ProtectionReport
    flags: list[ReviewedFlag]

    def to_dict(self) -> dict[str, Any]:
        return {
            "from": self.since,
            "to": self.until,
            "window_rounds": self.window_rounds,
            "analysed_rounds": self.analysed,
            "flags": [f.to_dict() for f in self.flags],
            "sessions": self.report.sessions,
            "dealers": self.report.dealers,
        }


class ProtectionWatch:
    """One per dashboard: the last window's report and every review read so far."""

    def __init__(
        self, reader: Any, index: LogIndex, settings: Settings | None = None, max_rounds: int = MAX_ROUNDS
    ) -> None:
        self._reader = reader
        self._index = index
        self.settings = settings or Settings()
        self.max_rounds = max_rounds
        self._lock = threading.Lock()
        self.review_lock = threading.Lock()  # held from a review's check to its record
        self._reviews = ReviewBook()
        self._reviews_read = 0
        self._cached: tuple[tuple[Any, ...], ProtectionReport] | None = None

    def findings(self, since: str | None = None, until: str | None = None) -> Findings:
        in_window = [
            r
            for r in self._index.refresh().rounds_list()
            if (since is None or r.opened_at >= since) and (until is None or r.opened_at < until)
        ]
        chosen = sorted(in_window, key=lambda r: r.first_seq)[-self.max_rounds :]
        key = (since, until, tuple((r.table, r.round_id, r.last_seq) for r in chosen))
        with self._lock:
            if self._cached is None or self._cached[0] != key:
                self._cached = (key, protect(self._rounds(chosen), self.settings))
            report = self._cached[1]
            for record in self._reader.records(after=self._reviews_read, table=PIT_WIDE):
                self._reviews.take(record)
                self._reviews_read = record.seq
            flags = self._reviews.reviewed(report.flags)
            return Findings(since, until, len(in_window), len(chosen), report, flags)

    def reviews(self) -> ReviewBook:
        """The reviews read by the last ``findings`` (what a new review is checked against)."""
        return self._reviews

    def _rounds(self, chosen: list[RoundSummary]) -> list[Any]:
        if not chosen:
            return []
        start = chosen[0].first_seq
        end = max(r.last_seq for r in chosen)
        wanted = {(r.table, r.round_id) for r in chosen}
        folded = fold_rounds(self._window(start, end, sorted({r.table for r in chosen})))
        return [r for r in folded if (r.table, r.round_id) in wanted]

    def _window(self, start: int, end: int, tables: list[str]) -> Iterator[Any]:
        """Each table's rules in force at ``start``, then the records ``start..end``."""
        for table in tables:
            rules = self._reader.latest(table, "table-config")
            if rules is not None and rules.seq >= start:  # the rules changed inside the window
                rules = None
                for record in self._reader.records(table=table):
                    if record.seq >= start:
                        break
                    if record.event.kind == "table-config":
                        rules = record
            if rules is not None:
                yield rules
        for record in self._reader.records(after=start - 1):
            if record.seq > end:
                return
            yield record
