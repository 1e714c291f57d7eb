"""A stored roster's files and print sheet are rendered once and served again from the
cache, and each account may ask for a bounded number a minute (past it 429 with
Retry-After), without slowing another account. No timing: the renders are counted."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from shiftsched.service.dashboard.downloads import Downloads, Rendered, RenderedCache
from shiftsched.service.dashboard.exports import roster_file
from tests.service.dashboard.test_dashboard import _account_id, sign_up, store_of
from tests.service.dashboard.test_dashboard_export import completed_job
from tests.service.site import site_app, site_settings

BASE = "http://localhost"
PER_MINUTE = 4


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'site.db'}"
    settings = site_settings(url, BASE, exports_per_minute=PER_MINUTE)
    with TestClient(site_app(settings), base_url=BASE, follow_redirects=False) as client:
        yield client


@pytest.fixture
def browser(site: TestClient) -> TestClient:
    """A fresh account, signed in: each test starts with its whole allowance."""
    site.cookies.clear()
    sign_up(site)
    return site


def downloads(client: TestClient) -> Downloads:
    dashboard: Any = next(
        route.app for route in client.app.routes if getattr(route, "path", "") == "/dashboard"
    )
    assert isinstance(dashboard, Starlette)
    found: Downloads = dashboard.state.downloads  # made by the first download
    return found


def test_a_repeated_download_is_the_same_bytes_rendered_once(browser: TestClient) -> None:
    job_id = completed_job(browser)
    first = browser.get(f"/dashboard/jobs/{job_id}/export.ics")
    assert first.status_code == 200, first.text
    renders = downloads(browser).renders
    again = browser.get(f"/dashboard/jobs/{job_id}/export.ics")
    assert again.status_code == 200
    assert again.content == first.content
    assert downloads(browser).renders == renders  # served from the cache
    # What the cache holds is what a fresh rendering writes (the DTSTAMP is the job's).
    job = store_of(browser).jobs.get_job(_account_id(browser), job_id)
    assert job is not None and roster_file(job, "ics") == first.content
    assert browser.get(f"/dashboard/jobs/{job_id}/export.csv").status_code == 200
    assert downloads(browser).renders == renders + 1  # another format is another file


def test_a_repeated_print_renders_the_sheet_once(browser: TestClient) -> None:
    job_id = completed_job(browser)
    first = browser.get(f"/dashboard/jobs/{job_id}/roster")
    assert first.status_code == 200, first.text
    renders = downloads(browser).renders
    again = browser.get(f"/dashboard/jobs/{job_id}/roster")
    assert again.status_code == 200
    assert downloads(browser).renders == renders
    for page in (first.text, again.text):
        assert 'id="roster-sheet"' in page and "<title>Roster 2026-03-02 to" in page
        assert page.count('data-employee="') == 3


def test_past_the_limit_the_answer_is_429_and_another_account_is_unaffected(
    site: TestClient,
) -> None:
    site.cookies.clear()
    sign_up(site)
    job_id = completed_job(site)
    paths = [f"/dashboard/jobs/{job_id}/export.csv", f"/dashboard/jobs/{job_id}/roster"]
    for n in range(PER_MINUTE):
        assert site.get(paths[n % 2]).status_code == 200
    renders = downloads(site).renders
    for path in paths:
        refused = site.get(path)
        assert refused.status_code == 429
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        assert refused.headers["content-type"].startswith("text/html")
        assert "Too many downloads" in refused.text
    assert downloads(site).renders == renders  # refused before any work

    site.cookies.clear()
    sign_up(site)  # another account
    other = completed_job(site)
    assert site.get(f"/dashboard/jobs/{other}/export.csv").status_code == 200
    assert site.get(f"/dashboard/jobs/{other}/roster").status_code == 200


def test_the_cache_drops_the_least_recently_used_past_its_bytes() -> None:
    cache = RenderedCache(max_bytes=10)
    cache.put(("a",), Rendered(b"1234"))
    cache.put(("b",), Rendered(b"5678"))
    assert cache.get(("a",)) is not None  # "a" is now the most recently used
    cache.put(("c",), Rendered(b"90ab"))
    assert cache.get(("b",)) is None
    assert cache.get(("a",)) == Rendered(b"1234") and cache.get(("c",)) is not None
    assert cache.total_bytes == 8 and len(cache) == 2
    cache.put(("big",), Rendered(b"x" * 11))  # over the whole bound: served, not kept
    assert cache.get(("big",)) is None and cache.total_bytes == 8
    cache.put(("a",), Rendered(b"12", "t"))  # replacing an entry counts it once
    assert cache.total_bytes == 7


def test_no_limit_when_the_setting_is_zero() -> None:
    unlimited = Downloads(cache_bytes=1024, per_minute=0)
    assert all(unlimited.wait_seconds("account") is None for _ in range(100))
    limited = Downloads(cache_bytes=1024, per_minute=2)
    assert [limited.wait_seconds("a") is None for _ in range(3)] == [True, True, False]
    assert limited.wait_seconds("b") is None
