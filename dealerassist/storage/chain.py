"""The hash chain: one definition of a record's canonical bytes, used by append and by verify.

A record's hash is the SHA-256 of the canonical JSON (sorted keys, no spaces, UTF-8, no NaN) of
``{"event", "prev_hash", "recorded_at", "seq"}``. Because the previous hash and the sequence number
are inside what is hashed, editing, deleting, reordering or re-hashing one record breaks the link to
the next one.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

GENESIS_HASH = "0" * 64


def canonical_json(value: Any) -> str:
    """The one text form that is hashed and stored; raises ``ValueError`` for NaN/inf or odd types."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def record_hash(seq: int, recorded_at: str, prev_hash: str, event_json: str) -> str:
    """Hash of one record, given its event already in canonical JSON text.

    The text assembled here is exactly ``canonical_json`` of the four-key record (the keys are in
    sorted order and ``event_json`` is canonical), built by hand so the event is not encoded twice.
    """
    text = (
        f'{{"event":{event_json},"prev_hash":{json.dumps(prev_hash)},'
        f'"recorded_at":{json.dumps(recorded_at)},"seq":{seq}}}'
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
