"""The linked progressive on a real PostgreSQL server started by the test."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import psycopg
import pytest

from dealerassist.errors import RuleViolation
from dealerassist.progressive.controller import ProgressiveController
from dealerassist.progressive.events import ProgressiveContribution, ProgressiveHit, replay
from dealerassist.progressive.linked import LinkedStore
from dealerassist.progressive.sign import SignFeed
from dealerassist.storage.eventlog import EventLog
from firmware_bridge.emulators.sign import SignEmulator
from firmware_bridge.sign import JackpotSign
from tests.pgserver import PostgresUnavailable, ThrowawayPostgres
from tests.progressive import kill_driver
from tests.progressive.support import FakeClock, TableFeed, attach, make_params, shows, wait_for
from tests.progressive.test_kill import records_in, run_with_kills, start_driver

pytestmark = pytest.mark.postgres
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pg() -> Iterator[ThrowawayPostgres]:
    with ThrowawayPostgres(durable=False) as server:
        yield server


def test_concurrent_tables_share_one_meter_exactly_to_the_cent(pg: ThrowawayPostgres, tmp_path: Path) -> None:
    tables, rounds = [f"link-{i}" for i in range(4)], 60
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    link = pg.url + "?application_name=concurrent"
    children = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.progressive.kill_driver",
                str(tmp_path / f"{t}.db"),
                str(rounds),
                t,
                link,
            ],
            cwd=ROOT,
            env=env,
        )
        for t in tables
    ]
    assert [c.wait(timeout=300) for c in children] == [0] * len(tables)

    store = LinkedStore(link, "auditor", make_params(link=link))
    ledger = store.ledger()
    row, _ = store.snapshot()
    store.close()
    # Every qualifying wager of every table is in the shared ledger exactly once.
    expected = Counter(
        step.table
        for t in tables
        for r in range(1, rounds + 1)
        for step in kill_driver.round_steps(r, t)
        if step.kind == "wager" and step.amount == 100
    )
    contributions = [e for e in ledger if isinstance(e, ProgressiveContribution)]
    assert Counter(c.table for c in contributions) == expected
    assert len({c.key for c in contributions}) == len(contributions)
    # The row is exactly the ledger replayed, and money balances to the cent from the ledger alone.
    assert replay(ledger) == row
    base = Fraction(make_params().rates.base)
    contributed = sum((c.contribution().total for c in contributions), Fraction(0))
    awards = sum((e.payment().from_pools for e in ledger if isinstance(e, ProgressiveHit)), Fraction(0))
    seeds = sum((Fraction(e.seed) for e in ledger if e.kind == "progressive-reset"), Fraction(0))
    refunds = sum((e.correction().total for e in ledger if e.kind == "progressive-correction"), Fraction(0))
    assert row.pools == base + seeds + contributed - awards + refunds
    assert row.hits == sum(1 for e in ledger if isinstance(e, ProgressiveHit)) and not row.pending
    assert len({e.table for e in ledger if isinstance(e, ProgressiveHit)}) >= 2, (
        "hits came from one table only"
    )
    # Each table's own log holds exactly its share of the shared ledger.
    for t in tables:
        local = [r.event for r in EventLog(tmp_path / f"{t}.db").records(table=t)]
        own = {e.key for e in local if e.kind.startswith("progressive-") and e.key}
        shared = {e.key for e in ledger if e.table == t}
        assert own == shared


def test_a_lost_link_makes_the_progressive_unplayable_until_it_is_back(
    pg: ThrowawayPostgres, tmp_path: Path, emulator: SignEmulator, sign: JackpotSign
) -> None:
    link = pg.url + "?application_name=outage"
    log = EventLog(tmp_path / "t.db")
    feed = TableFeed("outage-1", log)
    ctl = attach(
        feed, ProgressiveController("outage-1", make_params(link=link, name="outage"), log, clock=FakeClock())
    )
    signs: list[dict] = []
    ctl.subscribe(signs.append)
    ctl.subscribe(SignFeed(sign))
    feed.round(1, {1: 100})
    before = ctl.state()["amount"]
    wait_for(shows(emulator, "JACKPOT $10,000.15"), "the amount before the outage")
    pg.kill()
    try:
        ctl.refresh()
        state = ctl.state()
        assert (state["status"], state["fault"]) == ("fault", "LINK DOWN")
        assert "unreachable" in state["fault_detail"]
        assert signs[-1]["status"] == "fault"
        wait_for(shows(emulator, "PROGRESSIVE LINK DOWN | JACKPOT $10,000.15"), "the fault alternating")
        with pytest.raises(RuleViolation, match="link to the shared meter lost"):
            ctl.check_wager(2, "progressive", 100)
        feed.settle(1, {})
        feed.round(2, {1: 100, 2: 100})  # closed while the link is down: waits, is not lost
        assert ctl.state()["status"] == "fault"
    finally:
        pg.start()
    ctl.refresh()
    state = ctl.state()
    assert (state["status"], state["fault"]) == ("normal", None), state["fault_detail"]
    assert state["meters"]["qualifying_wagers"] == 3
    assert state["amount"] == before + 31  # two more wagers at 15.5 cents each
    ctl.check_wager(2, "progressive", 100)
    wait_for(shows(emulator, "JACKPOT $10,000.46"), "the sign back to the amount alone")
    local = [r.event for r in log.records() if r.event.kind == "progressive-contribution"]
    assert sorted((c.round_id, c.seat) for c in local) == [(1, 1), (2, 1), (2, 2)]
    ctl.stop()


def test_a_retried_contribution_is_never_counted_twice(pg: ThrowawayPostgres, tmp_path: Path) -> None:
    link = pg.url + "?application_name=retry"
    log_a, log_b = EventLog(tmp_path / "a.db"), EventLog(tmp_path / "b.db")
    params = make_params(link=link, name="retry")
    feed = TableFeed("retry-1", log_a)
    attach(feed, ProgressiveController("retry-1", params, log_a))
    feed.round(1, {1: 100, 2: 100})
    # The same table restarted on a log that lost the contributions (as after a crash between the
    # shared commit and the local append): the shared ledger hands them back instead of recounting.
    for record in log_a.records():
        if not record.event.kind.startswith("progressive-"):
            log_b.append(record.event)
    again = ProgressiveController("retry-1", params, log_b)
    copied = [r.event for r in log_b.records() if r.event.kind == "progressive-contribution"]
    assert [c.seat for c in copied] == [1, 2]
    assert again.meter.wagers == 2
    again.stop()


def test_linked_tables_see_each_others_hits_and_any_supervisor_confirms(
    pg: ThrowawayPostgres, tmp_path: Path
) -> None:
    link = pg.url + "?application_name=hits"
    params = make_params(link=link, name="hits")
    logs = [EventLog(tmp_path / f"{i}.db") for i in range(2)]
    feeds = [TableFeed(f"hits-{i}", log) for i, log in enumerate(logs)]
    ctls = [
        attach(feed, ProgressiveController(feed.table, params, log, clock=FakeClock()))
        for feed, log in zip(feeds, logs, strict=True)
    ]
    feeds[0].round(1, {1: 100})
    feeds[1].round(1, {4: 100})
    feeds[1].settle(1, {4: "seven-card-straight-flush"})
    ctls[0].refresh()
    assert ctls[0].state()["win"]["table"] == "hits-1"
    with pytest.raises(RuleViolation, match="locked"):
        ctls[0].check_wager(1, "progressive", 100)
    with pytest.raises(RuleViolation, match="no jackpot"):
        ctls[0].confirm("hits-1:1:5", "sam", "supervisor")
    ctls[0].confirm("hits-1:1:4", "sam", "supervisor")
    ctls[1].refresh()
    assert ctls[1].state()["status"] == "normal" and ctls[1].state()["amount"] == 500_008
    for ctl in ctls:
        ctl.stop()


def test_a_following_table_hears_each_commit_at_once(
    pg: ThrowawayPostgres, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = pg.url + "?application_name=follow"
    params = make_params(link=link, name="follow")
    feed = TableFeed("follow-1", EventLog(tmp_path / "a.db"))
    attach(feed, ProgressiveController("follow-1", params, feed.log))
    follower = ProgressiveController("follow-2", params, EventLog(tmp_path / "b.db"), poll_s=5.0)
    # Its following thread slow to get going, as on a loaded machine: a commit made as soon as
    # start() returns must still be heard.
    poll = follower._poll
    monkeypatch.setattr(follower, "_poll", lambda: (time.sleep(0.5), poll()))
    follower.start()
    try:
        feed.round(1, {1: 100, 2: 100})
        # The poll interval is 5 s: only the NOTIFY can bring the new amount within 4 s.
        wait_for(
            lambda: follower.state()["amount"] == 1_000_031, "the follower to hear the commit", timeout=4.0
        )
    finally:
        follower.stop()


def test_kill_minus_nine_on_a_linked_table_loses_and_doubles_nothing(
    pg: ThrowawayPostgres, tmp_path: Path
) -> None:
    with psycopg.connect(pg.url, autocommit=True) as conn:
        conn.execute("CREATE DATABASE killed")
        conn.execute("CREATE DATABASE unbroken")
    link, reference = (pg.url.rsplit("/", 1)[0] + f"/{db}" for db in ("killed", "unbroken"))
    table, rounds = "link-kill", 100
    assert start_driver(tmp_path / "ref.db", rounds, [table, reference]).wait(timeout=300) == 0
    total = records_in(tmp_path / "ref.db")
    killed = run_with_kills(tmp_path / "t.db", rounds, kills=5, seed=11, total=total, extra=[table, link])
    assert killed >= 3
    store = LinkedStore(link, "auditor", make_params(link=link))
    ledger, (row, _) = store.ledger(), store.snapshot()
    store.close()
    steps = [s for r in range(1, rounds + 1) for s in kill_driver.round_steps(r, table)]
    wagered = {(s.round_id, s.seat) for s in steps if s.kind == "wager" and s.amount == 100}
    voided = {s.round_id for s in steps if s.kind == "round-voided"}
    keys = Counter(e.key for e in ledger)
    assert max(keys.values()) == 1
    contributions = {(e.round_id, e.seat) for e in ledger if isinstance(e, ProgressiveContribution)}
    assert contributions == wagered
    refunds = {(e.round_id, e.seat) for e in ledger if e.kind == "progressive-correction"}
    assert refunds == {(r, s) for r, s in wagered if r in voided}
    assert replay(ledger) == row and row.balanced and not row.pending
    unbroken = LinkedStore(reference, "auditor", make_params(link=reference))
    assert unbroken.snapshot()[0] == row, "the killed table's shared meter differs from an unbroken run's"
    unbroken.close()
    local = {
        r.event.key for r in EventLog(tmp_path / "t.db").records() if r.event.kind.startswith("progressive-")
    }
    assert local == {e.key for e in ledger if e.table == table}


def test_a_parameter_change_on_one_linked_table_waits_for_the_next_jackpot_on_all(
    pg: ThrowawayPostgres, tmp_path: Path
) -> None:
    link = pg.url + "?application_name=params"
    params = make_params(link=link, name="params")
    feeds = [TableFeed(f"params-{i}", EventLog(tmp_path / f"{i}.db")) for i in range(2)]
    ctls = [attach(f, ProgressiveController(f.table, params, f.log, clock=FakeClock())) for f in feeds]
    ctls[0].change_params(
        make_params(link=link, name="params", increment="20", reset="7000"), "sam", "supervisor"
    )
    ctls[1].refresh()
    assert ctls[1].state()["next_params"]["increment"] == "20"
    assert ctls[1].params_in_force.rates.increment == Fraction("15.5")
    feeds[1].round(1, {3: 100})
    feeds[1].settle(1, {3: "seven-card-straight-flush"})
    assert ctls[1].params_in_force.rates.reset == 700_000 and ctls[1].state()["amount"] == 700_004
    ctls[0].refresh()
    assert ctls[0].params_in_force.rates.increment == 20 and ctls[0].state()["next_params"] is None
    for ctl in ctls:
        ctl.stop()


def test_a_server_that_fails_to_start_leaves_no_data_directory(tmp_path: Path) -> None:
    server = ThrowawayPostgres(durable=False)
    server.bin = tmp_path  # no initdb here: the start fails as on a machine without the server
    with pytest.raises(PostgresUnavailable, match="initdb failed"), server:
        pass
    assert not server.root.exists()
