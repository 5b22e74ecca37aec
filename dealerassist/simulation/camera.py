"""The demo's overhead camera: the synthetic camera over the layout, read by the real vision pipeline.

Reading one 1280x720 frame takes some 20 ms of CPU (docs/vision.md): five tables' cameras at video
rate would want more than a small machine's cores. The demo therefore looks at checkpoints: the
dealer shows the camera the layout at the moments that matter (the showdown, and a careless turn of
the dealer's hidden card), the synthetic camera renders that layout for a few noisy frames, and the
real registration, reader and stabiliser turn them into ``card-read`` events for the tracker, with
JPEG snapshots for the round timeline. One lock serialises all tables' cameras so they never
compete with the dealers for the CPU.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dealerassist.events import DeviceLink, Event
from dealerassist.station.camera import camera_filter

_CPU = threading.Lock()
STABLE_FRAMES = 2


def demo_vision_section() -> dict[str, Any]:
    """The ``[vision]`` section of the synthetic layout (markers and zones in millimetres)."""
    from dealerassist.simulation.layout import DEMO_MARKERS, DEMO_ZONES

    return {"markers": {str(k): list(v) for k, v in DEMO_MARKERS.items()}, "zones": DEMO_ZONES}


def load_demo_deck(say: Callable[[str], None]) -> tuple[Any, Any] | None:
    """The development deck's shipped deck file and its card images, or None (camera off, with
    the reason said) when either is missing or the deck file is of another reading format.

    The deck file ships enrolled, so the demo starts reading at once: nothing trains here.
    """
    from dealerassist.simulation import artwork
    from dealerassist.vision.deck import DeckFileError, DeckModel, bundled_deck
    from dealerassist.vision.scenes import load_design

    try:
        folder = artwork.shared_cardart() / artwork.TUNING_DESIGN
        model = DeckModel.load(bundled_deck(artwork.TUNING_DESIGN))
    except (artwork.ArtworkError, DeckFileError) as exc:
        say(f"camera: off ({exc})")
        return None
    return model, load_design(folder)


class SyntheticTableCamera:
    """One table's camera: ``look(layout)`` renders it and feeds what the pipeline reads."""

    def __init__(
        self,
        table: str,
        model: Any,
        design: Mapping[str, Any],
        snapshot_dir: Path,
        on_event: Callable[[Event], None],
    ) -> None:
        from dealerassist.vision.pipeline import VisionPipeline
        from dealerassist.vision.reader import CardReader
        from dealerassist.vision.registration import LayoutRegistration, Zones, marker_layout
        from dealerassist.vision.temporal import CardStabiliser

        section = demo_vision_section()
        self.table = table
        self.design = design
        self.zones = frozenset(section["zones"])
        self.pipeline = VisionPipeline(
            CardReader(model),
            LayoutRegistration(marker_layout(section, "<demo layout>")),
            Zones.from_config(section, "<demo layout>"),
            CardStabiliser(table, snapshot_dir, stable_frames=STABLE_FRAMES, missing_frames=1),
        )
        self.on_event = camera_filter(on_event)
        self.frames = 0
        self.reads = 0
        self._raw_on_event = on_event
        self._announced = False

    def look(self, layout: Mapping[str, Sequence[tuple[str, bool]]]) -> int:
        """Show the camera ``layout`` for a few frames; returns how many events reached the tracker."""
        from dealerassist.simulation.layout import render_layout

        if not self._announced:
            self._raw_on_event(
                DeviceLink(
                    table=self.table, device="camera", up=True, detail="synthetic camera", url="synthetic://"
                )
            )
            self._announced = True
        sent = 0
        # The development deck has no joker artwork: a joker is left off the rendered layout.
        drawable = {zone: [c for c in cards if c[0] in self.design] for zone, cards in layout.items()}
        with _CPU:
            frame = render_layout(self.design, drawable)
            events: list[Event] = []
            for _ in range(STABLE_FRAMES):
                events += self.pipeline.process(frame)
                self.frames += 1
        for event in events:
            before = self.reads
            self._count(event)
            self.on_event(event)
            sent += self.reads - before
        return sent

    def _count(self, event: Event) -> None:
        if event.kind == "card-read" and getattr(event, "card", None) is not None:
            self.reads += 1

    def status(self) -> dict[str, Any]:
        return {"ok": True, "url": "synthetic://table", "frames": self.frames, "reads": self.reads}
