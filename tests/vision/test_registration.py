"""Layout registration: markers give the homography, a moved camera is noticed, zones place cards."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dealerassist.errors import ConfigError
from dealerassist.simulation.layout import DEMO_MARKERS, DEMO_ZONES, SyntheticCamera, render_layout
from dealerassist.vision.registration import (
    LayoutRegistration,
    RegistrationError,
    Zones,
    find_markers,
    homography,
    load_calibration,
    marker_layout,
    save_calibration,
    to_layout,
)

VISION = {"markers": {str(k): list(v) for k, v in DEMO_MARKERS.items()}, "zones": DEMO_ZONES}


def test_markers_register_the_camera_to_millimetres(design) -> None:
    camera = SyntheticCamera.overhead()
    frame = render_layout(design, {}, camera=camera)
    registration = LayoutRegistration(marker_layout(VISION, "t.toml"))
    assert registration.update(frame) == "registered"
    # A layout point seen through the camera maps back onto itself.
    probe = np.array([[600.0, 500.0], [150.0, 520.0]])
    image = camera.to_image(probe)
    np.testing.assert_allclose(to_layout(registration.matrix, image), probe, atol=3.0)
    assert registration.update(frame) == "kept"


def test_a_bumped_camera_is_noticed_and_re_registered(design) -> None:
    registration = LayoutRegistration(marker_layout(VISION, "t.toml"))
    registration.update(render_layout(design, {}, camera=SyntheticCamera.overhead(keystone=0.04)))
    bumped = SyntheticCamera.overhead(keystone=0.07)
    assert registration.update(render_layout(design, {}, camera=bumped)) == "moved"
    probe = np.array([[900.0, 300.0]])
    np.testing.assert_allclose(to_layout(registration.matrix, bumped.to_image(probe)), probe, atol=3.0)


def test_without_markers_a_stored_calibration_is_kept(design) -> None:
    frame = np.full((720, 1280, 3), 60, np.uint8)
    assert LayoutRegistration(marker_layout(VISION, "t.toml")).update(frame) == "none"
    calibrated = LayoutRegistration({}, np.eye(3))
    assert calibrated.update(frame) == "kept"
    assert calibrated.source == "calibration"


def test_find_markers_reads_the_four_ids(design) -> None:
    found = find_markers(render_layout(design, {}))
    assert sorted(found) == [0, 1, 2, 3]


def test_zones_place_points_and_reject_bad_config() -> None:
    zones = Zones.from_config(VISION, "t.toml")
    assert zones.zone_of(np.array([600.0, 120.0])) == "dealer"
    assert zones.zone_of(np.array([100.0, 500.0])) == "seat-1"
    assert zones.zone_of(np.array([600.0, 300.0])) is None
    with pytest.raises(ConfigError, match=r"vision\.zones\.seat-9: zone names"):
        Zones.from_config({"zones": {"seat-9": [[0, 0], [1, 0], [1, 1]]}}, "t.toml")
    with pytest.raises(ConfigError, match=r"vision\.zones\.dealer: must be at least three"):
        Zones.from_config({"zones": {"dealer": [[0, 0], [1, 0]]}}, "t.toml")
    with pytest.raises(ConfigError, match=r"t\.toml: vision\.zones: missing: add a \[vision\.zones\] table"):
        Zones.from_config({}, "t.toml")
    with pytest.raises(ConfigError, match=r"vision\.zones: must name at least one zone"):
        Zones.from_config({"zones": {}}, "t.toml")


def test_marker_config_errors_name_the_key() -> None:
    with pytest.raises(ConfigError, match=r"vision\.markers\.77: marker ids are 0\.\.49"):
        marker_layout({"markers": {"77": [0, 0]}}, "t.toml")
    with pytest.raises(ConfigError, match=r"vision\.markers\.1: must be \[x, y\]"):
        marker_layout({"markers": {"1": "left"}}, "t.toml")
    with pytest.raises(ConfigError, match="needs four markers, got 2"):
        marker_layout({"markers": {"0": [0, 0], "1": [1, 0]}}, "t.toml")


def test_four_point_calibration_round_trip(tmp_path: Path) -> None:
    image = np.array([[100, 100], [1100, 120], [1150, 650], [80, 600]], float)
    layout = np.array([[0, 0], [1200, 0], [1200, 650], [0, 650]], float)
    matrix = homography(image, layout)
    np.testing.assert_allclose(to_layout(matrix, image), layout, atol=1e-6)
    path = tmp_path / "cal.json"
    save_calibration(path, matrix, image, layout, frame="f.png")
    np.testing.assert_allclose(load_calibration(path), matrix)
    assert json.loads(path.read_text())["frame"] == "f.png"


def test_degenerate_points_and_bad_files_are_refused(tmp_path: Path) -> None:
    line = np.array([[0, 0], [1, 1], [2, 2], [3, 3]], float)
    with pytest.raises(RegistrationError, match="on one line"):
        homography(line, np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float))
    with pytest.raises(RegistrationError, match="need four image points"):
        homography(line[:3], line[:3])
    bad = tmp_path / "cal.json"
    bad.write_text('{"homography": [[1, 2], [3, 4]]}')
    with pytest.raises(RegistrationError, match="3x3"):
        load_calibration(bad)
    with pytest.raises(RegistrationError, match="not a calibration"):
        load_calibration(tmp_path / "missing.json")
