"""What a payment check or a settlement can come to, the same for every scheme."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SettleStatus = Literal["settled", "failed", "facilitator_error", "internal_error"]


class PaymentRejected(Exception):
    """The payment cannot pay for this request (answered 401 naming the scheme)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class PaymentUnavailable(Exception):
    """No verdict from the facilitator or provider (503 with Retry-After at verification;
    ``facilitator_error`` at settlement)."""


@dataclass(frozen=True)
class Settlement:
    """How settling went; ``header`` is the scheme's own proof when settled."""

    status: SettleStatus
    header: str | None = None
    detail: str | None = None
