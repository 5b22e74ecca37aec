"""Fan-out: replay after Last-Event-ID, live records in order, gaps filled, slow clients dropped."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from dealerassist.events import Meta
from dealerassist.storage.eventlog import EventLog
from dealerassist.web.fanout import Dropped, Fanout


@pytest.fixture
def log(tmp_path: Path) -> EventLog:
    return EventLog(tmp_path / "log.sqlite3")


def test_replay_then_live_without_gaps_or_doubles(log: EventLog) -> None:
    first = [log.append(Meta(table="t1", data={"n": i})) for i in range(3)]
    fanout = Fanout(log)
    sub = fanout.connect(after=first[0].seq)
    live = log.append(Meta(table="t1", data={"n": 3}))
    fanout.publish(first[2])  # already replayed: must not come twice
    fanout.publish(live)
    got = [sub.next(timeout=0.1) for _ in range(3)]
    assert [r.seq for r in got] == [first[1].seq, first[2].seq, live.seq]
    assert sub.next(timeout=0.05) is None  # quiet: the caller sends a keep-alive
    sub.close()
    assert fanout.client_count == 0


def test_a_table_filter_and_records_from_another_writer(log: EventLog) -> None:
    fanout = Fanout(log)
    sub = fanout.connect(after=log.last_seq(), accept=lambda r: r.event.table == "t2")
    quiet = log.append(Meta(table="t2", data={"by": "progressive"}))  # appended, never published
    other = log.append(Meta(table="t1"))
    mine = log.append(Meta(table="t2"))
    fanout.publish(other)  # the gap before it is read from the log
    fanout.publish(mine)
    assert [sub.next(timeout=0.1).seq for _ in range(2)] == [quiet.seq, mine.seq]
    late = log.append(Meta(table="t2"))
    fanout.catch_up()
    assert sub.next(timeout=0.1).seq == late.seq


def test_a_client_that_stops_reading_is_dropped_not_waited_for(log: EventLog) -> None:
    fanout = Fanout(log, queue_size=4)
    slow = fanout.connect(after=log.last_seq())
    fast = fanout.connect(after=log.last_seq())
    # Each stream reads the log once (nothing yet) and is then attached to the live feed.
    assert slow.next(timeout=0.01) is None and fast.next(timeout=0.01) is None
    records = [log.append(Meta(table="t1", data={"n": i})) for i in range(10)]
    done = threading.Event()

    def tracker_thread() -> None:
        for record in records:
            fanout.publish(record)
            if record.seq % 4 == 0:
                while fast.next(timeout=0.01) is not None:
                    pass
        done.set()

    thread = threading.Thread(target=tracker_thread)
    thread.start()
    assert done.wait(5), "publishing blocked on a slow client"
    thread.join()
    assert fanout.dropped_total == 1 and fanout.client_count == 1
    delivered = [slow.next(timeout=0.01) for _ in range(4)]  # what fitted before the drop
    assert [r.seq for r in delivered] == [r.seq for r in records[:4]]
    with pytest.raises(Dropped):
        slow.next(timeout=0.01)
