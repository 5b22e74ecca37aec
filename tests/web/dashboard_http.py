"""A dashboard served on a loopback port by a real threaded server, and a cookie-keeping HTTP user."""

from __future__ import annotations

import http.cookiejar
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

_CSRF = re.compile(r'name="csrf-token" content="([^"]+)"')


class HttpUser:
    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.csrf = ""

    def get(self, path: str, headers: dict[str, str] | None = None, timeout: float = 10) -> Any:
        request = urllib.request.Request(self.base + path, headers=headers or {})
        response = self.opener.open(request, timeout=timeout)
        if response.headers.get_content_type() == "text/html":
            body = response.read().decode()
            found = _CSRF.search(body)
            if found:
                self.csrf = found.group(1)
            return body
        return response

    def login(self, name: str, password: str) -> None:
        self.get("/login")
        data = urllib.parse.urlencode({"name": name, "password": password, "csrf_token": self.csrf}).encode()
        page = self.opener.open(self.base + "/login", data=data, timeout=10).read().decode()
        found = _CSRF.search(page)  # signing in starts a new session with a new token
        if found:
            self.csrf = found.group(1)

    def act(self, table: str, kind: str, **body: Any) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(
            f"{self.base}/api/tables/{table}/actions/{kind}",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-CSRF-Token": self.csrf},
        )
        try:
            with self.opener.open(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())


def sse_messages(response: Any) -> Iterator[dict[str, str]]:
    """Parse a text/event-stream response into messages ({id, event, data}); comments and bare
    ``retry`` settings are skipped."""
    message: dict[str, str] = {}
    for raw in response:
        line = raw.decode().rstrip("\r\n")
        if not line:
            if "data" in message:
                yield message
            message = {}
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        message[field] = value.removeprefix(" ")
