"""Live panels drawn once per state, however many screens ask.

Every screen of a table re-fetches its panel after each record, so twenty screens would have the
same state drawn twenty times, and a supervisor's panel (every table) costs the most. A panel is
kept by what it shows (the template, the viewer's role and the view data it is drawn from); each
session's CSRF token is put into the kept copy on the way out, so nothing of one session reaches
another.
"""

from __future__ import annotations

import hashlib
import pickle
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from flask import current_app, render_template, session

from dealerassist.web.security import csrf_token
from dealerassist.web.views import current_user

EXTENSION = "dealerassist-panels"


class PanelCache:
    """The last ``size`` drawn panels, by key; the placeholder stands where a CSRF token goes."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self.placeholder = f"csrf-{secrets.token_hex(16)}"
        self._drawn: OrderedDict[Hashable, str] = OrderedDict()
        self._lock = threading.Lock()

    def draw(self, key: Hashable, render: Callable[[], str]) -> str:
        with self._lock:
            drawn = self._drawn.get(key)
            if drawn is not None:
                self._drawn.move_to_end(key)
                return drawn
        drawn = render()
        with self._lock:
            self._drawn[key] = drawn
            while len(self._drawn) > self.size:
                self._drawn.popitem(last=False)
        return drawn


def render_panel(template: str, **context: object) -> str:
    """``template`` drawn from ``context`` (plain view data: everything the panel shows), taken
    from the cache when the same role saw the same data. The data's pickle is the key: equal bytes
    mean equal data (unequal bytes for equal data only cost a drawing)."""
    cache: PanelCache = current_app.extensions.setdefault(EXTENSION, PanelCache())
    user = current_user()
    shown = hashlib.blake2b(pickle.dumps(sorted(context.items())), digest_size=20).digest()
    key = (template, user.role if user is not None else "", shown)
    drawn = cache.draw(
        key, lambda: render_template(template, csrf_token=lambda: cache.placeholder, **context)
    )
    return drawn.replace(cache.placeholder, csrf_token(session))
