"""Bounded ``endpoint`` labels for BentoML's HTTP request metrics.

BentoML labels each request it counts by the raw path, and Prometheus' multiprocess
mode keeps one series per label value in files that ``/metrics`` reads back in full. A
client asking for ``/v1/public/solve/jobs/<random>`` thousands of times therefore grew
the files, the workers' memory and every scrape without bound, and put real job ids in
``/metrics`` for anyone who could read it.

Here each path is labelled by the route that serves it, as written in the app
(``/v1/public/solve/jobs/{id}``), and every path no route serves, the public API's
catch-all 404 included, by :data:`OTHER`. So the label set is fixed by the code, not by
the traffic. BentoML builds its metrics middleware from a module attribute when a worker
creates its app, after the service module is imported, so :func:`install` replaces that
attribute with a subclass that counts under the label and passes the request on as it
came. Nothing in BentoML's configuration chooses the label.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from starlette.routing import BaseRoute, Mount, Route

OTHER: Final = "other"
#: BentoML's own routes at the root of every service.
BENTOML_PATHS: Final = ("/", "/livez", "/readyz", "/healthz", "/metrics", "/schema.json")
_REAL_SCOPE: Final = "shiftsched.unlabelled_scope"


class RouteLabels:
    """The label of a path: the template of the route that serves it, else ``other``.

    ``mounts`` are ``(prefix, app)`` pairs, as the apps are mounted in the service;
    ``fixed`` are paths served outside them, labelled as themselves."""

    def __init__(self, mounts: Sequence[tuple[str, Any]], fixed: Iterable[str] = ()) -> None:
        self._fixed = frozenset(fixed)
        # The longest prefix first, so "/v1/public" is tried before the root mount "".
        self._mounts = sorted(
            ((prefix.rstrip("/"), list(app.routes)) for prefix, app in mounts),
            key=lambda mount: -len(mount[0]),
        )

    def label(self, path: str) -> str:
        if path in self._fixed:
            return path
        for prefix, routes in self._mounts:
            if path == prefix or path.startswith(prefix + "/"):
                template = _template(routes, path[len(prefix) :] or "/")
                if template is not None:
                    return prefix + template
        return OTHER


def _template(routes: Iterable[BaseRoute], path: str) -> str | None:
    for route in routes:
        if isinstance(route, Mount) and route.path_regex.match(path):
            return route.path + "/{path}"
        if isinstance(route, Route) and route.path_regex.match(path):
            return None if ":path}" in route.path else route.path  # a catch-all: unknown
    return None


def install(labels: RouteLabels) -> None:
    """Make BentoML count every request under ``labels.label(path)``; call it before the
    worker builds its app (at the service module's import)."""
    from bentoml._internal.server.http import instruments

    base: Any = instruments.RunnerTrafficMetricsMiddleware
    base = getattr(base, "shiftsched_base", base)  # installed once, whatever the calls

    class RouteLabelledMetrics(base):  # type: ignore[misc]
        shiftsched_base = base

        def __init__(self, app: Any, **options: Any) -> None:
            super().__init__(_Unlabelled(app), **options)

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] in ("http", "websocket"):
                scope = {**scope, "path": labels.label(scope["path"]), _REAL_SCOPE: scope}
            await super().__call__(scope, receive, send)

    setattr(instruments, "RunnerTrafficMetricsMiddleware", RouteLabelledMetrics)  # noqa: B010


class _Unlabelled:
    """Hands the app below the metrics middleware the request's own scope."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope.get(_REAL_SCOPE, scope), receive, send)
