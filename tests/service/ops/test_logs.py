"""The service's log lines (shiftsched.service.ops.logs): JSON or key=value, with the request id
bound at the time and a job's id, configured once on the ``bento`` loggers only."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from shiftsched.service.ops.logs import LOGGER_NAME, bound_request_id, configure


@pytest.fixture
def configured() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """The ``bento`` logger as the service configures it, writing to a buffer; its
    previous state is back after the test."""
    logger = logging.getLogger(LOGGER_NAME)
    saved = (list(logger.handlers), logger.level, logger.propagate)
    buffer = io.StringIO()
    yield logger, buffer
    logger.handlers[:] = saved[0]
    logger.setLevel(saved[1])
    logger.propagate = saved[2]


def install(logger: logging.Logger, buffer: io.StringIO, log_format: str) -> None:
    handler = configure({"LOG_FORMAT": log_format})
    assert isinstance(handler, logging.StreamHandler)
    handler.setStream(buffer)


def test_json_lines_carry_the_bound_request_id_and_a_jobs_id(
    configured: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, buffer = configured
    install(logger, buffer, "json")
    with bound_request_id("r1"):
        logging.getLogger("shiftsched.service.solving.jobs").warning(
            "job %s: slow", "j1", extra={"job_id": "j1"}
        )
    logging.getLogger("shiftsched.service.solving.jobs").info("outside")
    first, second = (json.loads(line) for line in buffer.getvalue().splitlines())
    assert {k: first[k] for k in ("level", "logger", "message", "request_id", "job_id")} == {
        "level": "WARNING",
        "logger": "shiftsched.service.solving.jobs",
        "message": "job j1: slow",
        "request_id": "r1",
        "job_id": "j1",
    }
    assert "request_id" not in second and second["message"] == "outside"


def test_a_traceback_stays_inside_its_json_line(
    configured: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, buffer = configured
    install(logger, buffer, "json")
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("shiftsched.service.http.api").exception("unexpected error")
    (line,) = buffer.getvalue().splitlines()
    assert "ValueError: boom" in json.loads(line)["exc_info"]


def test_text_lines_are_key_value_pairs(configured: tuple[logging.Logger, io.StringIO]) -> None:
    logger, buffer = configured
    install(logger, buffer, "text")
    with bound_request_id("r2"):
        logging.getLogger("shiftsched.service.billing.paid").warning("payment p: not recorded")
    line = buffer.getvalue().strip()
    assert line.endswith('message="payment p: not recorded" request_id=r2')
    assert " level=WARNING logger=shiftsched.service.billing.paid " in line


def test_configuring_twice_keeps_one_handler_and_stops_propagation(
    configured: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, _ = configured
    configure({})
    configure({"LOG_FORMAT": "text"})
    assert [h.get_name() for h in logger.handlers].count("bento-structured") == 1
    assert logger.propagate is False  # BentoML's root handler does not print it again


def test_an_unknown_format_is_refused(configured: tuple[logging.Logger, io.StringIO]) -> None:
    with pytest.raises(ValueError, match="LOG_FORMAT"):
        configure({"LOG_FORMAT": "xml"})


def test_a_nested_binding_gives_the_outer_id_back(
    configured: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, buffer = configured
    install(logger, buffer, "json")
    with bound_request_id("outer"):
        with bound_request_id("inner"):
            logger.warning("in")
        logger.warning("out")
    ids = [json.loads(line)["request_id"] for line in buffer.getvalue().splitlines()]
    assert ids == ["inner", "outer"]
