"""The Bento: BentoML serves the public API app under /v1/public.

BentoML's own ``@bentoml.api`` cannot produce the v1 contract (its validation errors
are 400 plain JSON, it has no 413 or 415), so the whole API is one Starlette app
mounted with ``@bentoml.asgi_app``. BentoML's traffic timeout is set far above our own
deadlines, so its plain-JSON 504 never pre-empts our problem+json one.
"""

from __future__ import annotations

import bentoml

from bento.http import create_app

TRAFFIC_TIMEOUT_SECONDS = 900

public_api = create_app()


@bentoml.service(name="shiftsched", traffic={"timeout": TRAFFIC_TIMEOUT_SECONDS}, workers=1)
@bentoml.asgi_app(public_api, path="/v1/public")
class ShiftScheduler:
    """Roster solving over the v1 HTTP contract."""
