"""One table's vision: frames in, zone-tagged sightings and stable card events out."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dealerassist.events import Event
from dealerassist.vision.camera import CameraLink
from dealerassist.vision.reader import CardReader
from dealerassist.vision.registration import LayoutRegistration, Zones
from dealerassist.vision.sighting import CardSighting
from dealerassist.vision.temporal import CardStabiliser


class VisionPipeline:
    """Reader + layout registration + zones + stabiliser for one table."""

    def __init__(
        self, reader: CardReader, registration: LayoutRegistration, zones: Zones, stabiliser: CardStabiliser
    ) -> None:
        self.reader = reader
        self.registration = registration
        self.zones = zones
        self.stabiliser = stabiliser

    def sightings(self, frame: np.ndarray) -> list[CardSighting]:
        """Cards in this frame, each placed in its zone (None outside every zone)."""
        self.registration.update(frame)
        found = self.reader.read(frame)
        for sighting in found:
            sighting.zone = self.registration.zone_of(self.zones, sighting.centre)
        return found

    def process(self, frame: np.ndarray) -> list[Event]:
        return self.stabiliser.update(frame, self.sightings(frame))

    def run(self, link: CameraLink, on_event: Callable[[Event], None], max_frames: int | None = None) -> int:
        """Read frames from the link until it ends; returns the number of frames processed."""
        count = 0
        for frame in link.frames():
            for event in self.process(frame):
                on_event(event)
            count += 1
            if max_frames is not None and count >= max_frames:
                link.stop()
        return count
