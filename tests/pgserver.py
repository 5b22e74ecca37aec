"""A throwaway PostgreSQL server for the tests and the benchmarks (test tooling, not in the package).

Debian's server binaries (``/usr/lib/postgresql/<version>/bin``) run ``initdb`` into a temporary
directory and ``pg_ctl start`` on a free loopback port with the socket in that directory. As root
the server must run as the ``postgres`` user, so the directory is handed to it and every command
goes through ``runuser``. ``stop()`` kills it and removes everything; ``restart()`` keeps the data
(to test a lost and recovered link).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

from dealerassist.errors import DealerAssistError


class PostgresUnavailable(DealerAssistError):
    """No PostgreSQL server binaries here, or the server would not start."""


def _bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if not found:
        raise PostgresUnavailable("no PostgreSQL server in /usr/lib/postgresql (apt-get install postgresql)")
    return Path(found[-1]).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ThrowawayPostgres:
    """``with ThrowawayPostgres() as pg: pg.url`` — a private server that vanishes afterwards.

    ``durable=False`` turns off fsync for quick tests; the benchmark keeps the default (durable).
    """

    def __init__(self, *, durable: bool = True, max_connections: int = 200) -> None:
        self.bin = _bin_dir()
        self.durable = durable
        self.max_connections = max_connections
        self.root = Path(tempfile.mkdtemp(prefix="da-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        self.root.chmod(0o700)
        self.started = False

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self._as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PostgresUnavailable(f"{args[0]} failed: {exc}") from None
        if done.returncode != 0:
            raise PostgresUnavailable(f"{args[0]} failed: {done.stderr.strip() or done.stdout.strip()}")

    def start(self) -> ThrowawayPostgres:
        if not self.data.exists():
            self._run(
                "initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"
            )
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
        options += f" -c max_connections={self.max_connections}"
        if not self.durable:
            options += " -c fsync=off -c full_page_writes=off"
        self._run(
            "pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "server.log"), "-w", "start"
        )
        self.started = True
        return self

    def kill(self) -> None:
        """Stop the server at once (the link drops) but keep the data for ``start()``."""
        if self.started:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
            self.started = False

    def stop(self) -> None:
        try:
            self.kill()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> ThrowawayPostgres:
        try:
            return self.start()
        except BaseException:
            self.stop()  # __exit__ will not run: remove the data directory a failed start left
            raise

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
