"""The pages for people: every error type answers a page, the index lists them all."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from shiftsched.service.errors import ServiceError, error_types
from shiftsched.service.http.api import Settings, create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    home: Path = tmp_path_factory.mktemp("front")
    settings = Settings(
        database_url=f"sqlite:///{home / 'store.db'}",
        jobs_db_path=str(home / "jobs.db"),
        solve_processes=1,
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_the_error_types_are_every_class_with_a_slug_once_each() -> None:
    """A class that names a slug is a type; one that only inherits it (a refused payment
    is an unauthorized request) is the same type, listed once."""
    slugs = [cls.slug for cls in error_types()]
    assert len(slugs) == len(set(slugs)) == 20
    assert "unauthorized" in slugs and "validation-error" in slugs


@pytest.mark.parametrize("error", error_types(), ids=lambda cls: cls.slug)
def test_each_error_type_answers_a_page_with_its_title_status_and_advice(
    client: TestClient, error: type[ServiceError]
) -> None:
    page = client.get(f"/errors/{error.slug}")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert f"<strong>{error.status}</strong>" in page.text
    words = unescape(re.sub(r"<[^>]+>", "", page.text))  # what a reader sees
    assert error.title in words
    for text in (error.when, error.advice):
        assert text.replace("`", "") in words
    assert "`" not in words


def test_the_index_lists_every_error_type(client: TestClient) -> None:
    page = client.get("/errors/")
    assert page.status_code == 200
    for error in error_types():
        assert f'/errors/{error.slug}"' in page.text


def test_an_unknown_error_type_is_a_not_found_problem(client: TestClient) -> None:
    missing = client.get("/errors/no-such-error")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")


def test_the_front_page_links_the_reference_and_the_mcp_address() -> None:
    """Its absolute addresses start from the public URL, whatever the Host header."""
    from starlette.applications import Starlette

    from shiftsched.service.http.front import serve_front_page

    app = serve_front_page(Starlette(), "https://rosters.example.org")
    with TestClient(app) as front:
        page = front.get("/", headers={"Host": "evil.example"})
    assert page.status_code == 200
    for link in (
        'href="/v1/public/openapi.json"',
        'href="/v1/public/errors/"',
        'href="/dashboard/"',
        'href="/dashboard/sign-up"',
        'href="/dashboard/static/style.css"',
        "https://rosters.example.org/mcp",
        "https://rosters.example.org/v1/public/solve",
    ):
        assert link in page.text
    assert "evil.example" not in page.text


def test_the_front_page_lists_every_tool_the_mcp_server_offers(tmp_path: Path) -> None:
    """The list comes from the registry the server is built from, so a new tool is on the
    page without an edit to it (the page once listed 8 of 13)."""
    import asyncio

    from starlette.applications import Starlette

    from shiftsched.service.http.front import serve_front_page
    from shiftsched.service.mcp.server import create_mcp_server

    settings = Settings(database_url=f"sqlite:///{tmp_path / 'store.db'}", solve_processes=1)
    server = create_mcp_server(create_app(settings), "https://rosters.example.org")
    offered = {tool.name for tool in asyncio.run(server.list_tools())}
    with TestClient(serve_front_page(Starlette(), "https://rosters.example.org")) as front:
        page = front.get("/").text
    paragraph = page[page.index("For assistants (MCP)") :]
    paragraph = paragraph[: paragraph.index("</p>")]
    assert set(re.findall(r"<code>(\w+)</code>", paragraph)) == offered
    assert len(offered) == 13


def test_the_api_root_lists_the_operations_and_the_reference(client: TestClient) -> None:
    """The README's API address answers: the reference and every operation, no 404."""
    from shiftsched.service.http.operations import OPERATIONS

    index = client.get("/")
    assert index.status_code == 200
    body = index.json()
    assert body["openapi"].endswith("/v1/public/openapi.json")
    assert body["errors"].endswith("/v1/public/errors/")
    assert [o["path"] for o in body["operations"]] == ["/v1/public" + op.path for op in OPERATIONS]


def test_the_api_root_answers_when_mounted_as_served(tmp_path: Path) -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    settings = Settings(database_url=f"sqlite:///{tmp_path / 'store.db'}", solve_processes=1)
    site = Starlette(routes=[Mount("/v1/public", app=create_app(settings))])
    with TestClient(site) as served:
        for path in ("/v1/public", "/v1/public/"):
            answered = served.get(path)
            assert answered.status_code == 200, (path, answered.text)
            assert "operations" in answered.json()
