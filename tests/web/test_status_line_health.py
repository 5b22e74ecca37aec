"""The status page shows a shoe's line trouble counts, as the station's probe reports them."""

from __future__ import annotations

from pathlib import Path

from dashboard_fixtures import Dashboard

from dealerassist.station.station import Station
from firmware_bridge.shoe.driver import ShoeReader


def test_the_shoe_row_shows_naks_refusals_and_reconnects(dash: Dashboard, tmp_path: Path) -> None:
    reader = ShoeReader("socket://127.0.0.1:9", "tcp-1", lambda event: None)
    for trouble in ("naks", "naks", "refusals", "reconnects"):
        reader.health.note(trouble)
    station = Station([], tmp_path)
    station.shoes["tcp-1"] = reader
    dash.runtime.devices.update(station.device_probes())
    page = dash.client("sam").get("/status/panel").get_data(as_text=True)
    row = page.split('data-device="shoe"', 1)[1].split("</tr>", 1)[0]
    for figure in ("naks: 2", "refusals: 1", "reconnects: 1", "discarded: 0", "per minute: 4"):
        assert f'<span class="chip">{figure}</span>' in row
