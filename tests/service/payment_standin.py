"""A scriptable stand-in for the x402 facilitator and the mpp payment provider.

Run as its own process (``python -m tests.service.payment_standin PORT``): a real HTTP
server on loopback that the service under test talks to exactly as it would to the
real ones. Tests script its answers over HTTP:

* ``POST /_script`` with any of ``verify`` (check | invalid | error | slow | garbage),
  ``settle`` (check | fail | error | slow | drop), ``provider`` (ok | error | slow),
  ``capture`` (ok | fail | slow | drop) and ``delay`` (seconds, for slow);
* ``POST /_payments`` creates a provider payment; ``GET /_calls`` lists every call
  received; ``POST /_reset`` forgets calls, payments, settled nonces and the script.

In ``check`` mode the facilitator judges like a real one would, from what it is sent:
the signature must not be ``0xbad``, the authorization must pay the requirements'
recipient at least their amount, and a nonce settles once (a second settle answers
``success: false, errorReason: nonce_already_used``).
"""

from __future__ import annotations

import hashlib
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_SCRIPT: dict[str, Any] = {
    "verify": "check",
    "settle": "check",
    "provider": "ok",
    "capture": "ok",
    "delay": 3.0,
}


class State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.script = dict(DEFAULT_SCRIPT)
        self.calls: list[dict[str, Any]] = []
        self.payments: dict[str, dict[str, Any]] = {}
        self.settled: set[str] = set()


STATE = State()


def _terms(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], str, str]:
    """(authorization, requirements, required amount, network) of a verify/settle body."""
    payload = body.get("paymentPayload") or {}
    requirements = body.get("paymentRequirements") or {}
    authorization = (payload.get("payload") or {}).get("authorization") or {}
    amount = requirements.get("maxAmountRequired") or requirements.get("amount") or "0"
    return authorization, requirements, str(amount), str(requirements.get("network", ""))


def _judge(body: dict[str, Any]) -> dict[str, Any]:
    authorization, requirements, amount, _ = _terms(body)
    payer = authorization.get("from", "0xpayer")
    signature = ((body.get("paymentPayload") or {}).get("payload") or {}).get("signature")
    if signature == "0xbad":
        return {"isValid": False, "invalidReason": "invalid_exact_evm_payload_signature"}
    if str(authorization.get("to", "")).lower() != str(requirements.get("payTo", "")).lower():
        return {"isValid": False, "invalidReason": "invalid_exact_evm_payload_recipient_mismatch"}
    if int(authorization.get("value", 0)) < int(amount):
        return {"isValid": False, "invalidReason": "invalid_exact_evm_payload_authorization_value"}
    if authorization.get("nonce") in STATE.settled:
        return {"isValid": False, "invalidReason": "invalid_exact_evm_payload_nonce_used"}
    return {"isValid": True, "payer": payer}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes; without this, Nagle's algorithm and the
        # client's delayed ACK add about 40 ms to every answer.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            data = json.loads(raw) if raw else {}
        except ValueError:
            data = {"_raw": raw.decode(errors="replace")}
        return data if isinstance(data, dict) else {"_value": data}

    def _send(self, status: int, body: Any, raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _drop(self) -> None:
        """Close the connection without an answer, as a crashed peer would."""
        self.close_connection = True
        self.wfile.flush()
        self.connection.shutdown(2)

    def _record(self, body: dict[str, Any]) -> dict[str, Any]:
        with STATE.lock:
            STATE.calls.append({"method": self.command, "path": self.path, "body": body})
            return dict(STATE.script)

    def do_GET(self) -> None:
        if self.path == "/_calls":
            with STATE.lock:
                self._send(200, STATE.calls)
            return
        if self.path == "/supported":
            self._send(200, {"kinds": [{"x402Version": 2, "scheme": "exact", "network": "*"}]})
            return
        script = self._record({})
        if self.path.startswith("/payments/"):
            self._provider_get(script, self.path.removeprefix("/payments/"))
            return
        self._send(404, {"error": "no such path"})

    def do_POST(self) -> None:
        body = self._body()
        if self.path == "/_script":
            with STATE.lock:
                STATE.script.update(body)
            self._send(200, STATE.script)
            return
        if self.path == "/_reset":
            with STATE.lock:
                STATE.reset()
            self._send(200, {})
            return
        if self.path == "/_payments":
            with STATE.lock:
                STATE.payments[body["id"]] = body
            self._send(200, body)
            return
        script = self._record(body)
        if self.path == "/verify":
            self._verify(script, body)
        elif self.path == "/settle":
            self._settle(script, body)
        elif self.path.startswith("/payments/") and self.path.endswith("/capture"):
            self._capture(script, self.path.removeprefix("/payments/").removesuffix("/capture"))
        else:
            self._send(404, {"error": "no such path"})

    # facilitator ------------------------------------------------------------------------

    def _verify(self, script: dict[str, Any], body: dict[str, Any]) -> None:
        mode = script["verify"]
        if mode == "slow":
            time.sleep(float(script["delay"]))
        if mode == "error":
            self._send(500, {"error": "facilitator failure"})
        elif mode == "garbage":
            self._send(200, None, raw=b"<html>not json</html>")
        elif mode == "invalid":
            self._send(200, {"isValid": False, "invalidReason": "insufficient_funds"})
        else:
            with STATE.lock:
                verdict = _judge(body)
            self._send(200, verdict)

    def _settle(self, script: dict[str, Any], body: dict[str, Any]) -> None:
        mode = script["settle"]
        authorization, _, amount, network = _terms(body)
        if mode == "slow":
            time.sleep(float(script["delay"]))
        if mode == "drop":
            self._drop()
            return
        if mode == "error":
            self._send(502, {"error": "bad gateway"})
            return
        nonce = str(authorization.get("nonce", ""))
        with STATE.lock:
            collision = nonce in STATE.settled
            if mode != "fail" and not collision:
                STATE.settled.add(nonce)
        if mode == "fail" or collision:
            reason = "nonce_already_used" if collision else "transaction_failed"
            self._send(
                200,
                {"success": False, "errorReason": reason, "transaction": "", "network": network},
            )
            return
        self._send(
            200,
            {
                "success": True,
                "transaction": "0x" + hashlib.sha256(nonce.encode()).hexdigest(),
                "network": network,
                "payer": authorization.get("from"),
                "amount": amount,
            },
        )

    # payment provider -------------------------------------------------------------------

    def _provider_get(self, script: dict[str, Any], payment_id: str) -> None:
        mode = script["provider"]
        if mode == "slow":
            time.sleep(float(script["delay"]))
        if mode == "error":
            self._send(500, {"error": "provider failure"})
            return
        with STATE.lock:
            payment = STATE.payments.get(payment_id)
        if payment is None:
            self._send(404, {"error": "no such payment"})
        else:
            self._send(200, payment)

    def _capture(self, script: dict[str, Any], payment_id: str) -> None:
        mode = script["capture"]
        if mode == "slow":
            time.sleep(float(script["delay"]))
        if mode == "drop":
            self._drop()
            return
        with STATE.lock:
            payment = STATE.payments.get(payment_id)
            capturable = payment is not None and payment.get("status") == "authorized"
            if mode != "fail" and capturable and payment is not None:
                payment["status"] = "captured"
        if mode == "fail" or not capturable or payment is None:
            self._send(409, {"error": "payment cannot be captured"})
            return
        self._send(200, {**payment, "capture_id": "cap_" + payment_id})


def main() -> None:
    port = int(sys.argv[1])
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    print("ready", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
