"""From per-frame sightings to table events: only what stays put for a few frames is reported.

A card in a zone becomes a ``CardRead`` once the same read (card and face) has been seen for
``stable_frames`` frames in a row, with a JPEG snapshot of it for the audit trail (its path relative
to the snapshot folder). A reported card that turns over (a dealer card exposed early) is reported
again; one gone for ``missing_frames`` frames is a ``CardRemoved``. Every event names the card's
track, so the tracker can tell a card read again from another of the same code; track names start
with a token drawn per stabiliser, so a camera restarted mid-round reuses no name the log holds.
"""

from __future__ import annotations

import itertools
import secrets
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from dealerassist.core.cards import Card
from dealerassist.events import CardRead, CardRemoved, Event
from dealerassist.vision.sighting import CardSighting

SNAPSHOT_SIZE = (126, 176)


@dataclass(eq=False)
class _Track:
    name: str
    zone: str
    quad: np.ndarray
    state: tuple[str | None, bool]  # (card, face_up) being counted
    streak: int = 1
    missing: int = 0
    reported: tuple[str | None, bool] | None = None
    confidence: float = 0.0


class CardStabiliser:
    """Turns each frame's sightings (with zones) into CardRead / CardRemoved events."""

    def __init__(
        self, table: str, snapshot_dir: str | Path, *, stable_frames: int = 5, missing_frames: int = 5
    ) -> None:
        if stable_frames < 1 or missing_frames < 1:
            raise ValueError("stable_frames and missing_frames must be at least 1")
        self.table = table
        self.snapshot_dir = Path(snapshot_dir)
        self.stable_frames = stable_frames
        self.missing_frames = missing_frames
        self.tracks: list[_Track] = []
        self._serial = itertools.count(1)
        session = secrets.token_hex(3)
        self._track_names = (f"{table}-{session}-{n}" for n in itertools.count(1))

    def update(self, frame: np.ndarray, sightings: list[CardSighting]) -> list[Event]:
        """The events this frame's sightings make."""
        events: list[Event] = []
        placed = [sighting for sighting in sightings if sighting.zone is not None]
        unmatched = list(self.tracks)
        for sighting, track in zip(placed, self._tracks_of(placed), strict=True):
            state = (sighting.card, sighting.face_up)
            if track is None:
                track = _Track(next(self._track_names), str(sighting.zone), sighting.quad, state)
                track.confidence = sighting.confidence
                self.tracks.append(track)
            else:
                unmatched.remove(track)
                track.quad, track.missing = sighting.quad, 0
                if state[0] is None and track.state[0] is not None and state[1] == track.state[1]:
                    continue  # one frame that could not read a card already read: no news
                if state == track.state:
                    track.streak += 1
                else:
                    track.state, track.streak = state, 1
                track.confidence = sighting.confidence
            if track.streak >= self.stable_frames and track.reported != track.state:
                events.append(self._read_event(frame, track))
        for track in unmatched:
            track.missing += 1
            if track.missing >= self.missing_frames:
                self.tracks.remove(track)
                if track.reported is not None:
                    card = Card.parse(track.reported[0]) if track.reported[0] else None
                    events.append(
                        CardRemoved(
                            table=self.table,
                            source="camera",
                            card=card,
                            position=track.zone,
                            track=track.name,
                        )
                    )
        return events

    def reported(self) -> list[CardSighting]:
        """What is in view as reported: each track's last reported read, where it lies now."""
        return [
            CardSighting(track.reported[0], track.confidence, track.reported[1], track.quad, zone=track.zone)
            for track in self.tracks
            if track.reported is not None
        ]

    def _tracks_of(self, sightings: list[CardSighting]) -> list[_Track | None]:
        """Each sighting's track, or None for a card new in view: one in its zone within 0.3 of its
        diagonal. Pairs that agree (the same face, and the same read or none) are taken first, then
        the rest, each nearest first: in a pile a face-down card's track lies a few pixels from the
        card over it, whose sighting must not take it from the lower card's own."""
        pairs = []
        reach = [
            (track.quad.mean(axis=0), 0.3 * float(np.linalg.norm(track.quad[2] - track.quad[0])))
            for track in self.tracks
        ]
        for s, sighting in enumerate(sightings):
            for t, track in enumerate(self.tracks):
                centre, within = reach[t]
                distance = float(np.linalg.norm(centre - sighting.centre))
                if track.zone == sighting.zone and distance < within:
                    agrees = sighting.face_up == track.state[1] and sighting.card in (None, track.state[0])
                    pairs.append((not agrees, distance, s, t))
        chosen: list[_Track | None] = [None] * len(sightings)
        taken: set[int] = set()
        for _, _, s, t in sorted(pairs):
            if chosen[s] is None and t not in taken:
                chosen[s] = self.tracks[t]
                taken.add(t)
        return chosen

    def _read_event(self, frame: np.ndarray, track: _Track) -> CardRead:
        track.reported = track.state
        code, face_up = track.state
        name = f"{self.table}-{next(self._serial):06d}-{track.zone}.jpg"
        self.snapshot_dir.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(
            str(self.snapshot_dir / name), card_snapshot(frame, track.quad), [cv2.IMWRITE_JPEG_QUALITY, 90]
        )
        return CardRead(
            table=self.table,
            source="camera",
            card=Card.parse(code) if code else None,
            face_up=face_up,
            confidence=round(min(max(track.confidence, 0.0), 1.0), 4),
            position=track.zone,
            snapshot=name,
            track=track.name,
        )


def card_snapshot(frame: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card cut out of the frame and turned upright (index corner top-left)."""
    w, h = SNAPSHOT_SIZE
    target = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    matrix = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), target)
    return cv2.warpPerspective(frame, matrix, (w, h), borderMode=cv2.BORDER_REPLICATE)
