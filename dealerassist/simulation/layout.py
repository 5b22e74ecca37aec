"""A synthetic overhead camera over a printed layout, for the demo and for end-to-end tests.

The layout (millimetres) carries four ArUco markers and the zones of a table file; cards of an
enrolled design are drawn into zones, and the camera sees the layout through a mild perspective.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from dealerassist.vision.registration import MARKER_DICTIONARY
from dealerassist.vision.scenes import FRAME_SIZE, paste_card

CARD_MM = (63.0, 88.0)
MARKER_MM = 40.0
SQUARE = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])  # a square's corners about its centre
FELT_BGR = (60, 110, 40)

# A seven-seat semicircle table (1200 x 650 mm) with the dealer's tray side at the top.
LAYOUT_MM = (1200.0, 650.0)
DEMO_MARKERS = {0: (40.0, 40.0), 1: (1160.0, 40.0), 2: (1160.0, 610.0), 3: (40.0, 610.0)}
DEMO_ZONES = {
    "dealer": [[470.0, 60.0], [730.0, 60.0], [730.0, 190.0], [470.0, 190.0]],
    "seat-1": [[90.0, 430.0], [250.0, 430.0], [250.0, 600.0], [90.0, 600.0]],
    "seat-2": [[260.0, 430.0], [420.0, 430.0], [420.0, 600.0], [260.0, 600.0]],
    "seat-3": [[430.0, 430.0], [590.0, 430.0], [590.0, 600.0], [430.0, 600.0]],
    "seat-4": [[600.0, 430.0], [760.0, 430.0], [760.0, 600.0], [600.0, 600.0]],
    "seat-5": [[770.0, 430.0], [930.0, 430.0], [930.0, 600.0], [770.0, 600.0]],
    "seat-6": [[940.0, 430.0], [1100.0, 430.0], [1100.0, 600.0], [940.0, 600.0]],
    "fold": [[880.0, 60.0], [1100.0, 60.0], [1100.0, 190.0], [880.0, 190.0]],
}


@dataclass(frozen=True)
class SyntheticCamera:
    """Layout millimetres -> image pixels: scale, offset and a little keystone."""

    matrix: np.ndarray

    @classmethod
    def overhead(cls, keystone: float = 0.04) -> SyntheticCamera:
        w, h = FRAME_SIZE
        lw, lh = LAYOUT_MM
        src = np.float32([[0, 0], [lw, 0], [lw, lh], [0, lh]])
        inset = keystone * w
        dst = np.float32([[inset, 8], [w - inset, 8], [w - 4, h - 8], [4, h - 8]])
        return cls(cv2.getPerspectiveTransform(src, dst))

    def to_image(self, points: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(
            np.asarray(points, np.float32).reshape(-1, 1, 2), self.matrix
        ).reshape(-1, 2)


def _card_quad_mm(zone: np.ndarray, slot: int) -> np.ndarray:
    """Where the ``slot``-th card of a zone lies: left to right from the zone's top-left, a little spread."""
    x0, y0 = zone.min(axis=0) + 8.0
    x = x0 + slot * CARD_MM[0] * 0.55
    w, h = CARD_MM
    return np.array([[x, y0], [x + w, y0], [x + w, y0 + h], [x, y0 + h]], np.float64)


def render_layout(
    design: Mapping[str, np.ndarray],
    cards: Mapping[str, Sequence[tuple[str, bool]]],
    *,
    markers: Mapping[int, tuple[float, float]] = DEMO_MARKERS,
    camera: SyntheticCamera | None = None,
) -> np.ndarray:
    """One frame: felt, markers, and ``cards`` (demo zone -> [(code, face_up), ...] in dealing order)."""
    camera = camera or SyntheticCamera.overhead()
    w, h = FRAME_SIZE
    canvas = np.full((h, w, 3), FELT_BGR, np.float32)
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICTIONARY)
    for marker_id, (mx, my) in markers.items():
        pattern = cv2.aruco.generateImageMarker(dictionary, marker_id, 120)
        pattern = cv2.copyMakeBorder(pattern, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255)
        half = MARKER_MM / 2 * 160 / 120  # the marker's 120 px and its white border
        quad = camera.to_image(SQUARE * half + (mx, my))
        rgba = cv2.cvtColor(pattern, cv2.COLOR_GRAY2BGRA)
        paste_card(canvas, rgba, quad.astype(np.float64))
    for zone_name, dealt in cards.items():
        for slot, (code, face_up) in enumerate(dealt):
            quad = camera.to_image(_card_quad_mm(np.array(DEMO_ZONES[zone_name]), slot)).astype(np.float64)
            paste_card(canvas, design[code] if face_up else design["back"], quad)
    return np.clip(canvas, 0, 255).astype(np.uint8)
