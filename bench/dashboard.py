"""Dashboard benchmark: live-update latency to 20 SSE clients, and dealer-view requests per second.

Everything runs on loopback in one process, the way the demo runs a table: a real event log and
tracker, the dashboard on a threaded WSGI server, and N browsers' event streams read by threads.

* SSE latency: for each wager entering the tracker (``pit.handle``), the time until each connected
  client has read that record from its stream. Reported p50/p99 over all (event, client) pairs.
* Dealer view: the time of ``GET /tables/<id>/panel`` (what each live update re-fetches) and of the
  full page, from several concurrent clients; requests per second and p50/p99. The same run also
  measures ``/healthz`` (a bare request through the same server) as the peer the ratio is taken
  against, so the figure says how much the dealer view costs over the server's floor.

Run: ``python bench/dashboard.py [--clients 20 --events 200 --requests 400]`` (bounded counts,
loopback only; a few seconds on two cores).
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dealerassist.commands.bench import percentile
from dealerassist.commands.web import serve_in_thread
from dealerassist.core.tables import TABLES_DIR, load_table
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker.events import RoundOpen, Wager
from dealerassist.tracker.pit import Pit
from dealerassist.web.app import create_app
from dealerassist.web.users import UserStore

TABLE = "tcp-1"
TARGET_P99_MS = 100.0


class Site:
    """A dashboard on a loopback port with one signed-in dealer session."""

    def __init__(self, workdir: Path) -> None:
        users = UserStore(workdir / "users.sqlite3", scrypt_n=2**12)
        users.add("bench", "dealer", "bench-password-1")
        self.log = EventLog(workdir / "log.sqlite3")
        self.pit = Pit(self.log, [load_table(TABLES_DIR / "three-card-poker.toml")])
        # One signed-in session plays every screen: lift the per-session cap on live streams.
        config = {"SSE_HEARTBEAT": 1.0, "SSE_STREAMS_PER_SESSION": 64}
        app = create_app(pit=self.pit, log=self.log, users=users, config=config)
        self.server = serve_in_thread(app, "127.0.0.1", 0)
        self.port = self.server.port
        self.cookie = self._login()

    def _login(self) -> str:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request("GET", "/login")
        response = conn.getresponse()
        page = response.read().decode()
        cookie = response.getheader("Set-Cookie", "").split(";")[0]
        token = re.search(r'name="csrf-token" content="([^"]+)"', page)
        assert token is not None
        body = urllib.parse.urlencode(
            {"name": "bench", "password": "bench-password-1", "csrf_token": token.group(1)}
        )
        conn.request(
            "POST",
            "/login",
            body=body,
            headers={"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"},
        )
        response = conn.getresponse()
        response.read()
        if response.status != 302:
            raise RuntimeError(f"bench login failed: HTTP {response.status}")
        return response.getheader("Set-Cookie", "").split(";")[0]

    def close(self) -> None:
        self.server.shutdown()
        self.log.close()


class StreamClient(threading.Thread):
    """Reads one SSE stream and stamps the arrival time of every record's seq."""

    def __init__(self, site: Site, after: int, expect: int) -> None:
        super().__init__(daemon=True)
        self.site, self.after, self.expect = site, after, expect
        self.arrivals: dict[int, float] = {}
        self.ready = threading.Event()
        self.done = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.site.port, timeout=30)
        conn.request("GET", f"/stream?table={TABLE}&after={self.after}", headers={"Cookie": self.site.cookie})
        response = conn.getresponse()
        self.ready.set()
        seq = None
        while len(self.arrivals) < self.expect:
            line = response.fp.readline()
            if not line:
                break
            if line.startswith(b"id: "):
                seq = int(line[4:])
            elif line.startswith(b"data: ") and seq is not None:
                self.arrivals.setdefault(seq, time.perf_counter())
        conn.close()
        self.done.set()


def sse_latency(site: Site, clients: int, events: int, pace_s: float) -> dict[str, Any]:
    dealer = site.pit
    dealer.handle(TABLE, RoundOpen(table=TABLE, user="bench"))
    start = site.log.last_seq()
    # Each wager causes no output, so record count = event count: clients wait for all of them.
    readers = [StreamClient(site, start, events) for _ in range(clients)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.ready.wait(10)
    deadline = time.monotonic() + 10
    while site.server.app.extensions["dealerassist"].fanout.client_count < clients:
        if time.monotonic() > deadline:
            raise RuntimeError("SSE clients did not all connect")
        time.sleep(0.01)
    entered: dict[int, float] = {}
    for i in range(events):
        seq_before = site.log.last_seq()
        t0 = time.perf_counter()
        dealer.handle(
            TABLE, Wager(table=TABLE, seat=1 + i % 6, bet="ante", amount=500 + 100 * (i % 10), user="bench")
        )
        entered[seq_before + 1] = t0
        time.sleep(pace_s)
    for reader in readers:
        reader.done.wait(30)
    latencies = [
        (reader.arrivals[seq] - t0) * 1000
        for reader in readers
        for seq, t0 in entered.items()
        if seq in reader.arrivals
    ]
    missing = clients * events - len(latencies)
    return {
        "clients": clients,
        "events": events,
        "deliveries": len(latencies),
        "missing": missing,
        "p50_ms": round(percentile(latencies, 50), 2),
        "p99_ms": round(percentile(latencies, 99), 2),
        "max_ms": round(max(latencies), 2) if latencies else None,
    }


def request_rate(site: Site, path: str, total: int, workers: int, warmup: int = 5) -> dict[str, Any]:
    """Timed GETs of ``path`` after ``warmup`` untimed ones (template compilation, caches)."""
    conn = http.client.HTTPConnection("127.0.0.1", site.port, timeout=30)
    for _ in range(warmup):
        conn.request("GET", path, headers={"Cookie": site.cookie})
        conn.getresponse().read()
    conn.close()
    per_worker = total // workers
    timings: list[float] = []
    lock = threading.Lock()
    errors: list[str] = []

    def work() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", site.port, timeout=30)
        mine = []
        for _ in range(per_worker):
            t0 = time.perf_counter()
            conn.request("GET", path, headers={"Cookie": site.cookie})
            response = conn.getresponse()
            response.read()
            mine.append((time.perf_counter() - t0) * 1000)
            if response.status != 200:
                errors.append(f"{path}: HTTP {response.status}")
        conn.close()
        with lock:
            timings.extend(mine)

    threads = [threading.Thread(target=work) for _ in range(workers)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    return {
        "path": path,
        "requests": len(timings),
        "workers": workers,
        "errors": len(errors),
        "rps": round(len(timings) / elapsed, 1),
        "p50_ms": round(statistics.median(timings), 2),
        "p99_ms": round(percentile(timings, 99), 2),
    }


def run(
    clients: int = 20, events: int = 200, requests: int = 400, workers: int = 4, pace_ms: float = 5.0
) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-dashboard-") as tmp:
        site = Site(Path(tmp))
        try:
            sse = sse_latency(site, clients, events, pace_ms / 1000)
            floor = request_rate(site, "/healthz", requests, workers)
            panel = request_rate(site, f"/tables/{TABLE}/panel", requests, workers)
            page = request_rate(site, f"/tables/{TABLE}", requests, workers)
        finally:
            site.close()
    return {
        "sse": sse,
        "dealer_panel": panel,
        "dealer_page": page,
        "healthz_peer": floor,
        "panel_cost_vs_healthz": round(panel["p50_ms"] / floor["p50_ms"], 2) if floor["p50_ms"] else None,
        "target_p99_ms": TARGET_P99_MS,
        "meets_target": panel["p99_ms"] < TARGET_P99_MS and page["p99_ms"] < TARGET_P99_MS,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--clients", type=int, default=20, help="SSE clients (default 20)")
    parser.add_argument("--events", type=int, default=200, help="events entering the tracker (default 200)")
    parser.add_argument(
        "--requests", type=int, default=400, help="dealer-view requests per path (default 400)"
    )
    parser.add_argument("--workers", type=int, default=4, help="concurrent request clients (default 4)")
    parser.add_argument("--pace-ms", type=float, default=5.0, help="gap between events (default 5 ms)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no per-request access log lines
    result = run(args.clients, args.events, args.requests, args.workers, args.pace_ms)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    sse = result["sse"]
    print(
        f"SSE: {sse['clients']} clients x {sse['events']} events: p50 {sse['p50_ms']} ms, "
        f"p99 {sse['p99_ms']} ms, max {sse['max_ms']} ms, missing {sse['missing']}"
    )
    for key in ("healthz_peer", "dealer_panel", "dealer_page"):
        r = result[key]
        print(
            f"GET {r['path']:22} {r['rps']:8} req/s  p50 {r['p50_ms']} ms  p99 {r['p99_ms']} ms  "
            f"({r['workers']} clients, {r['requests']} requests, {r['errors']} errors)"
        )
    print(
        f"dealer panel costs {result['panel_cost_vs_healthz']}x a bare request; "
        f"p99 target {TARGET_P99_MS} ms {'met' if result['meets_target'] else 'MISSED'}"
    )
    return 0 if result["meets_target"] and sse["missing"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
