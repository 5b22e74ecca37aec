"""The simulated dealer at a real ``dealerassist run``: its inputs go over the dashboard's HTTP API.

``SimulatedDealer`` drives a pit; this one posts each input as a dashboard action, reads the table
through ``/api/tables/<table>/snapshot`` and the log through ``/api/records`` (an admin's session),
so whole rounds of any game are dealt to the running process as a dealer at the screen would.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

from dealerassist.errors import DealerAssistError
from tests.web.dashboard_http import HttpUser

SERVER_SET = ("kind", "table", "user", "role")


class RemoteTable:
    def __init__(self, user: HttpUser, table: str) -> None:
        self.user = user
        self.table = table

    def view(self) -> dict[str, Any]:
        return json.loads(self.user.get(f"/api/tables/{self.table}/snapshot").read())

    def snapshot(self) -> dict[str, Any]:
        return self.view()["snapshot"]

    @property
    def round_id(self) -> int:
        return int(self.snapshot()["round_id"])


class RemoteLog:
    def __init__(self, user: HttpUser, table: str) -> None:
        self.user = user
        self.table = table

    def last_seq(self) -> int:
        return int(RemoteTable(self.user, self.table).view()["last_seq"])

    def records(self, after: int = 0, table: str | None = None) -> Iterator[Any]:
        query = f"/api/records?after={after}" + (f"&table={table}" if table else "")
        for record in json.loads(self.user.get(query).read())["records"]:
            yield SimpleNamespace(seq=record["seq"], event=SimpleNamespace(**record["event"]))


class RemotePit:
    """What ``SimulatedDealer`` asks of a pit, answered by a running station."""

    def __init__(self, user: HttpUser, table: str) -> None:
        self.user = user
        self.log = RemoteLog(user, table)
        self._table = RemoteTable(user, table)

    def tracker(self, table: str) -> RemoteTable:
        return self._table

    def handle(self, table: str, event: Any) -> list[Any]:
        body = {k: v for k, v in event.to_dict().items() if k not in SERVER_SET}
        status, answer = self.user.act(table, event.kind, **body)
        if status != 200:
            raise DealerAssistError(f"{event.kind} refused ({status}): {answer.get('message')}")
        return list(answer.get("caused", []))
