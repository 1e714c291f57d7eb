"""The service's own log lines: one JSON object (or key=value pairs) per line, each with
the request it belongs to.

Why: a 500 answers only a ``request_id`` (problem+json); an operator who is sent that id
must find the matching line. The request-id middleware (``shiftsched.service.http.api``) binds the
id in a context variable for the request's whole life, threads started with ``in_thread``
included (anyio copies the context), and :class:`RequestContext` copies it onto every
record, beside the ``job_id`` a job's lines pass as ``extra``.

Only the ``shiftsched.service`` loggers are configured, once, at service start (:func:`configure`):
BentoML keeps its own handlers and format for its own lines, and ours do not reach its
root handler twice. ``LOG_FORMAT`` chooses ``json`` (the default) or ``text``
(``key=value`` pairs); ``LOG_LEVEL`` the level (default INFO).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Final

LOGGER_NAME: Final = "shiftsched.service"
FORMATS: Final = ("json", "text")
CONTEXT_FIELDS: Final = ("request_id", "job_id")

request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)


@contextmanager
def bound_request_id(request_id: str) -> Iterator[None]:
    """Lines logged inside the block carry ``request_id``; the outer value comes back
    after it (an MCP tool calls the API in-process, a request inside a request)."""
    token = request_id_var.set(request_id)
    try:
        yield
    finally:
        request_id_var.reset(token)


class RequestContext(logging.Filter):
    """Adds ``request_id`` (from the context) to each record that has none; never drops one."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = request_id_var.get()
        return True


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
        "level": record.levelname,
        "logger": record.name,
        "message": record.getMessage(),
    }
    for name in CONTEXT_FIELDS:
        value = getattr(record, name, None)
        if value is not None:
            fields[name] = value
    return fields


class JsonFormatter(logging.Formatter):
    """One JSON object per line; a traceback goes in ``exc_info`` as one string."""

    def format(self, record: logging.LogRecord) -> str:
        fields = _fields(record)
        if record.exc_info:
            fields["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(fields, default=str)


class KeyValueFormatter(logging.Formatter):
    """``key=value`` pairs, values quoted when they hold spaces; a traceback follows."""

    def format(self, record: logging.LogRecord) -> str:
        pairs = (f"{key}={_quoted(str(value))}" for key, value in _fields(record).items())
        line = " ".join(pairs)
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def _quoted(value: str) -> str:
    return json.dumps(value) if not value or any(c in value for c in ' "=\n') else value


def configure(env: Mapping[str, str] | None = None) -> logging.Handler:
    """Send the ``shiftsched.service`` loggers' lines to stdout in ``LOG_FORMAT``; idempotent (a
    second call replaces the handler the first added). Returns the handler."""
    env = os.environ if env is None else env
    chosen = (env.get("LOG_FORMAT") or "json").lower()
    if chosen not in FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(FORMATS)}, not {chosen!r}")
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(JsonFormatter() if chosen == "json" else KeyValueFormatter())
    handler.addFilter(RequestContext())
    handler.set_name("bento-structured")
    logger = logging.getLogger(LOGGER_NAME)
    for old in [h for h in logger.handlers if h.get_name() == handler.get_name()]:
        logger.removeHandler(old)
    logger.addHandler(handler)
    logger.setLevel((env.get("LOG_LEVEL") or "INFO").upper())
    logger.propagate = False
    return handler
