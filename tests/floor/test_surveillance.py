"""Floor-wide surveillance: export and audit rounds read the floor store, filtered, through indexes."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from dealerassist.cli import main
from dealerassist.floor import schema, synthetic
from dealerassist.floor.store import FloorError, FloorQuery, FloorStore
from tests.floor.conftest import Floor, Played

pytestmark = pytest.mark.postgres


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(args))
    return code, capsys.readouterr().out


def test_audit_rounds_from_the_floor_match_the_station_log(
    floor: Floor, played: Played, capsys: pytest.CaptureFixture[str]
) -> None:
    code, local = _run(capsys, "audit", "rounds", "--db", str(played.db), "--json")
    assert code == 0
    code, remote = _run(capsys, "audit", "rounds", "--floor", floor.auditor, "--table", "tcp-1", "--json")
    assert code == 0 and remote == local and len(local.splitlines()) == 5


def test_a_seats_rounds_and_a_cards_rounds_come_from_the_floor(
    floor: Floor, played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _run(capsys, "audit", "rounds", "--floor", floor.auditor, "--seat", "2", "--json")
    rounds = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and rounds
    assert all(any(r["seat"] == 2 for r in summary["results"]) for summary in rounds)
    out_file = tmp_path / "card.jsonl"
    with psycopg.connect(floor.auditor) as conn:
        card, round_id = conn.execute(
            "SELECT card, round_id FROM floor_cards ORDER BY seq LIMIT 1"
        ).fetchone()
    code, _ = _run(capsys, "export", "--floor", floor.auditor, "--card", card.lower(), "-o", str(out_file))
    lines = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert code == 0 and lines and {line["event"]["round_id"] for line in lines} >= {round_id}
    assert any(line["event"].get("card") == card for line in lines)


def test_filters_by_kind_user_and_window(
    floor: Floor, played: Played, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _run(
        capsys,
        "export",
        "--floor",
        floor.auditor,
        "--table",
        "tcp-1",
        "--kind",
        "round-settled",
        "--format",
        "csv",
    )
    assert code == 0 and len(out.splitlines()) == 1 + 5
    future = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    code, out = _run(capsys, "export", "--floor", floor.auditor, "--from", future)
    assert code == 0 and out == ""
    code, out = _run(capsys, "export", "--floor", floor.auditor, "--user", "nobody-here")
    assert code == 0 and out == ""
    code, out = _run(capsys, "audit", "rounds", "--floor", floor.auditor, "--user", "demo-dealer", "--json")
    assert code == 0 and len(out.splitlines()) == 5  # the demo's dealer dealt every round
    code, out = _run(
        capsys,
        "export",
        "--floor",
        floor.auditor,
        "--user",
        "demo-dealer",
        "--kind",
        "voids",
        "--kind",
        "round-settled",
    )
    kinds = {json.loads(line)["event"]["kind"] for line in out.splitlines()}
    assert code == 0 and kinds == {"round-settled"}


def test_a_misspelt_kind_or_card_is_refused_not_searched_for(
    floor: Floor, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "--floor", floor.auditor, "--kind", "void"]) == 1
    assert "--kind: 'void' is neither voids, jackpots, alarms nor an event kind" in capsys.readouterr().err
    assert main(["audit", "rounds", "--floor", floor.auditor, "--card", "1H"]) == 1
    assert "--card: cannot read card '1H'" in capsys.readouterr().err


def test_floor_filters_without_the_floor_are_refused(
    played: Played, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "--db", str(played.db), "--seat", "2"]) == 1
    assert "add --floor URL" in capsys.readouterr().err


def test_searches_are_answered_from_indexes_on_a_large_store(floor: Floor) -> None:
    with psycopg.connect(floor.admin, autocommit=True) as conn:
        conn.execute("CREATE DATABASE surveillance")
    url = floor.admin.rsplit("/", 1)[0] + "/surveillance"
    start = datetime(2026, 11, 1, tzinfo=UTC)
    with psycopg.connect(url, autocommit=True) as conn:
        schema.install(conn)
        synthetic.fill(conn, tables=50, records=200_000, start=start, days=7)
    day = (start + timedelta(days=3), start + timedelta(days=4))
    queries = {
        "seat": FloorQuery(tables=["syn-7"], seat=3, since=day[0], until=day[1], kinds=["round-settled"]),
        "card": FloorQuery(card="AS", since=day[0], until=day[0] + timedelta(minutes=5)),
        "table-window": FloorQuery(tables=["syn-7"], since=day[0], until=day[1]),
        "jackpots": FloorQuery(kinds=["jackpots"], since=day[0], until=day[1]),
        "user": FloorQuery(user="pit-boss", since=day[0], until=day[1]),
        "rounds": FloorQuery(rounds=[("syn-7", 100), ("syn-8", 5)]),
    }
    with FloorStore(url) as store:
        for name, query in queries.items():
            for rounds in (False, True):  # the records (export, audit rounds), the dashboard's round pages
                plan = store.explain(query, rounds=rounds)
                assert "Seq Scan" not in plan, f"{name}: {plan}"
                assert "Index" in plan, f"{name}: {plan}"
        assert store.search(queries["seat"])  # and the seat has rounds that day


def test_a_search_past_its_time_limit_is_cut_off_and_says_so(floor: Floor) -> None:
    with FloorStore(floor.auditor, statement_timeout_s=0.2) as store:
        started = time.monotonic()
        with pytest.raises(FloorError, match=r"cut off after 0\.2 s: narrow it"):
            store._query("SELECT pg_sleep(5)")
        assert time.monotonic() - started < 3
        assert store.search(FloorQuery(tables=["no-such-table"])) == []  # the connection still serves
