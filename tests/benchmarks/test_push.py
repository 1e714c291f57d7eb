"""The push benchmark's verdicts, table and stream figures on hand-made blocks and events
(no service, no solver, no clock), and its receiver on a real loopback socket."""

from __future__ import annotations

import socket
import time
from types import SimpleNamespace
from typing import Any

from benchmarks.push import HANGING, NONE, Block, markdown, pair_ratios, verdicts
from benchmarks.push_events import Event, Streamed, streamed
from benchmarks.push_receiver import HangingReceiver


def block(repeat: int, condition: str, latency: float, held: int = 0) -> Block:
    return Block(repeat, condition, [latency, latency, 2 * latency], [held] * 3, 0, 0)


def stream(delay: float, closed: bool = True) -> Streamed:
    values: dict[str, Any] = {
        "run": 1,
        "job_id": "0123456789abcdef",
        "recorded": 100.0,
        "arrived": 100.0 + delay,
        "same_record": True,
        "found_to_recorded": 0.25,
        "events": 9,
        "records": 8,
        "ended": 108.0,
        "end_event": 108.5,
        "closed": 108.5,
        "final_status": "completed",
        "closed_after_end": closed,
    }
    return Streamed(**values)


def test_close_medians_a_stuck_sender_and_a_prompt_stream_pass() -> None:
    blocks = [block(1, NONE, 0.020), block(1, HANGING, 0.021, held=8)]
    assert [t.passed for t in verdicts(blocks, [stream(0.3), stream(0.6)])] == [True] * 4


def test_a_slower_b_an_idle_sender_a_late_event_and_an_open_stream_miss() -> None:
    blocks = [block(1, NONE, 0.020), block(1, HANGING, 0.023, held=0)]
    ratio, stuck, delay, closed = verdicts(blocks, [stream(0.3), stream(1.2, closed=False)])
    assert (ratio.passed, stuck.passed, delay.passed, closed.passed) == (False,) * 4
    assert ratio.detail == "1.150 <= 1.10 (23.0 / 20.0 ms)"
    assert delay.detail == "1.200 s <= 1 s" and closed.detail == "1 of 2"


def test_the_table_has_each_block_the_pooled_rows_and_the_ratios() -> None:
    blocks = [
        block(1, NONE, 0.020),
        block(1, HANGING, 0.022, held=8),
        block(2, NONE, 0.040),
        block(2, HANGING, 0.036, held=7),
    ]
    assert [round(r, 3) for r in pair_ratios(blocks)] == [1.1, 0.9]
    text = markdown(blocks, [stream(0.4)], verdicts(blocks, [stream(0.4)]), "h", "cmd")
    assert "| 2 | B: hanging receiver | 3 | 36.0 / 72.0 ms | 7-7 | 0 | 0 |" in text
    assert "| all | A: no endpoint | 6 | 40.0 / 80.0 ms | | | |" in text
    assert "repeat by repeat: 1.100, 0.900; of the pooled medians: 0.900." in text
    assert "- found -> event (the record's own wait added): median 0.650 s" in text


def test_the_delay_runs_from_the_first_record_with_a_roster() -> None:
    records = {
        10.0: {"elapsed_seconds": 0.0, "solutions": 0, "improvements": []},
        11.0: {
            "elapsed_seconds": 1.0,
            "solutions": 1,
            "improvements": [{"elapsed_seconds": 0.75, "objective": 9.0}],
        },
        11.5: {"elapsed_seconds": 1.5, "solutions": 2, "improvements": []},
    }
    events = [
        Event(10.2, "progress", {"solutions": 0, "elapsed_seconds": 0.0}),
        Event(11.75, "progress", {"solutions": 2, "elapsed_seconds": 1.5}),  # 11.0 skipped
        Event(14.0, "end", {"status": "completed"}),
    ]
    watch = SimpleNamespace(records={"j": records}, ended={"j": ("completed", 13.75)})
    found = streamed(1, "j", (events, 14.0, True), watch)  # type: ignore[arg-type]
    assert (found.delay, found.same_record, found.found_to_recorded) == (0.75, False, 0.25)
    assert (found.end_event - found.ended, found.closed_after_end) == (0.25, True)


def _until(check: Any) -> None:
    deadline = time.monotonic() + 30
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_the_receiver_holds_a_request_unanswered_until_told_to_answer() -> None:
    request = b"POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
    with HangingReceiver() as receiver:
        port = int(receiver.url.split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sender:
            sender.sendall(request)
            _until(lambda: receiver.held() == 1)
            receiver.answer()
            assert sender.recv(100).startswith(b"HTTP/1.1 200 OK")
        _until(lambda: receiver.held() == 0)
        assert (receiver.accepted, receiver.answered) == (1, 1)
