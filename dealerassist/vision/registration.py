"""Where the camera looks on the layout: ArUco registration, manual calibration and zones.

Zones are polygons in layout units (millimetres) from the table file's ``[vision.zones]``; the
homography maps image pixels onto the layout so a card's centre falls into a zone. Four ArUco
markers printed at known layout positions (``[vision.markers]``, id -> centre) give the homography
and are checked again on later frames, so a bumped camera is noticed; ``vision calibrate`` stores
a four-point homography as the fallback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from dealerassist.errors import ConfigError, DealerAssistError

ZONE_NAME = re.compile(r"^(dealer|fold|seat-[1-7])$")
MARKER_DICTIONARY = cv2.aruco.DICT_4X4_50
MOVED_PX = 4.0  # a marker this far from where it was means the camera moved


class RegistrationError(DealerAssistError):
    """The camera cannot be related to the layout (markers missing, bad points, bad file)."""


@dataclass(frozen=True)
class Zones:
    """Named layout polygons (layout units)."""

    polygons: Mapping[str, np.ndarray]

    @classmethod
    def from_config(cls, vision: Mapping[str, Any], source: str) -> Zones:
        raw = vision.get("zones")
        if raw is None:
            raise ConfigError(
                source,
                "vision.zones",
                "missing: add a [vision.zones] table, a line a zone in layout units, "
                "e.g. seat-1 = [[0, 0], [120, 0], [120, 90], [0, 90]]",
            )
        if not isinstance(raw, Mapping) or not raw:
            raise ConfigError(source, "vision.zones", "must name at least one zone: name = [[x, y], ...]")
        polygons = {}
        for name, points in raw.items():
            key = f"vision.zones.{name}"
            if not ZONE_NAME.match(str(name)):
                raise ConfigError(source, key, "zone names are dealer, fold or seat-1 .. seat-7")
            try:
                poly = np.array(points, dtype=np.float64)
            except (TypeError, ValueError):
                raise ConfigError(source, key, f"must be a list of [x, y] points, got {points!r}") from None
            if poly.ndim != 2 or poly.shape[1] != 2 or len(poly) < 3 or not np.isfinite(poly).all():
                raise ConfigError(source, key, "must be at least three [x, y] points")
            polygons[str(name)] = poly
        return cls(polygons)

    def zone_of(self, layout_point: np.ndarray) -> str | None:
        """The zone holding a layout point (the first listed if zones overlap)."""
        x, y = float(layout_point[0]), float(layout_point[1])
        for name, poly in self.polygons.items():
            if cv2.pointPolygonTest(poly.astype(np.float32), (x, y), False) >= 0:
                return name
        return None


def marker_layout(vision: Mapping[str, Any], source: str) -> dict[int, np.ndarray]:
    """``[vision.markers]``: marker id -> centre on the layout; four are needed."""
    raw = vision.get("markers", {})
    if not isinstance(raw, Mapping):
        raise ConfigError(source, "vision.markers", "must be a table: id = [x, y]")
    markers = {}
    for key, point in raw.items():
        if not str(key).isdigit() or int(key) >= 50:
            raise ConfigError(source, f"vision.markers.{key}", "marker ids are 0..49 (ArUco DICT_4X4_50)")
        numbers = isinstance(point, list) and all(isinstance(v, int | float) for v in point)
        if not numbers or len(point) != 2:
            raise ConfigError(source, f"vision.markers.{key}", f"must be [x, y], got {point!r}")
        markers[int(key)] = np.array(point, dtype=np.float64)
    if markers and len(markers) < 4:
        raise ConfigError(source, "vision.markers", f"needs four markers, got {len(markers)}")
    return markers


def find_markers(frame: np.ndarray) -> dict[int, np.ndarray]:
    """ArUco marker centres seen in a frame, by id."""
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(MARKER_DICTIONARY))
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).mean(axis=0) for i, c in zip(ids.ravel(), corners, strict=True)}


def homography(image_points: np.ndarray, layout_points: np.ndarray) -> np.ndarray:
    """Image -> layout homography from four (or more) matching points; refuses degenerate sets."""
    image_points = np.asarray(image_points, np.float64).reshape(-1, 2)
    layout_points = np.asarray(layout_points, np.float64).reshape(-1, 2)
    if len(image_points) < 4 or len(image_points) != len(layout_points):
        raise RegistrationError(
            f"need four image points and four layout points, got {len(image_points)} and {len(layout_points)}"
        )
    for name, pts in (("image", image_points), ("layout", layout_points)):
        if abs(cv2.contourArea(cv2.convexHull(pts.astype(np.float32)))) < 1.0:
            raise RegistrationError(f"the four {name} points are on one line or repeat: no homography")
    matrix, _ = cv2.findHomography(image_points, layout_points, 0)
    if matrix is None or not np.isfinite(matrix).all():
        raise RegistrationError("these points give no homography")
    return matrix


def to_layout(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, matrix).reshape(-1, 2)


def save_calibration(
    path: str | Path, matrix: np.ndarray, image_points: np.ndarray, layout_points: np.ndarray, frame: str = ""
) -> None:
    data = {
        "homography": np.asarray(matrix).tolist(),
        "image_points": np.asarray(image_points).tolist(),
        "layout_points": np.asarray(layout_points).tolist(),
        "frame": frame,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    Path(path).write_text(json.dumps(data, indent=1) + "\n")


def load_calibration(path: str | Path) -> np.ndarray:
    try:
        data = json.loads(Path(path).read_text())
        matrix = np.array(data["homography"], dtype=np.float64)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        problem = f"not a calibration made by 'dealerassist vision calibrate' ({exc})"
        raise RegistrationError(f"{path}: {problem}") from None
    if matrix.shape != (3, 3) or not np.isfinite(matrix).all():
        raise RegistrationError(f"{path}: homography must be a 3x3 matrix of numbers")
    return matrix


class LayoutRegistration:
    """Keeps the image -> layout homography current from markers, or a stored calibration."""

    def __init__(self, markers: Mapping[int, np.ndarray], calibration: np.ndarray | None = None) -> None:
        self.markers = dict(markers)
        self.matrix = calibration
        self.source = "calibration" if calibration is not None else "none"
        self.seen: dict[int, np.ndarray] = {}

    def update(self, frame: np.ndarray) -> str:
        """Look for the markers; returns "registered", "moved" (re-registered), "kept" or "none"."""
        found = {i: p for i, p in find_markers(frame).items() if i in self.markers} if self.markers else {}
        if len(found) < 4:
            return "kept" if self.matrix is not None else "none"
        if self.seen and not any(
            float(np.linalg.norm(found[i] - self.seen[i])) > MOVED_PX for i in found if i in self.seen
        ):
            return "kept"
        ids = sorted(found)
        self.matrix = homography(np.array([found[i] for i in ids]), np.array([self.markers[i] for i in ids]))
        status = "moved" if self.seen else "registered"
        self.seen, self.source = found, "markers"
        return status

    def zone_of(self, zones: Zones | None, image_point: np.ndarray) -> str | None:
        if zones is None or self.matrix is None:
            return None
        return zones.zone_of(to_layout(self.matrix, image_point)[0])
