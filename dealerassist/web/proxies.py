"""Which reverse proxies are believed about the client's address and scheme.

Behind nginx every connection comes from the proxy, so without this the login throttle would see
one client and the session cookie could never know the browser used TLS. Only a connection from a
configured proxy address has its ``X-Forwarded-For`` and ``X-Forwarded-Proto`` read; anyone else
sending them is ignored (and keeps its own address). ``X-Forwarded-For`` is read from the right,
skipping trusted proxies, so a client cannot pose as another by sending its own header.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_proxies(values: Iterable[Any], where: str) -> tuple[Network, ...]:
    """Addresses or networks (``127.0.0.1``, ``10.0.0.0/8``, ``::1``), or ``ValueError`` naming it."""
    out: list[Network] = []
    for value in values:
        try:
            out.append(ipaddress.ip_network(str(value).strip(), strict=False))
        except ValueError:
            raise ValueError(
                f"{where}: {value!r} is not an IP address or network (like 127.0.0.1 or 10.0.0.0/8)"
            ) from None
    return tuple(out)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None


class TrustedProxies:
    """WSGI middleware: the client address and scheme as the trusted proxies reported them."""

    def __init__(self, app: Callable[..., Any], proxies: Iterable[Network]) -> None:
        self.app = app
        self.proxies = tuple(proxies)

    def trusted(self, text: str) -> bool:
        address = _address(text)
        return address is not None and any(address in net for net in self.proxies)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if self.proxies and self.trusted(environ.get("REMOTE_ADDR", "")):
            hops = [h.strip() for h in environ.get("HTTP_X_FORWARDED_FOR", "").split(",") if h.strip()]
            client = next((h for h in reversed(hops) if not self.trusted(h)), None)
            if client is not None and _address(client) is not None:
                environ["REMOTE_ADDR"] = str(_address(client))
            proto = environ.get("HTTP_X_FORWARDED_PROTO", "").split(",")[-1].strip().lower()
            if proto in ("http", "https"):
                environ["wsgi.url_scheme"] = proto
        return self.app(environ, start_response)
