"""A path nothing serves answers where to go, and every route that exists answers as before.

The whole site in-process (``tests.service.site``, mounted as the Bento mounts it, with
the readable 404 added as the Bento adds it): under the API an unknown path is a
problem+json 404 that names the path and links the index of operations; elsewhere a
short page (HTML for a browser, plain text otherwise) whose links all answer. The
served Bento is checked the same way in ``test_serve.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from shiftsched.service.http.not_found import ReadableNotFound
from shiftsched.service.http.rate_limits import RateLimits
from tests.service.site import site_app, site_settings

BASE = "http://127.0.0.1:8000"  # the OAuth routes at the root want https or a loopback
HTML = {"Accept": "text/html,application/xhtml+xml"}
SITE_LINKS = ("/v1/public/", "/v1/public/openapi.json", "/dashboard/", "/", "/v1/public/errors/")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    home: Path = tmp_path_factory.mktemp("site")
    settings = site_settings(f"sqlite:///{home / 'store.db'}", BASE, jobs_db_path=str(home / "q"))
    with TestClient(site_app(settings), base_url=BASE, follow_redirects=False) as client:
        yield client


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
def test_an_unknown_api_path_is_a_problem_naming_it_and_linking_the_index(
    site: TestClient, method: str
) -> None:
    answer = site.request(method, "/v1/public/solve/nope")
    assert answer.status_code == 404
    assert answer.headers["content-type"] == "application/problem+json"
    problem = answer.json()
    assert problem["type"] == f"{BASE}/v1/public/errors/not-found"
    assert problem["instance"] == "/v1/public/solve/nope"
    assert problem["detail"] == (
        "no operation at /v1/public/solve/nope; GET /v1/public lists every operation"
    )
    assert answer.headers["link"] == f'<{BASE}/v1/public/>; rel="index"'
    index = site.get(f"{BASE}/v1/public/")
    assert index.status_code == 200 and index.json()["operations"]


def test_an_unknown_path_elsewhere_is_a_page_whose_links_answer(site: TestClient) -> None:
    page = site.get("/no/such/page", headers=HTML)
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert "<code>/no/such/page</code>" in page.text
    links = set(re.findall(r'href="([^"]+)"', page.text))
    assert set(SITE_LINKS) <= links
    for link in SITE_LINKS:
        answered = site.get(link, follow_redirects=True)
        assert answered.status_code == 200, link


def test_other_clients_get_the_same_pointers_as_plain_text(site: TestClient) -> None:
    for path in ("/nope", "/dashboard/nope", "/mcp/nope", "/dashboard/static/nope.css"):
        answer = site.get(path)
        assert answer.status_code == 404, path
        assert answer.headers["content-type"].startswith("text/plain")
        first, *pointers = answer.text.splitlines()
        assert first == f"Nothing at {path}."
        for address in (f"{BASE}/v1/public", f"{BASE}/dashboard/", f"{BASE}/ "):
            assert any(address in line for line in pointers), address


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/", 200),  # the front page
        ("GET", "/v1/public", 307),  # to the index, as BentoML's router redirects
        ("GET", "/v1/public/", 200),
        ("GET", "/v1/public/openapi.json", 200),
        ("GET", "/v1/public/errors/", 200),
        ("GET", "/v1/public/errors/not-found", 200),
        ("GET", "/v1/public/usage", 401),
        ("GET", "/v1/public/solve/jobs/x", 401),
        ("GET", "/v1/public/solve", 405),
        ("POST", "/v1/public/solve", 402),  # no credential: the offer
        ("GET", "/dashboard", 307),
        ("GET", "/dashboard/", 303),
        ("GET", "/dashboard/sign-in", 200),
        ("GET", "/dashboard/static/style.css", 200),
        ("GET", "/.well-known/oauth-authorization-server", 200),
        ("POST", "/mcp", 401),
    ],
)
def test_every_route_answers_as_before(
    site: TestClient, method: str, path: str, status: int
) -> None:
    json_body = {} if method == "POST" else None
    answer = site.request(method, path, json=json_body)
    assert answer.status_code == status, answer.text[:300]


def test_only_the_bare_404_is_replaced() -> None:
    """A 404 an app writes itself passes as written, even in plain text."""

    async def own(_: object) -> PlainTextResponse:
        return PlainTextResponse("no such roster", status_code=404)

    app = Starlette(routes=[Route("/own", own)], middleware=[Middleware(ReadableNotFound)])
    with TestClient(app) as client:
        assert client.get("/own").text == "no such roster"
        assert client.get("/other").text.startswith("Nothing at /other.")
        assert client.head("/other").status_code == 404


def test_pages_of_nothing_count_against_the_client_address() -> None:
    """Past the anonymous limit, a path nothing serves is 429 with Retry-After, not the
    page: a page of nothing is free, like every call without a credential."""
    limits = RateLimits(anonymous="2/minute")
    app = Starlette(middleware=[Middleware(ReadableNotFound, limits_of=lambda: limits)])
    with TestClient(app) as client:
        for _ in range(2):
            assert client.get("/nothing").text.startswith("Nothing at /nothing.")
        refused = client.get("/nothing")
        assert refused.status_code == 429
        assert refused.json()["type"].endswith("/rate-limited")
        assert int(refused.headers["retry-after"]) >= 1
