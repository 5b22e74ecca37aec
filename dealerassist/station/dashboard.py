"""The station's dashboard: the web app over the running pit, plus ``/healthz`` for the machine.

``/healthz`` (the dashboard's own, extended) needs no login, since systemd, a container runtime or
a load balancer asks it: it shows per table which device links are up and whether the event log
answers, and nothing about money or cards. It answers 200 when everything is up and 503
otherwise, with the same JSON body.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from dealerassist.station.station import Station


def build_dashboard(station: Station, *, secure_cookies: bool = False) -> Any:
    """The Flask app for a started station (accounts in the station's data directory)."""
    from flask import jsonify

    from dealerassist.storage.eventlog import EventLog
    from dealerassist.web.app import create_app
    from dealerassist.web.users import UserStore

    users = UserStore(station.users_path)
    reader = EventLog(station.db_path, readonly=True)  # surveillance reads never write
    station.on_stop(reader.close)
    app = create_app(
        pit=station.pit,
        log=station.log,
        progressive=station.controllers or None,
        users=users,
        tables={t.table_id: t.config for t in station.tables},
        devices=station.device_probes(),
        config={"SNAPSHOT_DIR": str(station.snapshot_dir), "SESSION_COOKIE_SECURE": secure_cookies},
        reader=reader,
    )
    station.on_stop(users.close)

    runtime = app.extensions["dealerassist"]

    def healthz() -> Any:
        report = station.health()
        report["last_seq"] = report["log"].get("last_seq")
        report["sse_clients"] = runtime.fanout.client_count
        return jsonify(report), 200 if report["ok"] else 503

    # The dashboard's own /healthz only knows the log; a station knows its device links too.
    if "pages.healthz" in app.view_functions:
        app.view_functions["pages.healthz"] = healthz
    else:
        app.add_url_rule("/healthz", "healthz", healthz)
    return app


class DashboardServer:
    """A threaded WSGI server for the dashboard (one thread per browser, as the live streams need)."""

    def __init__(self, app: Any, host: str, port: int) -> None:
        """Raises ``OSError`` when the address cannot be bound (werkzeug would exit the process)."""
        from werkzeug.serving import make_server

        if not 0 <= port <= 65535:  # socket.bind would raise OverflowError, a traceback for a typo
            raise OSError(f"port {port} is not 0-65535")
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
        try:
            self.server = make_server(host, port, app, threaded=True)
        except SystemExit:
            raise OSError(f"cannot bind {host}:{port}") from None
        self.host = host
        self.port = self.server.port
        self._thread = threading.Thread(target=self.server.serve_forever, name="dashboard", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}/"
