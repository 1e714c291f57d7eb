"""`make serve` listens on this machine only unless HOST opens it, and says where it
really listens: the address read from the served socket, not BentoML's "localhost"."""

from __future__ import annotations

import shutil
from pathlib import Path

import psutil
import pytest

from shiftsched.service.ops.listening import listening_words
from tests.service.processes import (
    ROOT,
    descendants,
    kill_tree,
    serve_environment,
    start_serve,
    wait_serving,
)

pytestmark = [
    pytest.mark.slow,  # serves in a process of its own
    pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed"),
    pytest.mark.skipif(
        not (ROOT / ".venv" / "bin" / "bentoml").exists(), reason="make serve runs .venv's bentoml"
    ),
]

# -o: the virtual environment counts as up to date (the test does not install it).
MAKE_SERVE = ["make", "--no-print-directory", "-o", ".venv/.installed", "serve"]


def listening_on(root_pid: int, port: int) -> set[str]:
    """The addresses any process of the server listens on at ``port``."""
    found = set()
    for pid in [root_pid, *descendants(root_pid)]:
        try:
            sockets = psutil.Process(pid).net_connections(kind="inet")
        except psutil.Error:
            continue
        found |= {
            s.laddr.ip for s in sockets if s.status == psutil.CONN_LISTEN and s.laddr.port == port
        }
    return found


@pytest.mark.parametrize(
    ("host", "address", "reach"),
    [
        (None, "127.0.0.1", "this machine only"),
        ("0.0.0.0", "0.0.0.0", "every network interface"),
    ],
)
def test_make_serve_binds_loopback_unless_host_opens_it_and_says_so(
    tmp_path: Path, host: str | None, address: str, reach: str
) -> None:
    env = serve_environment(tmp_path)
    env.pop("HOST", None)
    if host is not None:
        env["HOST"] = host
    port, log = int(env["PORT"]), tmp_path / "serve.log"
    process = start_serve(env, log, MAKE_SERVE)
    try:
        wait_serving(process, f"http://127.0.0.1:{port}/readyz", log)
        assert listening_on(process.pid, port) == {address}
        said = [line for line in log.read_text().splitlines() if line.startswith("Listening on")]
        assert len(said) == 1, log.read_text()[-3000:]
        assert said[0].startswith(f"Listening on http://{address}:{port} ({reach}")
    finally:
        kill_tree(process)


def test_the_words_name_each_kind_of_address() -> None:
    assert listening_words([("::1", 3000), ("192.0.2.7", 80)]) == [
        "Listening on http://[::1]:3000 (this machine only; HOST=0.0.0.0 opens it to the network)",
        "Listening on http://192.0.2.7:80 (this address only)",
    ]
