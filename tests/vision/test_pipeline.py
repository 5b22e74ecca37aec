"""End to end: the synthetic camera over a registered layout, through the link, reader and stabiliser."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from dealerassist.core.cards import Card
from dealerassist.events import CardRead, CardRemoved, DeviceLink, Event
from dealerassist.simulation.layout import DEMO_MARKERS, DEMO_ZONES, render_layout
from dealerassist.vision.camera import CameraLink
from dealerassist.vision.pipeline import VisionPipeline
from dealerassist.vision.registration import LayoutRegistration, Zones, marker_layout
from dealerassist.vision.temporal import CardStabiliser

VISION = {"markers": {str(k): list(v) for k, v in DEMO_MARKERS.items()}, "zones": DEMO_ZONES}


class ScriptedCamera:
    """Shows each layout of a script (frame count, cards by zone) for its count of frames with a
    little sensor noise, then delivers nothing, like a camera that stopped."""

    url = "synthetic://table"

    def __init__(
        self, design: Mapping[str, np.ndarray], script: Sequence[tuple[int, Mapping[str, list]]]
    ) -> None:
        layouts = [render_layout(design, cards) for _, cards in script]
        self.frames = iter([layouts[i] for i, (count, _) in enumerate(script) for _ in range(count)])
        self.rng = np.random.default_rng(0)

    def read(self) -> np.ndarray | None:
        frame = next(self.frames, None)
        if frame is None:
            return None
        noisy = frame.astype(np.float32) + self.rng.normal(0, 2.0, frame.shape)
        return np.clip(noisy, 0, 255).astype(np.uint8)

    def close(self) -> None:
        self.frames = iter([])


def test_a_dealt_round_becomes_card_events_in_zones(reader, design, tmp_path: Path) -> None:
    script = [
        (3, {"dealer": [("9D", False)], "seat-3": [("AS", True)]}),
        (3, {"dealer": [("9D", True)], "seat-3": [("AS", True)]}),  # hole card turned over
        (3, {"dealer": [("9D", True)]}),  # seat 3's card picked up
    ]
    source = ScriptedCamera(design, script)
    events: list[Event] = []
    link = CameraLink(
        "tcp-1", lambda: source, events.append, url=source.url, sleep=lambda s: None, max_reopen=0
    )
    pipeline = VisionPipeline(
        reader,
        LayoutRegistration(marker_layout(VISION, "t.toml")),
        Zones.from_config(VISION, "t.toml"),
        CardStabiliser("tcp-1", tmp_path / "snaps", stable_frames=2, missing_frames=2),
    )
    assert pipeline.run(link, events.append) == 9
    summary = [
        (
            type(e).__name__,
            getattr(e, "position", None),
            getattr(e, "card", None),
            getattr(e, "face_up", None),
        )
        for e in events
        if isinstance(e, CardRead | CardRemoved)
    ]
    assert ("CardRead", "dealer", None, False) in summary
    assert ("CardRead", "seat-3", Card.parse("AS"), True) in summary
    assert ("CardRead", "dealer", Card.parse("9D"), True) in summary
    assert ("CardRemoved", "seat-3", Card.parse("AS"), None) in summary
    assert summary.index(("CardRead", "dealer", None, False)) < summary.index(
        ("CardRead", "dealer", Card.parse("9D"), True)
    )
    links = [(e.up) for e in events if isinstance(e, DeviceLink)]
    assert links == [True, False]  # the script ended: the camera stopped delivering
    for event in events:
        if isinstance(event, CardRead):
            assert (tmp_path / "snaps" / event.snapshot).is_file()
