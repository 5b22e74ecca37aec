"""A configured camera through the station: a video file of the synthetic layout is read by the
real vision pipeline; face-up cards reach the log at their positions (a spot the table lacks is
refused and the camera goes on), backs and the fold area do not, and the end of the video is a
camera link going down (a file stands in for a camera that stops)."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from dealerassist.simulation.camera import demo_vision_section, load_demo_deck
from dealerassist.simulation.layout import render_layout
from dealerassist.station.station import Station
from dealerassist.station.tables import check_table
from dealerassist.tablefiles.tables import table_from_mapping
from tests.station.helpers import table_data, wait_for


@pytest.fixture(scope="module")
def deck_and_design() -> tuple:
    said: list[str] = []
    loaded = load_demo_deck(said.append)
    assert loaded is not None, said
    return loaded


def _video(path: Path, design: dict, layout: dict, frames: int) -> Path:
    frame = render_layout(design, layout)
    writer = cv2.VideoWriter(
        str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (frame.shape[1], frame.shape[0])
    )
    for _ in range(frames):
        writer.write(frame)
    writer.release()
    return path


def test_camera_reads_reach_the_log_at_their_positions(tmp_path: Path, deck_and_design: tuple) -> None:
    model, design = deck_and_design
    deck_file = tmp_path / "deck.npz"
    model.save(deck_file)
    layout = {
        "dealer": [("KD", True), ("4C", False)],
        "seat-2": [("AS", True), ("9H", True)],
        "fold": [("QS", True)],
        "seat-6": [("7H", True)],  # a spot this five-seat table does not have
    }
    video = _video(tmp_path / "table.avi", design, layout, frames=7)
    data = table_data("three-card-poker", None)
    data["table"]["seats"] = 5
    data["devices"]["camera"] = {"url": str(video)}
    data["vision"] = {**demo_vision_section(), "deck": str(deck_file)}
    table = check_table(table_from_mapping(data, str(tmp_path / "tcp.toml")))
    station = Station([table], tmp_path / "data")
    station.start()
    try:
        camera = station.cameras["tcp-1"]
        wait_for(lambda: camera.up is False and camera.frames >= 7, timeout=60, what="the whole video read")
        records = [r.event for r in station.log.records(table="tcp-1")]
    finally:
        station.stop()
    reads = {(e.position, e.card.code) for e in records if e.kind == "card-read" and e.source == "camera"}
    assert reads == {("dealer", "KD"), ("seat-2", "AS"), ("seat-2", "9H")}
    refused = [e for e in records if e.kind == "refused"]
    assert [(e.input_kind, e.input["position"], e.input["card"]) for e in refused] == [
        ("card-read", "seat-6", "7H")
    ]
    assert "seats 1..5" in refused[0].message  # logged as refused; the camera went on reading
    links = [e.up for e in records if e.kind == "device-link" and e.device == "camera"]
    assert links[:2] == [True, False]  # the file ended; the link then retries with back-off
    snapshots = [e.snapshot for e in records if e.kind == "card-read"]
    assert all((tmp_path / "data" / "snapshots" / name).is_file() for name in snapshots)
