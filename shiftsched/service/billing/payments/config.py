"""Settings of the two pay-per-solve schemes, read from the environment; off unless set.

x402 is on when ``X402_PAY_TO`` is set, mpp when ``MPP_PAYMENTS_ACCOUNT`` is set. The
other variables have defaults a test network can use. A setting that cannot work (a
network identifier in the wrong form, a price that is not a positive integer) is not
refused at start: payment requirements are built per request, and a request that needs
them gets 503 with Retry-After and a message naming the variable, as the contract asks
("x402 misconfiguration while building payment requirements").
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from shiftsched.service.store.payments import DEFAULT_LEASE_SECONDS

DEFAULT_FACILITATOR_URL: Final = "https://x402.org/facilitator"
DEFAULT_REALM: Final = "shiftsched"

_CAIP2 = re.compile(r"^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$")
"""CAIP-2 chain id (``eip155:84532``): the network form of x402 version 2."""
_LEGACY_NETWORK = re.compile(r"^[a-z0-9][a-z0-9-]{1,62}$")
"""Version 1 network names (``base-sepolia``)."""
LEGACY_CHAIN_IDS: Final[dict[str, str]] = {
    "base": "eip155:8453",
    "base-sepolia": "eip155:84532",
    "ethereum": "eip155:1",
    "polygon": "eip155:137",
    "polygon-amoy": "eip155:80002",
    "avalanche": "eip155:43114",
    "avalanche-fuji": "eip155:43113",
    "sei": "eip155:1329",
    "sei-testnet": "eip155:1328",
    "iotex": "eip155:4689",
    "celo": "eip155:42220",
}
"""Version 1 network names and their CAIP-2 ids (as the x402 package's EVM tables have
them), so one chain has one name in payment claims whichever version paid."""
_POSITIVE_INTEGER = re.compile(r"^[1-9][0-9]*$")
_CURRENCY = re.compile(r"^[a-z]{3}$")


class PaymentMisconfigured(Exception):
    """A payment setting cannot produce valid payment requirements (answered with 503)."""


@dataclass(frozen=True)
class X402Settings:
    """One x402 offer: the asset, network and address paid, and the price of one unit.

    ``price_per_unit`` is in the asset's atomic units (USDC has 6 decimals, so 1000 is
    0.001 USDC). ``network_v1`` is the network name legacy (version 1) clients sign
    for; it defaults to ``network``.
    """

    pay_to: str
    network: str = "eip155:84532"
    asset: str = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"  # USDC on Base Sepolia
    price_per_unit: str = "1000"
    version: int = 2
    scheme: str = "exact"
    max_timeout_seconds: int = 300
    facilitator_url: str = DEFAULT_FACILITATOR_URL
    facilitator_timeout_seconds: float = 10.0
    asset_name: str = "USDC"
    asset_version: str = "2"
    network_v1: str | None = None
    claim_lease_seconds: float = DEFAULT_LEASE_SECONDS

    def checked(self) -> X402Settings:
        """Itself, or PaymentMisconfigured naming the setting that cannot work."""
        if self.version not in (1, 2):
            raise PaymentMisconfigured(f"X402_VERSION must be 1 or 2, not {self.version}")
        if not _CAIP2.fullmatch(self.network) and not (
            self.version == 1 and _LEGACY_NETWORK.fullmatch(self.network)
        ):
            raise PaymentMisconfigured(
                f"X402_NETWORK {self.network!r} is not a CAIP-2 network id such as eip155:8453"
            )
        if self.network_v1 is not None and not _LEGACY_NETWORK.fullmatch(self.network_v1):
            raise PaymentMisconfigured(f"X402_NETWORK_V1 {self.network_v1!r} is not a name")
        v1_chain = LEGACY_CHAIN_IDS.get(self.network_v1 or "")
        if v1_chain is not None and _CAIP2.fullmatch(self.network) and v1_chain != self.network:
            raise PaymentMisconfigured(
                f"X402_NETWORK_V1 {self.network_v1!r} is {v1_chain}, another chain than "
                f"X402_NETWORK {self.network!r}"
            )
        if not _POSITIVE_INTEGER.fullmatch(self.price_per_unit):
            raise PaymentMisconfigured("X402_PRICE_PER_UNIT must be a positive integer")
        if not self.pay_to or not self.asset:
            raise PaymentMisconfigured("X402_PAY_TO and X402_ASSET must not be empty")
        if self.max_timeout_seconds <= 0:
            raise PaymentMisconfigured("X402_MAX_TIMEOUT_SECONDS must be positive")
        _check_lease(self.claim_lease_seconds)
        return self

    def network_for(self, version: int) -> str:
        """The network a payload of this protocol version must name."""
        if version == 1:
            return self.network_v1 or self.network
        return self.network

    def price(self, units: int) -> str:
        """Atomic units of the asset for a solve of ``units`` units."""
        return str(units * int(self.price_per_unit))

    @property
    def chain(self) -> str:
        """The one chain this offer is paid on, as a CAIP-2 id where it is known: what
        a payment claim names, whichever protocol version (and so network form) paid."""
        return caip2(self.network)


def caip2(network: str) -> str:
    """The CAIP-2 id of a network name or id (``base-sepolia`` -> ``eip155:84532``);
    a name not in the table stays as it is."""
    return LEGACY_CHAIN_IDS.get(network, network)


@dataclass(frozen=True)
class MppSettings:
    """The mpp (HTTP ``Payment`` scheme) offer with the payments-link profile.

    The client pays through the payment provider (a payment link or checkout), which
    leaves an *authorized* payment; the service checks it with the provider before
    solving and captures it after. ``provider_url`` is the provider's API root (see
    ``shiftsched.service.billing.payments.mpp_gateway``); ``secret_key`` signs challenges, so every
    process of one deployment must share it.
    """

    payments_account: str
    provider_url: str = "http://127.0.0.1:9"
    provider_key: str = ""
    price_per_unit_minor: str = "1"
    currency: str = "usd"
    checkout_url: str | None = None
    secret_key: str = field(default_factory=lambda: secrets.token_hex(32), repr=False)
    realm: str = DEFAULT_REALM
    provider_timeout_seconds: float = 10.0
    challenge_ttl_seconds: int = 900
    claim_lease_seconds: float = DEFAULT_LEASE_SECONDS

    def checked(self) -> MppSettings:
        if not _POSITIVE_INTEGER.fullmatch(self.price_per_unit_minor):
            raise PaymentMisconfigured("MPP_PRICE_PER_UNIT_MINOR must be a positive integer")
        if not _CURRENCY.fullmatch(self.currency):
            raise PaymentMisconfigured("MPP_CURRENCY must be 3 lowercase letters, e.g. usd")
        if not self.provider_url.startswith(("http://", "https://")):
            raise PaymentMisconfigured("MPP_PROVIDER_URL must be an http(s) URL")
        _check_lease(self.claim_lease_seconds)
        return self

    def price(self, units: int) -> str:
        """Minor units of the currency (cents for usd) for a solve of ``units`` units."""
        return str(units * int(self.price_per_unit_minor))


def x402_from_env(env: Mapping[str, str]) -> X402Settings | None:
    pay_to = env.get("X402_PAY_TO")
    if not pay_to:
        return None
    defaults = X402Settings(pay_to=pay_to)
    return X402Settings(
        pay_to=pay_to,
        network=env.get("X402_NETWORK", defaults.network),
        asset=env.get("X402_ASSET", defaults.asset),
        price_per_unit=env.get("X402_PRICE_PER_UNIT", defaults.price_per_unit),
        version=_int(env, "X402_VERSION", defaults.version),
        scheme=env.get("X402_SCHEME", defaults.scheme),
        max_timeout_seconds=_int(env, "X402_MAX_TIMEOUT_SECONDS", defaults.max_timeout_seconds),
        facilitator_url=env.get("X402_FACILITATOR_URL", defaults.facilitator_url),
        facilitator_timeout_seconds=float(
            env.get("X402_FACILITATOR_TIMEOUT_SECONDS", defaults.facilitator_timeout_seconds)
        ),
        asset_name=env.get("X402_ASSET_NAME", defaults.asset_name),
        asset_version=env.get("X402_ASSET_VERSION", defaults.asset_version),
        network_v1=env.get("X402_NETWORK_V1") or None,
        claim_lease_seconds=_lease(env),
    )


def mpp_from_env(env: Mapping[str, str]) -> MppSettings | None:
    account = env.get("MPP_PAYMENTS_ACCOUNT")
    if not account:
        return None
    defaults = MppSettings(payments_account=account)
    return MppSettings(
        payments_account=account,
        provider_url=env.get("MPP_PROVIDER_URL", defaults.provider_url),
        provider_key=env.get("MPP_PROVIDER_KEY", defaults.provider_key),
        price_per_unit_minor=env.get("MPP_PRICE_PER_UNIT_MINOR", defaults.price_per_unit_minor),
        currency=env.get("MPP_CURRENCY", defaults.currency),
        checkout_url=env.get("MPP_CHECKOUT_URL") or None,
        secret_key=env.get("MPP_SECRET_KEY") or defaults.secret_key,
        realm=env.get("MPP_REALM", defaults.realm),
        provider_timeout_seconds=float(
            env.get("MPP_PROVIDER_TIMEOUT_SECONDS", defaults.provider_timeout_seconds)
        ),
        claim_lease_seconds=_lease(env),
    )


def _lease(env: Mapping[str, str]) -> float:
    """``PAYMENT_CLAIM_LEASE_SECONDS``: how long a request may hold a payment in flight
    before another request carrying the same payment may take it over."""
    value = env.get("PAYMENT_CLAIM_LEASE_SECONDS")
    if not value:
        return DEFAULT_LEASE_SECONDS
    try:
        return float(value)
    except ValueError:
        return -1.0  # refused by checked(), with the variable's name, when first needed


def _check_lease(seconds: float) -> None:
    if not seconds > 0:
        raise PaymentMisconfigured("PAYMENT_CLAIM_LEASE_SECONDS must be a positive number")


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    value = env.get(name)
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        return -1  # refused by checked(), with the variable's name, when first needed
