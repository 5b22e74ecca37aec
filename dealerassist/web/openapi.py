"""The OpenAPI 3.1 description of the JSON API, generated from the action table and event classes.

Generated, not hand-written, so it cannot drift from what the server accepts: a field added to a
tracker input appears here on the next start.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal

from dealerassist.core.cards import Card
from dealerassist.web.actions import ACTIONS, MONEY_FIELDS, available, client_fields

_ERROR = {"$ref": "#/components/schemas/Error"}


def _schema(name: str, hint: Any) -> dict[str, Any]:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [_schema(name, a) for a in args if a is not type(None)]
        schema = inner[0] if len(inner) == 1 else {"anyOf": inner}
        return {**schema, "nullable": True} if type(None) in args else schema
    if origin is Literal:
        return {"type": "string", "enum": list(args)}
    if hint is Card:
        return {"type": "string", "description": "a card such as AS, 10h, Td or JK", "example": "AS"}
    if origin is tuple:
        return {"type": "array", "items": _schema(name, args[0] if args else str)}
    if hint is int and name in MONEY_FIELDS:
        return {
            "oneOf": [
                {"type": "integer", "minimum": 0, "description": "cents"},
                {"type": "string", "description": "dollars, e.g. '25' or '$12.50'"},
            ]
        }
    if hint is bool:
        return {"type": "boolean"}
    if hint is int:
        return {"type": "integer"}
    if hint is float:
        return {"type": "number"}
    if origin is dict or hint is dict:
        return {"type": "object"}
    return {"type": "string"}


def _error_responses(*codes: int) -> dict[str, Any]:
    text = {
        400: "malformed request (names the field)",
        401: "not signed in",
        403: "role not allowed, or CSRF token missing",
        404: "no such table, action or flag",
        409: "refused by the game rules or the tracker (names the rule; logged as a refused event), or a "
        "flag already cleared or changed since it was shown",
        422: "a field is missing or invalid (names the field)",
        503: "a store the answer needs cannot answer now (says which, and why)",
    }
    return {
        str(c): {"description": text[c], "content": {"application/json": {"schema": _ERROR}}} for c in codes
    }


def spec() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for kind, action in sorted(available().items()):
        fields = client_fields(kind)
        body = {
            "type": "object",
            "additionalProperties": False,
            "properties": {name: _schema(name, hint) for name, (hint, _) in fields.items()},
            "required": [name for name, (_, required) in fields.items() if required],
        }
        paths[f"/api/tables/{{table}}/actions/{kind}"] = {
            "post": {
                "operationId": kind.replace("-", "_"),
                "summary": action.summary,
                "description": f"Needs permission `{action.permission}`. `table`, `user` and `role` are set "
                "by the server from the URL and the session.",
                "tags": ["supervisor" if action.permission == "supervise" else "dealer"],
                "parameters": [{"$ref": "#/components/parameters/table"}],
                "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
                "responses": {
                    "200": {
                        "description": "accepted; the events it caused",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Accepted"}}
                        },
                    },
                    **_error_responses(400, 401, 403, 404, 409, 422),
                },
            }
        }
    paths.update(_read_paths())
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "dealerassist dashboard API",
            "version": "1",
            "description": "Every state change of the dashboard. Sign in through /login (session cookie); "
            "send the page's CSRF token (meta csrf-token) in the X-CSRF-Token header with every POST.",
        },
        "paths": paths,
        "components": {
            "parameters": {
                "table": {"name": "table", "in": "path", "required": True, "schema": {"type": "string"}}
            },
            "securitySchemes": {
                "session": {"type": "apiKey", "in": "cookie", "name": "dealerassist_session"},
                "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token"},
            },
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["error", "field", "message"],
                    "properties": {
                        "error": {"type": "string"},
                        "field": {"type": "string", "description": "the offending field or rule"},
                        "message": {"type": "string"},
                        "rule": {"type": "string"},
                    },
                },
                "Accepted": {
                    "type": "object",
                    "properties": {
                        "ok": {"type": "boolean"},
                        "caused": {"type": "array", "items": {"type": "object"}},
                        "last_seq": {"type": "integer"},
                    },
                },
            },
        },
        "security": [{"session": [], "csrf": []}],
        "x-actions": {kind: a.permission for kind, a in ACTIONS.items()},
    }


def _read_paths() -> dict[str, Any]:
    def get(summary: str, *errors: int, params: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        op: dict[str, Any] = {
            "summary": summary,
            "responses": {"200": {"description": "OK"}, **_error_responses(*errors)},
        }
        if params:
            op["parameters"] = params
        return {"get": op}

    table = [{"$ref": "#/components/parameters/table"}]
    query = [
        {"name": "after", "in": "query", "schema": {"type": "integer", "minimum": 0}},
        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 5000}},
        {"name": "table", "in": "query", "schema": {"type": "string"}},
    ]
    text = {"type": "string"}
    instant = {"type": "string", "description": "ISO-8601; without a zone it is UTC"}
    floor = [
        {"name": name, "in": "query", "schema": schema, "description": description}
        for name, schema, description in (
            ("table", text, "one table's rounds"),
            ("from", instant, "rounds with a matching record at or after"),
            ("to", instant, "... and before"),
            ("seat", {"type": "integer", "minimum": 1, "maximum": 99}, "rounds in which the seat played"),
            ("card", {**text, "example": "AS"}, "rounds in which the card was dealt"),
            ("user", text, "rounds in which this dealer or supervisor acted"),
            ("kind", {"type": "array", "items": text}, "voids, jackpots, alarms or an event kind (repeat)"),
            ("page", {"type": "integer", "minimum": 1}, "default 1"),
            ("per_page", {"type": "integer", "minimum": 1, "maximum": 500}, "default 50"),
        )
    ]
    return {
        "/api/tables": get("Tables of this pit and the log's last seq", 401),
        "/api/tables/{table}/snapshot": get(
            "The open round as the tracker sees it", 401, 403, 404, params=table
        ),
        "/api/records": get("Log records after a seq (surveillance)", 400, 401, 403, params=query),
        "/api/floor/rounds": get(
            "Rounds of every table in the floor store, latest first, a page at a time (surveillance; "
            "404 when the station has no [floor] search_url, 503 when the floor store cannot answer)",
            400,
            401,
            403,
            404,
            503,
            params=floor,
        ),
        "/api/progressive": get("The progressive's state, as the sign shows it", 404),
        "/api/progressive/{op}": {
            "post": {
                "summary": "Supervisor progressive operations: confirm-paid (hit_id), params (fields of the "
                "[progressive] section and a reason)",
                "parameters": [
                    {
                        "name": "op",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "enum": ["confirm-paid", "params"]},
                    }
                ],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"type": "object"}}},
                },
                "responses": {
                    "200": {"description": "done; the new state"},
                    **_error_responses(400, 401, 403, 404, 409, 422),
                },
            }
        },
        "/api/protection": get(
            "Game-protection flags (hole-card, counting, dealer) with their statistic, evidence rounds and "
            "timeline links, and who looked at or cleared each (surveillance)",
            400,
            401,
            403,
            params=[
                {"name": "from", "in": "query", "schema": {"type": "string", "format": "date-time"}},
                {"name": "to", "in": "query", "schema": {"type": "string", "format": "date-time"}},
            ],
        ),
        "/api/protection/reviews": {
            "post": {
                "summary": "Record that surveillance looked at or cleared a flag (checked against the flags "
                "as they stand; a cleared flag cannot be cleared again)",
                "tags": ["surveillance"],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["flag", "action"],
                                "properties": {
                                    "flag": {"type": "string", "description": "the flag's id"},
                                    "action": {"type": "string", "enum": ["looked", "cleared"]},
                                    "note": {"type": "string", "maxLength": 500},
                                    "from": {"type": "string", "description": "the page's window"},
                                    "to": {"type": "string"},
                                },
                            }
                        }
                    },
                },
                "responses": {
                    "200": {"description": "recorded; the review record and its seq"},
                    **_error_responses(400, 401, 403, 404, 409, 422),
                },
            }
        },
        "/stream": get(
            "Server-Sent Events: log records (id = seq; send Last-Event-ID to resume)",
            400,
            401,
            404,
            params=[
                {"name": "table", "in": "query", "schema": {"type": "string"}},
                {"name": "after", "in": "query", "schema": {"type": "integer"}},
            ],
        ),
        "/sign/stream": get("Server-Sent Events: the progressive state after each change (public)", 400),
    }
