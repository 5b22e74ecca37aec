"""The station's dashboard: the web app over the running pit, plus ``/healthz`` for the machine.

``/healthz`` (the dashboard's own, extended) needs no login, since systemd, a container runtime or
a load balancer asks it: it shows per table which device links are up and whether the event log
answers, and nothing about money or cards. It answers 200 when everything is up and 503
otherwise, with the same JSON body.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from dealerassist.station.station import Station


def build_dashboard(
    station: Station, *, secure_cookies: bool = False, trusted_proxies: Sequence[str] = ()
) -> Any:
    """The Flask app for a started station (accounts in the station's data directory).

    The trusted proxies are those given here (``run --trusted-proxy``) and those the table files
    name (``[dashboard] trusted_proxies``)."""
    from flask import jsonify

    from dealerassist.floor.config import station_floor
    from dealerassist.storage.eventlog import EventLog
    from dealerassist.web.app import create_app
    from dealerassist.web.users import UserStore

    users = UserStore(station.users_path)
    proxies = {*trusted_proxies, *(a for t in station.tables for a in t.trusted_proxies)}
    reader = EventLog(station.db_path, readonly=True)  # surveillance reads never write
    station.on_stop(reader.close)
    app = create_app(
        pit=station.pit,
        log=station.log,
        progressive=station.controllers or None,
        users=users,
        tables={t.table_id: t.config for t in station.tables},
        devices=station.device_probes(),
        config={
            "SNAPSHOT_DIR": str(station.snapshot_dir),
            "SESSION_COOKIE_SECURE": secure_cookies,
            "TRUSTED_PROXIES": sorted(proxies),
        },
        reader=reader,
        floor=station_floor(station.tables),
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


# Threads for requests other than live streams (pages, panels, actions) on top of one per stream.
SPARE_THREADS = 16
# A stream whose browser stops reading holds at most this much unsent output before its thread
# waits (and its fan-out queue fills, which drops it): memory per stalled browser stays bounded.
OUTPUT_HIGH_WATERMARK = 64 * 1024


class DashboardServer:
    """The dashboard on waitress, a production WSGI server, in a thread of the calling process.

    The tables, devices and the dashboard share one process, so the server must run inside it (a
    pre-forking server such as gunicorn would run the app in other processes). Waitress reads
    requests and writes responses on one event loop and runs the app on a fixed pool of threads:
    an open live stream holds a thread, idle keep-alive connections hold none, and a browser that
    stops reading blocks only its own thread. The pool is sized from the dashboard's stream cap, so
    a full house of streams still leaves threads for pages and actions.
    """

    def __init__(self, app: Any, host: str, port: int) -> None:
        """Raises ``OSError`` when the address cannot be bound."""
        from waitress.server import create_server

        if not 0 <= port <= 65535:  # socket.bind would raise OverflowError, a traceback for a typo
            raise OSError(f"port {port} is not 0-65535")
        runtime = app.extensions.get("dealerassist")
        streams = runtime.fanout.total if runtime is not None else 64
        self.server = create_server(
            app,
            host=host,
            port=port,
            threads=streams + SPARE_THREADS,
            connection_limit=streams + 4 * SPARE_THREADS,
            outbuf_high_watermark=OUTPUT_HIGH_WATERMARK,
            outbuf_overflow=OUTPUT_HIGH_WATERMARK,
            channel_timeout=60,
            ident="dealerassist",
            # The app's own TrustedProxies middleware decides whose X-Forwarded-* to believe
            # (configured by --trusted-proxy); waitress must pass the headers through untouched.
            clear_untrusted_proxy_headers=False,
        )
        self.app = app
        self.host = host
        self.port = int(self.server.effective_port)
        self._fanout = runtime.fanout if runtime is not None else None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="dashboard", daemon=True)

    def _serve(self) -> None:
        """Waitress's event loop, a turn at a time so ``stop`` can end it from another thread; the
        sockets are closed here, by the thread that polls them."""
        from waitress import wasyncore

        server = self.server
        while not self._stopping.is_set():
            server.asyncore.loop(timeout=1.0, map=server._map, use_poll=True, count=1)
        server.task_dispatcher.shutdown(timeout=5)
        for channel in list(server._map.values()):
            if channel is server:  # the listening socket (the server's own close takes the pipe too)
                wasyncore.dispatcher.close(server)
            elif channel is not server.trigger:
                channel.close()
        # The wake-up pipe goes last, and only once no request thread is left to pull it.
        if not server.task_dispatcher.threads:
            server.trigger.close()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Ends the live streams, then the server (within a few seconds)."""
        if self._fanout is not None:
            self._fanout.end_all()
        self._stopping.set()
        if self._thread.is_alive():
            try:
                self.server.pull_trigger()  # wake the loop now rather than at its next one-second turn
            except OSError:  # the loop closed its sockets already: nothing left to wake
                pass
        self._thread.join(timeout=10)

    shutdown = stop

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}/"
