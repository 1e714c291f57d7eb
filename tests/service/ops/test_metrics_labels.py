"""``/metrics`` and the worker stay small, and ``/metrics`` anonymous, under traffic to
paths without a route.

BentoML labelled its request metrics by the raw path: 2,000 GETs of random job ids made
``/metrics`` list every id and grow without bound (finding: 88 MB after 2,000 requests).
Here a real ``bentoml serve`` takes thousands of such requests over loopback; the text
must not grow with their number, must name none of the ids, and must be written in a
multiprocess directory of this instance, not BentoML's shared one in its home folder.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from shiftsched.service.metrics_dir import BENTOML_SHARED_NAME, ENV, PREFIX, use_instance_dir
from shiftsched.service.ops.route_labels import OTHER, RouteLabels
from tests.service import processes

pytestmark = pytest.mark.slow  # serves in a process of its own


class Served:
    def __init__(self, base: str, process: subprocess.Popen[bytes], home: Path) -> None:
        self.base, self.process, self.home = base, process, home


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("serve")
    env = processes.serve_environment(home)
    with processes.served(env, home / "serve.log") as server:
        yield Served(server.root, server.process, home)


def unknown_jobs(client: httpx.Client, count: int) -> list[str]:
    """GET ``count`` random job paths (401: no key); the ids asked for."""
    ids = [uuid.uuid4().hex for _ in range(count)]
    for job_id in ids:
        response = client.get(f"/v1/public/solve/jobs/{job_id}")
        assert response.status_code == 401
    return ids


def instance_dir(served: Served) -> Path:
    """Beside BentoML's shared directory in its home, named by the ``bentoml serve``."""
    return served.home / "bentoml" / f"{PREFIX}{served.process.pid}"


def dir_bytes(directory: Path) -> int:
    return sum(f.stat().st_size for f in directory.iterdir())


def worker_rss_bytes(served: Served) -> int:
    """Resident memory of the worker(s) of ``bentoml serve`` (Linux /proc)."""
    total = 0
    for status_file in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(
                line.split(":", 1) for line in status_file.read_text().splitlines() if ":" in line
            )
        except OSError:  # a process that ended meanwhile
            continue
        if fields.get("PPid", "").strip() == str(served.process.pid) and "VmRSS" in fields:
            total += int(fields["VmRSS"].split()[0]) * 1024
    assert total > 0, "no worker process found"
    return total


def test_metrics_do_not_grow_with_unknown_paths_nor_name_them(served: Served) -> None:
    with httpx.Client(base_url=served.base, timeout=30) as client:
        unknown_jobs(client, 50)  # every series the traffic makes exists from here on
        client.get("/v1/public/no/such/path")
        first = unknown_jobs(client, 200)
        small = client.get("/metrics").text
        small_files = dir_bytes(instance_dir(served))
        small_memory = worker_rss_bytes(served)
        more = unknown_jobs(client, 5_000)
        large = client.get("/metrics").text
        large_files = dir_bytes(instance_dir(served))
        large_memory = worker_rss_bytes(served)
    assert 'endpoint="/v1/public/solve/jobs/{id}"' in large
    assert f'endpoint="{OTHER}"' in large
    assert not any(job_id in large for job_id in first + more)
    # Only counts and sums change: the same series, a few digits longer at most.
    assert abs(len(large) - len(small)) < 2_000, (len(small), len(large))
    assert large_files == small_files
    assert len(large) < 200_000
    # A timer kept per request for BentoML's 900 s timeout (shiftsched.service.ops.traffic_timeout)
    # grew the worker by about 5 KB a request: 25 MB here.
    assert large_memory - small_memory < 10 * 2**20, (small_memory, large_memory)


def test_the_instance_keeps_its_own_multiprocess_directory(served: Served) -> None:
    own = instance_dir(served)
    assert own.is_dir() and any(own.iterdir())
    shared = served.home / "bentoml" / BENTOML_SHARED_NAME
    assert not shared.exists() or not any(shared.iterdir())


def test_use_instance_dir_moves_only_bentomls_shared_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, str(tmp_path / "chosen"))
    assert use_instance_dir(tmp_path) is None
    assert os.environ[ENV] == str(tmp_path / "chosen")

    stale = tmp_path / f"{PREFIX}999999999"  # no such process
    stale.mkdir()
    monkeypatch.setenv(ENV, str(tmp_path / "home" / BENTOML_SHARED_NAME))
    moved = use_instance_dir(tmp_path)
    assert moved == tmp_path / f"{PREFIX}{os.getppid()}"
    assert os.environ[ENV] == str(moved) and moved.is_dir()
    assert not stale.exists()


def test_route_labels_name_templates_and_put_the_rest_under_other() -> None:
    from starlette.applications import Starlette
    from starlette.routing import Route

    async def page() -> None: ...

    api = Starlette(routes=[Route("/jobs/{id}", page), Route("/{path:path}", page)])
    labels = RouteLabels([("/v1", api)], ["/metrics"])
    assert labels.label("/v1/jobs/42") == "/v1/jobs/{id}"
    assert labels.label("/v1/jobs/42/x") == OTHER  # the catch-all is no route
    assert labels.label("/elsewhere") == OTHER
    assert labels.label("/metrics") == "/metrics"
