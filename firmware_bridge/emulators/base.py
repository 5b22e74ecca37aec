"""The cable and UART side every emulated device shares: pty, TCP or socketpair, unplug and replug.

All device state lives on one I/O thread; the public API hands work to it through ``call`` so a
test thread, the interactive console and the wire never race. With ``baudrate`` set, outgoing
bytes leave no faster than a real line would carry them (10 bits a byte), and ``arrival``
stamps when received bytes would have finished arriving on such a line, which is what the
benchmark compares with the physical minimum.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import queue
import select
import signal
import socket
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")

TICK = 0.01


class DeviceEmulator:
    """Base class: subclasses implement ``on_connect``, ``on_bytes`` and ``on_tick``."""

    def __init__(self, *, baudrate: int | None = None, name: str = "device") -> None:
        self.baudrate = baudrate
        self.name = name
        self.connected = False
        self.plugged = True
        self.bytes_in = 0
        self.bytes_out = 0
        self.bytes_dropped = 0
        self._mode: str | None = None
        self._tcp_addr: tuple[str, int] | None = None
        self._listener: socket.socket | None = None
        self._conn: socket.socket | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self.pty_path: str | None = None
        self.link_path: Path | None = None
        self._wire_free = 0.0
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._wake_r = self._wake_w = -1  # a self-pipe to interrupt select(), made by start()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._replug_at: float | None = None

    # --- where the cable plugs in ------------------------------------------------------------------

    def serve_pty(self, link: str | Path | None = None) -> str:
        """Listen on a new pseudo-terminal; ``link`` names a stable symlink to it (like a udev rule)."""
        self._mode = "pty"
        self.link_path = Path(link) if link else None
        self._open_pty()
        return str(self.link_path or self.pty_path)

    def serve_tcp(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen on TCP (one host at a time, like a terminal server's serial port); returns the port."""
        self._mode = "tcp"
        self._tcp_addr = (host, port)
        self._open_listener()
        assert self._listener is not None
        self._tcp_addr = (host, self._listener.getsockname()[1])
        return self._tcp_addr[1]

    def attach(self, sock: socket.socket) -> None:
        """Plug an already connected socket in (the in-process ``emu://`` scheme)."""
        self.call(lambda: self._adopt(sock))

    @property
    def url(self) -> str:
        """The pyserial URL a driver should open to reach this emulator."""
        if self._mode == "tcp" and self._tcp_addr:
            return f"socket://{self._tcp_addr[0]}:{self._tcp_addr[1]}"
        if self._mode == "pty":
            return str(self.link_path or self.pty_path)
        raise RuntimeError("emulator is not serving yet: call serve_pty() or serve_tcp()")

    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        tty.setraw(master)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.pty_path = os.ttyname(slave)
        if self.link_path is not None:
            tmp = self.link_path.with_name(self.link_path.name + ".tmp")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            tmp.symlink_to(self.pty_path)
            tmp.replace(self.link_path)
        self.connected = True
        self.on_connect()

    def _open_listener(self) -> None:
        assert self._tcp_addr is not None
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(self._tcp_addr)
        listener.listen(1)
        listener.setblocking(False)
        self._listener = listener

    def _adopt(self, sock: socket.socket) -> None:
        self._drop_conn()
        sock.setblocking(False)
        if sock.family == socket.AF_INET:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._conn = sock
        self.connected = True
        self.on_connect()

    def _drop_conn(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.close()
            self._conn = None
            self.connected = self._master is not None
            self.on_disconnect()

    # --- pulling the cable ---------------------------------------------------------------------------

    def unplug(self, for_seconds: float | None = None) -> None:
        """Pull the cable: the host's port fails; with ``for_seconds`` plug back in by itself."""
        self.call(lambda: self._unplug(for_seconds))

    def replug(self) -> None:
        self.call(self._replug)

    def _unplug(self, for_seconds: float | None) -> None:
        self.plugged = False
        self._drop_conn()
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        if self._master is not None:
            self._remove_link()  # first: once closed, the pty's number may go to another process
            for fd in (self._master, self._slave):
                with contextlib.suppress(OSError):
                    os.close(fd)  # type: ignore[arg-type]
            self._master = self._slave = None
            self.connected = False
            self.on_disconnect()
        self._replug_at = time.monotonic() + for_seconds if for_seconds is not None else None

    def _remove_link(self) -> None:
        """Take the stable name away with the device, as udev does when a USB adapter is pulled.

        A link left pointing at /dev/pts/N would lead a reconnecting host to whatever process
        opens the next pseudo-terminal and gets number N.
        """
        if self.link_path is not None and self.link_path.is_symlink():
            with contextlib.suppress(FileNotFoundError):
                if os.readlink(self.link_path) == self.pty_path:
                    self.link_path.unlink()

    def _replug(self) -> None:
        self._replug_at = None
        if self.plugged:
            return
        self.plugged = True
        if self._mode == "pty":
            self._open_pty()
        elif self._mode == "tcp":
            self._open_listener()

    # --- the I/O thread ------------------------------------------------------------------------------

    def start(self) -> DeviceEmulator:
        if self._thread is None:
            self._stop.clear()
            self._wake_r, self._wake_w = os.pipe()
            self._thread = threading.Thread(target=self._loop, name=f"emu-{self.name}", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the I/O thread, pull the cable and release every descriptor (safe to call twice)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            os.write(self._wake_w, b"x")
            if thread is not threading.current_thread():
                thread.join(2.0)
            for fd in (self._wake_r, self._wake_w):
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._wake_r = self._wake_w = -1
        self._unplug(None)

    def call(self, fn: Callable[[], T], timeout: float = 5.0) -> T:
        """Run ``fn`` on the I/O thread (or here if that thread is not running) and return its result."""
        if self._thread is None or threading.current_thread() is self._thread:
            return fn()
        done = threading.Event()
        box: dict[str, Any] = {}

        def job() -> None:
            try:
                box["value"] = fn()
            except BaseException as exc:
                box["error"] = exc
            done.set()

        self._jobs.put(job)
        os.write(self._wake_w, b"x")
        if not done.wait(timeout):
            raise TimeoutError(f"{self.name} emulator did not answer within {timeout} s")
        if "error" in box:
            raise box["error"]
        return box["value"]

    def _loop(self) -> None:
        while not self._stop.is_set():
            readable = [self._wake_r]
            fd = self._fd()
            if fd is not None:
                readable.append(fd)
            elif self._listener is not None:
                readable.append(self._listener.fileno())
            try:
                ready, _, _ = select.select(readable, [], [], TICK)
            except (OSError, ValueError):
                ready = []
            if self._wake_r in ready:
                os.read(self._wake_r, 4096)
            if self._run_jobs() and self._fd() != fd:
                continue  # a job replugged the cable: this select's readiness is about a closed fd
            if self._listener is not None and self._listener.fileno() in ready and self._conn is None:
                sock, _ = self._listener.accept()
                self._adopt(sock)
            elif fd is not None and fd in ready:
                self._read(fd)
            if self._replug_at is not None and time.monotonic() >= self._replug_at:
                self._replug()
            self.on_tick(time.monotonic())

    def _run_jobs(self) -> bool:
        ran = False
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                return ran
            job()
            ran = True

    def _fd(self) -> int | None:
        if self._conn is not None:
            return self._conn.fileno()
        return self._master

    def _read(self, fd: int) -> None:
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            if self._conn is not None:
                self._drop_conn()
            return
        now = time.monotonic()
        self.bytes_in += len(data)
        self.on_bytes(data, self.arrival(now, len(data)))

    def arrival(self, now: float, count: int) -> float:
        """When ``count`` bytes read at ``now`` would have finished arriving on a real line."""
        if not self.baudrate:
            return now
        self._wire_free = max(now, self._wire_free) + count * 10 / self.baudrate
        return self._wire_free

    def send(self, data: bytes) -> bool:
        """Write to the host (on the I/O thread); False when no cable is plugged in."""
        fd = self._fd()
        if fd is None or not data:
            return False
        if self.baudrate:
            time.sleep(len(data) * 10 / self.baudrate)
        view = memoryview(data)
        while view:
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                self.bytes_dropped += len(view)
                return False  # nobody is draining the line: a real UART would lose these bytes too
            except OSError:
                if self._conn is not None:
                    self._drop_conn()
                return False
            view = view[written:]
        self.bytes_out += len(data)
        return True

    # --- what a device does --------------------------------------------------------------------------

    def on_connect(self) -> None:
        """A host cable was plugged in (or a pty opened)."""

    def on_disconnect(self) -> None:
        """The cable went away."""

    def on_bytes(self, data: bytes, arrived: float) -> None:
        """Bytes from the host; ``arrived`` is the modelled time the last one finished arriving."""

    def on_tick(self, now: float) -> None:
        """Called at least every ``TICK`` seconds."""


# --- running an emulator as its own program -----------------------------------------------------------


def add_cable_arguments(parser: argparse.ArgumentParser) -> None:
    """Where a standalone emulator's cable plugs in: a pty (optionally behind a stable link) or TCP."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--pty", action="store_true", help="listen on a pseudo-terminal (the default)")
    where.add_argument("--tcp", type=int, metavar="PORT", help="listen on 127.0.0.1:PORT")
    parser.add_argument("--link", help="stable symlink to the pty (survives restarts, like a udev name)")


def plug_in(emulator: DeviceEmulator, args: argparse.Namespace) -> str:
    """Serve where ``add_cable_arguments`` said; returns the URL or path a driver should open."""
    if args.tcp is not None:
        return f"socket://127.0.0.1:{emulator.serve_tcp(port=args.tcp)}"
    return emulator.serve_pty(args.link)


def end_on_sigterm() -> None:
    """Let SIGTERM end a standalone emulator as Ctrl-C does (its ``finally`` releases the pty and the
    stable link), even while it blocks reading a console command."""
    signal.signal(signal.SIGTERM, _raise_exit)


def _raise_exit(signum: int, frame: object) -> None:
    raise SystemExit(0)
