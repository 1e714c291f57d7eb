"""What a repeated download or print of a stored roster costs: no work, and at most a
bounded number of requests per account a minute.

Why: a roster file or a print sheet is rebuilt from the job's stored request and answer,
which for a large roster is seconds of CPU (50,000 assignments: about 1.3 s for the
iCalendar file, 2 s for the print sheet and its audit), and a completed job can be
fetched again and again. Unbounded, one account could keep a process busy for free.

- The rendered bytes are kept in this process in a least-recently-used cache of at most
  ``EXPORT_CACHE_MB`` (64 MB) in all, keyed by the job, its record's last update and what
  was rendered (a format, or the print sheet, with any filters): a repeat renders
  nothing. A file larger than the whole cache is served and not kept.
- Every download and print counts against its account, ``EXPORTS_PER_MINUTE`` (30) in a
  moving window of ``limits`` (in ``SIGN_IN_LIMIT_STORAGE`` when set, so replicas count
  together). Past it the page answers 429 with ``Retry-After``, before any work: a cached
  file is cheap to render but not to send, 13 MB for 50,000 events.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter
from starlette.requests import Request
from starlette.responses import Response

from shiftsched.service.dashboard.deps import deps_of
from shiftsched.service.dashboard.web import error_page
from shiftsched.service.store.users import User
from shiftsched.service.threads import in_thread

MEGABYTE: Final = 1024 * 1024

Key = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Rendered:
    """A rendered file or sheet: its bytes and, for a page, the title it is shown under."""

    body: bytes
    title: str = ""

    @property
    def size(self) -> int:
        return len(self.body) + len(self.title)


class RenderedCache:
    """Rendered bytes by key, the least recently used dropped first once the total size
    passes ``max_bytes``. Safe to share between threads."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max(0, max_bytes)
        self._items: OrderedDict[Key, Rendered] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()

    @property
    def total_bytes(self) -> int:
        return self._total

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Key) -> Rendered | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: Key, value: Rendered) -> None:
        """Keep ``value`` (unless it alone is over the bound), then drop the oldest until
        the total fits."""
        if value.size > self.max_bytes:
            return
        with self._lock:
            old = self._items.pop(key, None)
            self._total -= 0 if old is None else old.size
            self._items[key] = value
            self._total += value.size
            while self._total > self.max_bytes:
                _, dropped = self._items.popitem(last=False)
                self._total -= dropped.size


def _storage(storage_uri: str | None) -> Storage:
    if not storage_uri:
        return MemoryStorage()
    storage = storage_from_string(storage_uri)
    if not isinstance(storage, Storage):  # an async:// URI: this limiter is synchronous
        raise ValueError("SIGN_IN_LIMIT_STORAGE must name a synchronous storage (redis://)")
    return storage


class Downloads:
    """The cache of rendered rosters and the per-account limit on asking for them.
    ``renders`` counts the renderings actually run (cache misses)."""

    def __init__(self, cache_bytes: int, per_minute: int, storage_uri: str | None = None) -> None:
        self.cache = RenderedCache(cache_bytes)
        self.renders = 0
        self._limiter = MovingWindowRateLimiter(_storage(storage_uri))
        self._item: RateLimitItem | None = (
            RateLimitItemPerMinute(per_minute) if per_minute > 0 else None
        )

    def wait_seconds(self, account_id: str) -> int | None:
        """None when the account may download now (and this one is counted); else the
        seconds until the window frees a place."""
        if self._item is None:
            return None
        keys = ("roster-download", account_id)
        if self._limiter.hit(self._item, *keys):
            return None
        reset_at = self._limiter.get_window_stats(self._item, *keys).reset_time
        return max(1, math.ceil(reset_at - time.time()))

    async def rendered(self, key: Key, render: Callable[[], Rendered | None]) -> Rendered | None:
        """The cached rendering of ``key``, else ``render()`` run in a thread and kept.
        None (nothing to render) is not kept."""
        found = self.cache.get(key)
        if found is not None:
            return found
        made = await in_thread(render)
        self.renders += 1
        if made is not None:
            self.cache.put(key, made)
        return made


def downloads_of(request: Request) -> Downloads:
    """The dashboard's :class:`Downloads`, made on first use from the API's settings
    (read at request time: the API's lifespan sets them after the dashboard is built)."""
    state = request.app.state
    found: Downloads | None = getattr(state, "downloads", None)
    if found is None:
        settings = deps_of(request).settings
        found = Downloads(
            settings.export_cache_mb * MEGABYTE,
            settings.exports_per_minute,
            settings.sign_in_limit_storage,
        )
        state.downloads = found
    return found


def too_many(request: Request, user: User) -> Response | None:
    """The 429 page when ``user``'s account is past its downloads this minute (counting
    this one otherwise), else None."""
    wait = downloads_of(request).wait_seconds(user.account_id)
    if wait is None:
        return None
    message = (
        "Too many downloads and prints of rosters from your account in the last minute. "
        f"Try again in {wait} s."
    )
    response = error_page(request, 429, "Too many downloads", message, user)
    response.headers["Retry-After"] = str(wait)
    return response
