"""The floor database: tables, the ingest check, the append-only guard, roles and grants.

A *stream* is one station's log (one hash chain, possibly of several tables). Stations insert into
``floor_records`` only; a ``BEFORE INSERT`` trigger (running as the schema owner) accepts a record
only if it is the stream's next one (sequence, previous hash, recomputed hash, MAC when the floor
holds the table's key). A record shipped again is skipped; anything else is refused and recorded
in ``floor_alarms`` (with a ``NOTIFY floor_alarm``), so a gap, a fork or a forged record is seen
centrally even though the station's insert does not fail. Updates, deletes and truncation are
refused by trigger for every role, on top of the stations' INSERT-only grants.
"""

from __future__ import annotations

from typing import Any

from psycopg import sql

from dealerassist.storage.chain import GENESIS_HASH

STATION_ROLE = "floor_station"
READER_ROLE = "floor_reader"
APPEND_ONLY = ("floor_records", "floor_seats", "floor_cards", "floor_alarms")

TABLES = f"""
CREATE EXTENSION IF NOT EXISTS pgcrypto;
CREATE TABLE IF NOT EXISTS floor_streams (
    stream text PRIMARY KEY,
    head_seq bigint NOT NULL DEFAULT 0,
    head_hash text NOT NULL DEFAULT '{GENESIS_HASH}',
    tables text[] NOT NULL DEFAULT '{{}}',
    received_at timestamptz
);
CREATE TABLE IF NOT EXISTS floor_records (
    stream text NOT NULL,
    seq bigint NOT NULL,
    recorded_at text NOT NULL,
    at timestamptz NOT NULL,
    table_id text NOT NULL,
    kind text NOT NULL,
    round_id bigint,
    body text NOT NULL,
    prev_hash text NOT NULL,
    hash text NOT NULL,
    key_id text,
    mac text,
    actor text,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream, seq)
);
CREATE INDEX IF NOT EXISTS floor_records_table_at ON floor_records (table_id, at);
CREATE INDEX IF NOT EXISTS floor_records_at ON floor_records (at);
CREATE INDEX IF NOT EXISTS floor_records_kind_at ON floor_records (kind, at);
CREATE INDEX IF NOT EXISTS floor_records_round ON floor_records (table_id, round_id);
CREATE INDEX IF NOT EXISTS floor_records_actor_at ON floor_records (actor, at) WHERE actor IS NOT NULL;
CREATE TABLE IF NOT EXISTS floor_seats (
    seat smallint NOT NULL,
    at timestamptz NOT NULL,
    table_id text NOT NULL,
    round_id bigint NOT NULL,
    stream text NOT NULL,
    seq bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS floor_seats_seat_at ON floor_seats (seat, at);
CREATE INDEX IF NOT EXISTS floor_seats_table_seat_at ON floor_seats (table_id, seat, at);
CREATE TABLE IF NOT EXISTS floor_cards (
    card text NOT NULL,
    at timestamptz NOT NULL,
    table_id text NOT NULL,
    round_id bigint NOT NULL,
    stream text NOT NULL,
    seq bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS floor_cards_card_at ON floor_cards (card, at);
CREATE TABLE IF NOT EXISTS floor_alarms (
    id bigserial PRIMARY KEY,
    stream text NOT NULL,
    seq bigint NOT NULL,
    table_id text NOT NULL,
    problem text NOT NULL,
    detail text NOT NULL,
    raised_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (stream, seq, problem)
);
CREATE TABLE IF NOT EXISTS floor_keys (
    key_id text PRIMARY KEY,
    table_id text NOT NULL,
    secret bytea NOT NULL
);
"""

FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION floor_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the floor store is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE OR REPLACE FUNCTION floor_refuse(r floor_records, problem text, detail text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    INSERT INTO floor_alarms (stream, seq, table_id, problem, detail)
    VALUES (r.stream, r.seq, r.table_id, problem, detail) ON CONFLICT DO NOTHING;
    PERFORM pg_notify('floor_alarm', r.stream || ' ' || r.seq || ' ' || problem);
END $$;

CREATE OR REPLACE FUNCTION floor_ingest() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    head floor_streams%ROWTYPE;
    have text;
    secret bytea;
    event jsonb;
BEGIN
    INSERT INTO floor_streams (stream) VALUES (NEW.stream) ON CONFLICT DO NOTHING;
    SELECT * INTO head FROM floor_streams WHERE stream = NEW.stream FOR UPDATE;
    IF NEW.seq <= head.head_seq THEN
        SELECT hash INTO have FROM floor_records WHERE stream = NEW.stream AND seq = NEW.seq;
        IF have = NEW.hash THEN
            RETURN NULL;  -- shipped again after a lost acknowledgement: already here
        END IF;
        PERFORM floor_refuse(NEW, 'fork', format('record %s differs from the floor copy', NEW.seq));
        RETURN NULL;
    END IF;
    IF NEW.seq > head.head_seq + 1 THEN
        PERFORM floor_refuse(NEW, 'gap', format('record %s arrived after %s: records %s..%s missing',
            NEW.seq, head.head_seq, head.head_seq + 1, NEW.seq - 1));
        RETURN NULL;
    END IF;
    IF NEW.prev_hash IS DISTINCT FROM head.head_hash THEN
        PERFORM floor_refuse(NEW, 'fork', format('record %s does not link to floor record %s',
            NEW.seq, head.head_seq));
        RETURN NULL;
    END IF;
    IF NEW.recorded_at !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$' OR NEW.hash IS DISTINCT FROM
        encode(sha256(convert_to('{"event":' || NEW.body || ',"prev_hash":"' || NEW.prev_hash
            || '","recorded_at":"' || NEW.recorded_at || '","seq":' || NEW.seq || '}', 'UTF8')), 'hex')
    THEN
        PERFORM floor_refuse(NEW, 'hash', format('record %s does not match its hash', NEW.seq));
        RETURN NULL;
    END IF;
    event := NEW.body::jsonb;
    IF event->>'table' IS DISTINCT FROM NEW.table_id OR event->>'kind' IS DISTINCT FROM NEW.kind
        OR (event->>'round_id')::bigint IS DISTINCT FROM NEW.round_id THEN
        PERFORM floor_refuse(NEW, 'columns', format('record %s: columns disagree with its event', NEW.seq));
        RETURN NULL;
    END IF;
    IF EXISTS (SELECT 1 FROM floor_keys WHERE table_id = NEW.table_id) THEN
        SELECT k.secret INTO secret FROM floor_keys k
        WHERE k.key_id = NEW.key_id AND k.table_id = NEW.table_id;
        IF secret IS NULL OR NEW.mac IS DISTINCT FROM
            encode(hmac(convert_to(NEW.key_id || ':' || NEW.hash, 'UTF8'), secret, 'sha256'), 'hex') THEN
            PERFORM floor_refuse(NEW, 'mac', format('record %s: MAC missing or wrong for %s',
                NEW.seq, NEW.table_id));
            RETURN NULL;
        END IF;
    END IF;
    NEW.at := NEW.recorded_at::timestamptz;
    NEW.actor := event->>'user';
    NEW.received_at := clock_timestamp();
    UPDATE floor_streams SET head_seq = NEW.seq, head_hash = NEW.hash, received_at = NEW.received_at,
        tables = CASE WHEN NEW.table_id = ANY(tables) THEN tables ELSE tables || NEW.table_id END
    WHERE stream = NEW.stream;
    IF NEW.kind IN ('round-settled', 'round-voided') THEN
        INSERT INTO floor_seats (seat, at, table_id, round_id, stream, seq)
        SELECT DISTINCT (r->>'seat')::smallint, NEW.at, NEW.table_id, NEW.round_id, NEW.stream, NEW.seq
        FROM jsonb_array_elements(event->'results') r WHERE r->>'seat' ~ '^[0-9]+$';
    ELSIF NEW.kind = 'card-dealt' THEN
        INSERT INTO floor_cards (card, at, table_id, round_id, stream, seq)
        VALUES (event->>'card', NEW.at, NEW.table_id, NEW.round_id, NEW.stream, NEW.seq);
    END IF;
    RETURN NEW;
END $$;
"""


def _trigger(name: str, table: str, when: str, each: str, function: str) -> str:
    return (
        f"DROP TRIGGER IF EXISTS {name} ON {table}; "
        f"CREATE TRIGGER {name} {when} ON {table} FOR EACH {each} EXECUTE FUNCTION {function}();"
    )


def install(conn: Any) -> None:
    """Create (or bring up to date) the floor schema and the two group roles; idempotent."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('dealerassist floor schema'))")
        conn.execute(TABLES)
        conn.execute(FUNCTIONS)
        conn.execute(
            _trigger("floor_records_ingest", "floor_records", "BEFORE INSERT", "ROW", "floor_ingest")
        )
        for table in APPEND_ONLY:
            conn.execute(
                _trigger(f"{table}_no_change", table, "BEFORE UPDATE OR DELETE", "ROW", "floor_append_only")
            )
            conn.execute(
                _trigger(f"{table}_no_truncate", table, "BEFORE TRUNCATE", "STATEMENT", "floor_append_only")
            )
        for role in (STATION_ROLE, READER_ROLE):
            exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
            if not exists:
                conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(role)))
        conn.execute(
            "REVOKE ALL ON floor_streams, floor_records, floor_seats, floor_cards, floor_alarms, floor_keys "
            "FROM PUBLIC"
        )
        conn.execute("REVOKE ALL ON FUNCTION floor_refuse(floor_records, text, text) FROM PUBLIC")
        conn.execute(f"GRANT INSERT ON floor_records TO {STATION_ROLE}")
        conn.execute(f"GRANT SELECT ON floor_streams TO {STATION_ROLE}")
        conn.execute(
            "GRANT SELECT ON floor_streams, floor_records, floor_seats, floor_cards, floor_alarms "
            f"TO {READER_ROLE}"
        )


def add_station(conn: Any, role: str) -> None:
    """A login role for one station, member of ``floor_station`` (its password is set apart)."""
    with conn.transaction():
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(STATION_ROLE), sql.Identifier(role)))


def add_keys(conn: Any, table: str, keys: list[tuple[str, bytes]]) -> int:
    """Give the floor a table's keys so ingest checks MACs; returns how many were new."""
    added = 0
    with conn.transaction():
        for kid, secret in keys:
            added += conn.execute(
                "INSERT INTO floor_keys (key_id, table_id, secret) VALUES (%s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                (kid, table, secret),
            ).rowcount
    return added
