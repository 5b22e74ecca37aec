"""A table camera wired to the pit: the vision pipeline's events, filtered to what the tracker checks.

The stabiliser reports every card it sees, including backs (nothing to check: the tracker would
only ask a dealer to confirm a card nobody can read) and cards in zones that are not a playing
position (the fold area). Those stay out of the log; face-up reads, removals at positions and the
camera's link changes go in.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dealerassist.errors import DealerAssistError, StorageUnavailable
from dealerassist.events import CardRead, CardRemoved, DeviceLink, Event
from dealerassist.games.base import parse_position

log = logging.getLogger(__name__)


def is_position(zone: str | None) -> bool:
    if zone is None:
        return False
    try:
        parse_position(zone)
    except ValueError:
        return False
    return True


def camera_filter(on_event: Callable[[Event], None]) -> Callable[[Event], None]:
    """Wrap ``on_event`` so only events the tracker can use reach it."""

    def forward(event: Event) -> None:
        if isinstance(event, CardRead) and (event.card is None or not is_position(event.position)):
            return
        if isinstance(event, CardRemoved) and not is_position(event.position):
            return
        on_event(event)

    return forward


def build_pipeline(table: str, vision: Any, source: str, deck_path: Path, snapshot_dir: Path) -> Any:
    """The real vision pipeline for a configured table (deck file, markers or calibration, zones)."""
    from dealerassist.vision.deck import DeckModel
    from dealerassist.vision.pipeline import VisionPipeline
    from dealerassist.vision.reader import CardReader
    from dealerassist.vision.registration import LayoutRegistration, Zones, load_calibration, marker_layout
    from dealerassist.vision.temporal import CardStabiliser

    calibration = None
    if vision.get("calibration"):
        cal = Path(str(vision["calibration"]))
        calibration = load_calibration(cal if cal.is_absolute() else Path(source).parent / cal)
    return VisionPipeline(
        CardReader(DeckModel.load(deck_path)),
        LayoutRegistration(marker_layout(vision, source), calibration),
        Zones.from_config(vision, source),
        CardStabiliser(table, snapshot_dir),
    )


class CameraFeed:
    """A real camera (``cv2.VideoCapture`` URL) read on its own thread into the pit."""

    def __init__(self, table: str, url: str, pipeline: Any, on_event: Callable[[Event], None]) -> None:
        from dealerassist.vision.camera import CameraLink, VideoSource

        self.table = table
        self.url = url
        self.pipeline = pipeline
        self.frames = 0
        self.up: bool | None = None
        forward = camera_filter(on_event)

        def note(event: Event) -> None:
            if isinstance(event, DeviceLink):
                self.up = event.up
            try:
                forward(event)
            except StorageUnavailable:
                pass  # not recorded now (the station says why once); the next frame reads it again
            except DealerAssistError as exc:  # refused and logged by the tracker; the camera goes on
                log.info("camera %s: %s refused: %s", table, event.kind, exc)

        self.link = CameraLink(table, lambda: VideoSource(url), note, url=url)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"camera-{self.table}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        """The pipeline's loop, counting frames as they come for the status page."""
        try:
            for frame in self.link.frames():
                for event in self.pipeline.process(frame):
                    self.link.on_event(event)
                self.frames += 1
        except Exception:
            log.exception("camera %s: the vision pipeline stopped", self.table)
            self.up = False

    def stop(self) -> None:
        self.link.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def status(self) -> dict[str, Any]:
        return {"ok": bool(self.up), "url": self.url, "frames": self.frames}
