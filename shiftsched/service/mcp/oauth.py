"""The OAuth 2.1 authorization server of the MCP endpoint, on the mcp SDK's routes.

The SDK serves discovery (``/.well-known/oauth-authorization-server``, protected
resource metadata for ``/mcp``), dynamic client registration (``/register``),
``/authorize`` (PKCE S256 required), ``/token`` and ``/revoke``; this provider is the
storage and policy behind them:

* ``authorize`` parks the request and sends the browser to the dashboard, which signs
  the user in and shows an approval page naming the app and what it may do;
* approval connects the app to the account (``shiftsched.service.store.connections``) and
  redirects back to the app with a one-time code; the code buys an access token (1 h)
  and a refresh token (30 days, rotated on use);
* an access token authenticates exactly like the account's connection key, so the MCP
  tools call the v1 API with it and billing is the account's; Bearer API keys keep
  working on ``/mcp`` as before;
* a client registers only redirect URIs a browser can safely be sent to with a code
  (``redirect_uri_problem``), and a code presented a second time revokes every token
  issued from it (RFC 6749 §4.1.2): whoever replays it may be the thief, or the thief
  may have been first.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any, Final
from urllib.parse import urlsplit

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    RegistrationError,
    TokenError,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl
from starlette.applications import Starlette

from shiftsched.service.store import ACCESS_TOKEN_PREFIX, Store
from shiftsched.service.store.authorizations import Authorizations
from shiftsched.service.store.tokens import IssuedTokens, Tokens
from shiftsched.service.threads import in_thread

SCOPE: Final = "solve"
APPROVAL_PATH: Final = "/dashboard/oauth/approve"
LOOPBACK_NAMES: Final = frozenset({"localhost"})
_HOST: Final = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")


def redirect_uri_problem(uri: str) -> str | None:
    """Why ``uri`` cannot be a redirect URI, or None when it can.

    A code travels in the redirect, so it goes only where the network keeps it private:
    ``https`` to a named host, or ``http`` to this machine's loopback interface, which a
    native app listens on (RFC 8252 §7.3; ``localhost`` too, as clients write it). Any
    other scheme (``javascript:``, ``data:``, ``file:``, an app's private scheme) is
    refused, as are a fragment (RFC 6749 §3.1.2) and user info, which makes a host look
    like another on the approval page.
    """
    try:
        parts = urlsplit(uri)
        _ = parts.port  # a malformed port raises here
    except ValueError:
        return f"{uri!r} is not a URL"
    host = parts.hostname or ""
    if parts.scheme not in ("https", "http") or not host:
        return f"{uri!r} is neither an https URL nor an http URL on the loopback interface"
    if parts.fragment or uri.endswith("#"):
        return f"{uri!r} has a fragment"
    if parts.username is not None or parts.password is not None:
        return f"{uri!r} has user info before its host"
    loopback = _is_loopback(host)
    if not loopback and not _HOST.fullmatch(host):
        return f"{uri!r} has no valid host name"
    if parts.scheme == "http" and not loopback:
        return f"{uri!r} is plain http to a host other than the loopback interface"
    return None


def redirect_origin(uri: str) -> str:
    """The origin (scheme, host, port) of an accepted redirect URI, as CSP writes it."""
    parts = urlsplit(uri)
    host = parts.hostname or ""
    shown = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{shown}" + (f":{parts.port}" if parts.port else "")


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class OAuthProvider:
    """``OAuthAuthorizationServerProvider`` over the service database."""

    def __init__(self, public_api: Starlette, public_url: str) -> None:
        self.public_api = public_api
        self.public_url = public_url.rstrip("/")

    @property
    def store(self) -> Store:
        store: Store = self.public_api.state.store  # opened by the API's lifespan
        return store

    @property
    def authorizations(self) -> Authorizations:
        return self.store.authorizations

    @property
    def tokens(self) -> Tokens:
        return self.store.tokens

    # Clients -----------------------------------------------------------------------------

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        info = await in_thread(self.authorizations.client, client_id)
        return OAuthClientInformationFull.model_validate(info) if info is not None else None

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        """Saved when every redirect URI is one a code may be sent to (RFC 7591 §3.2.2:
        ``invalid_redirect_uri`` otherwise, answered 400 by the SDK)."""
        uris = [str(uri) for uri in client_info.redirect_uris or []]
        if not uris:
            raise RegistrationError("invalid_redirect_uri", "give at least one redirect URI")
        for uri in uris:
            problem = redirect_uri_problem(uri)
            if problem is not None:
                raise RegistrationError("invalid_redirect_uri", problem)
        info = client_info.model_dump(mode="json", exclude_none=True)
        await in_thread(self.authorizations.save_client, str(client_info.client_id), info)

    # Authorization -----------------------------------------------------------------------

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        scopes = params.scopes or [SCOPE]
        if any(scope != SCOPE for scope in scopes):
            raise AuthorizeError("invalid_scope", f"the only scope is {SCOPE!r}")
        parked = {**params.model_dump(mode="json"), "scopes": scopes}
        request_id = await in_thread(
            self.authorizations.save_request, str(client.client_id), parked
        )
        return f"{self.public_url}{APPROVAL_PATH}?request={request_id}"

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        found = await in_thread(self.tokens.code, authorization_code)
        if found is None:
            return None
        if found.spent:  # replayed: the SDK answers invalid_grant for a code it cannot load
            await in_thread(self.tokens.revoke_code_grant, authorization_code)
            return None
        if found.client_id != client.client_id:
            return None
        params = found.params
        return AuthorizationCode(
            code=authorization_code,
            scopes=list(params.get("scopes") or [SCOPE]),
            expires_at=found.expires_at.timestamp(),
            client_id=found.client_id,
            code_challenge=params["code_challenge"],
            redirect_uri=AnyUrl(params["redirect_uri"]),
            redirect_uri_provided_explicitly=bool(params["redirect_uri_provided_explicitly"]),
            resource=params.get("resource"),
            subject=found.account_id,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        issued = await in_thread(
            self.tokens.exchange_code, authorization_code.code, authorization_code.resource
        )
        if issued is None:  # spent by a request racing this one: both are a replay
            await in_thread(self.tokens.revoke_code_grant, authorization_code.code)
            raise TokenError("invalid_grant", "the authorization code was already used")
        return _oauth_token(issued)

    # Tokens ------------------------------------------------------------------------------

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        record = await in_thread(self.tokens.token, refresh_token)
        if record is None or record.kind != "refresh" or record.client_id != client.client_id:
            return None
        return RefreshToken(
            token=refresh_token,
            client_id=record.client_id,
            scopes=record.scopes,
            expires_at=int(record.expires_at.timestamp()),
            resource=record.resource,
            subject=record.account_id,
        )

    async def exchange_refresh_token(
        self,
        client: OAuthClientInformationFull,
        refresh_token: RefreshToken,
        scopes: list[str],
    ) -> OAuthToken:
        rotate = self.tokens.rotate_refresh_token
        issued = await in_thread(
            rotate, refresh_token.token, scopes or refresh_token.scopes, refresh_token.resource
        )
        if issued is None:
            raise TokenError("invalid_grant", "the refresh token was already used or revoked")
        return _oauth_token(issued)

    async def load_access_token(self, token: str) -> AccessToken | None:
        """An OAuth access token of a live connection, or an enabled API key."""
        if token.startswith(ACCESS_TOKEN_PREFIX):
            record = await in_thread(self.tokens.token, token)
            if record is None or record.kind != "access":
                return None
            return AccessToken(
                token=token,
                client_id=record.client_id,
                scopes=record.scopes,
                expires_at=int(record.expires_at.timestamp()),
                resource=record.resource,
                subject=record.account_id,
            )
        store: Store | None = getattr(self.public_api.state, "store", None)
        if store is None:
            return None
        account = await in_thread(store.accounts.authenticate, token)
        if account is None:
            return None
        return AccessToken(token=token, client_id=account.id, scopes=[SCOPE], subject=account.id)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        await in_thread(self.tokens.revoke_token_family, token.token)

    async def exchange_identity_assertion(self, client: Any, params: Any) -> OAuthToken:
        raise TokenError("unsupported_grant_type", "identity assertions are not accepted")


def _oauth_token(issued: IssuedTokens) -> OAuthToken:
    return OAuthToken(
        access_token=issued.access_token,
        expires_in=issued.expires_in,
        scope=" ".join(issued.scopes),
        refresh_token=issued.refresh_token,
    )
