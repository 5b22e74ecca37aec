"""Audits with the floor copy: a local log against it record for record, and the floor copy alone.

A station's file can be rewritten by whoever holds the disk, key or no key, back to any state it
once had; the floor copy was received as the records committed and cannot be changed by the
station's role. So the first record where the two differ is where the file was altered (or, past
the floor's end, what was added to it since or never arrived).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import zip_longest
from pathlib import Path

from dealerassist.floor.store import FloorError, FloorStore
from dealerassist.storage.chain import GENESIS_HASH, record_hash
from dealerassist.storage.eventlog import ChainReport
from dealerassist.storage.keys import Keyring
from dealerassist.storage.seal import SEALED_ROWS, open_sealed, record_problem

FIELDS = ("seq", "recorded_at", "table", "kind", "round", "event", "prev_hash", "hash", "key id", "MAC")


def pick_stream(store: FloorStore, tables: list[str], stream: str | None) -> str:
    """The stream named, or the one stream holding these tables' records."""
    if stream is not None:
        if store.head(stream) is None:
            raise FloorError(f"the floor store {store.display} has no stream {stream!r}")
        return stream
    found = store.streams_of(tables)
    if len(found) != 1:
        what = "no stream" if not found else f"several streams ({', '.join(found)})"
        raise FloorError(
            f"the floor store {store.display} holds {what} of table(s) {', '.join(tables) or 'none'}: "
            "name one with --stream"
        )
    return found[0]


def local_rows(path: str | Path) -> Iterator[tuple]:
    db = open_sealed(path)
    try:
        after = 0
        while True:
            page = db.execute(SEALED_ROWS, (after, 2000)).fetchall()
            yield from page
            if len(page) < 2000:
                return
            after = page[-1][0]
    finally:
        db.close()


def compare_with_floor(path: str | Path, store: FloorStore, stream: str) -> ChainReport:
    """Name the first record where the file and the floor copy differ."""
    same = 0
    for mine, floor in zip_longest(local_rows(path), store.stream_rows(stream)):
        if mine is None:
            return ChainReport(
                False,
                same,
                floor[0],
                f"record {floor[0]} is on the floor but not in this file (deleted or cut off)",
            )
        if floor is None:
            return ChainReport(
                False,
                same,
                mine[0],
                f"records from {mine[0]} on are not on the floor copy (added to the file or not shipped yet)",
            )
        if mine[0] != floor[0]:
            seq = min(mine[0], floor[0])
            where = (
                "on the floor but not in this file"
                if floor[0] < mine[0]
                else "in this file but not on the floor"
            )
            return ChainReport(False, same, seq, f"record {seq} is {where} (records removed or renumbered)")
        if tuple(mine) != tuple(floor):
            fields = [name for name, a, b in zip(FIELDS, mine, floor, strict=True) if a != b]
            return ChainReport(
                False, same, mine[0], f"record {mine[0]} differs from the floor copy ({', '.join(fields)})"
            )
        same += 1
    return ChainReport(True, same)


def verify_floor(
    store: FloorStore, stream: str, keyring: Keyring
) -> tuple[ChainReport, list[str], list[tuple]]:
    """The floor copy alone: sequence, links, hashes, MACs of the tables whose keys are held, and
    the stream's head; also which tables' MACs could not be checked and the ingest alarms."""
    expected, prev, checked = 1, GENESIS_HASH, 0
    unkeyed: set[str] = set()
    alarms = store.alarms(stream)
    for seq, recorded_at, table, _kind, _round, body, prev_hash, digest, kid, mac in store.stream_rows(
        stream
    ):
        if seq != expected:
            return ChainReport(False, checked, expected, f"floor record {expected} is missing"), [], alarms
        if prev_hash != prev or record_hash(seq, recorded_at, prev_hash, body) != digest:
            return ChainReport(False, checked, seq, f"floor record {seq} breaks the chain"), [], alarms
        keys = keyring.get(table)
        problem = record_problem(keys, seq, digest, kid, mac) if keys else ""
        if problem:
            return ChainReport(False, checked, seq, f"floor {problem}"), [], alarms
        if keys is None and mac is not None:
            unkeyed.add(table)
        expected, prev, checked = seq + 1, digest, checked + 1
    if store.head(stream) != (checked, prev):
        return (
            ChainReport(False, checked, checked, "the floor's stream head does not match its last record"),
            [],
            alarms,
        )
    return ChainReport(True, checked), sorted(unkeyed), alarms
