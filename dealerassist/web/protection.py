"""Game-protection flags for the surveillance page, from the surveillance reader.

**Computed on request with a bound, cached per rounds' head.** A request names a window (rounds
opened in ``[since, until)``); of its rounds at most ``max_rounds`` (the latest) are analysed. The
latest ``max_rounds`` rounds of the log are kept folded and brought up to the head on each
request from the records that came since (the shared ``LogIndex`` says where each round starts;
older rounds are forgotten, so memory stays bounded); a window into the past is read once from
its first round on. Either way a view costs at most the bound, never the whole log. The report is
cached per window and the ``last_seq`` of every round in it: another view, or the review that
follows one, costs nothing until a round of the window gets a record. Reviews come from the
pit-wide records, read incrementally and folded onto the flags on every request (a review shows
at once).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dealerassist.events import PIT_WIDE
from dealerassist.protection.records import RoundFolder, fold_rounds
from dealerassist.protection.report import ProtectionReport, Settings, protect
from dealerassist.protection.reviews import ReviewBook, ReviewedFlag
from dealerassist.web.history import LogIndex, RoundSummary

MAX_ROUNDS = 500


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
        # The latest ``max_rounds`` rounds of the log, folded as records come (see ``_follow``).
        self._folder: RoundFolder | None = None
        self._folded_to = 0
        self._kept_from = 0

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
        """The chosen rounds folded: from the kept latest rounds when the window lies in them,
        else read once from the first chosen round on (a window into the past)."""
        if not chosen:
            return []
        wanted = {(r.table, r.round_id) for r in chosen}
        start = chosen[0].first_seq
        self._follow()
        if self._folder is not None and start >= self._kept_from:
            folded = self._folder.rounds()
        else:
            end = max(r.last_seq for r in chosen)
            folded = fold_rounds(self._window(start, end, sorted({r.table for r in chosen})))
        return [r for r in folded if (r.table, r.round_id) in wanted]

    def _follow(self) -> None:
        """Bring the kept rounds up to the log's head: fold the new records, forget the rounds that
        fell out of the latest ``max_rounds``."""
        every = self._index.rounds_list()
        latest = sorted(every, key=lambda r: r.first_seq)[-self.max_rounds :]
        if not latest:
            return
        tables = sorted({r.table for r in every})
        if self._folder is None:
            self._folder = RoundFolder()
            for record in self._window(latest[0].first_seq, None, tables):
                self._folder.fold(record)
                self._folded_to = record.seq
        for record in self._reader.records(after=self._folded_to):
            self._folder.fold(record)
            self._folded_to = record.seq
        first: dict[str, int] = {}
        for r in latest:
            first[r.table] = min(first.get(r.table, r.round_id), r.round_id)
        for table in tables:
            self._folder.forget(table, first.get(table, 2**62))
        self._kept_from = latest[0].first_seq

    def _window(self, start: int, end: int | None, tables: list[str]) -> Iterator[Any]:
        """Each table's rules in force at ``start``, then the records ``start..end`` (to the head)."""
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
            if end is not None and record.seq > end:
                return
            yield record
