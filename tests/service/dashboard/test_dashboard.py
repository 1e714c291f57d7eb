"""The dashboard and OAuth over HTTP, in-process on the whole site, on SQLite and PostgreSQL.

Covers the security rules of the dashboard (CSRF on every form, no session fixation,
rate-limited sign-in, a sign-up that does not tell whether an email has an account, a CSP
whose forms post only to the site, pages need a session, accounts see only their own
things) and the
OAuth flow an MCP client runs (discovery, registration, authorize with PKCE S256,
sign-in, approval, token, refresh, MCP call, revocation), with the credential checks
that go with it: a revoked app or a disabled key is refused on HTTP and on MCP, a
replayed code revokes what it bought, and only safe redirect URIs can be registered.

The limits themselves (per address, behind a proxy) are probed in test_access_limits.py;
here every test signs up and in from one address, so the shared site counts per address
generously.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.testclient import TestClient

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import SolveResponse
from shiftsched.service.dashboard.security import SESSION_COOKIE, SignInLimiter, SignUpLimiter
from shiftsched.service.store import Store
from shiftsched.service.store.tables import DISPLAY_PREFIX_LENGTH
from tests.factories import minimal_request_dict
from tests.service.conftest import BACKENDS
from tests.service.site import site_app, site_settings

pytestmark = pytest.mark.slow  # whole sign-up, sign-in and OAuth flows, a second or more each

ROOT = Path(__file__).resolve().parents[3]
BASE = "http://localhost"
PASSWORD = "correct horse battery"
REDIRECT_URI = "http://localhost:7777/callback"
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module", params=BACKENDS)
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'site.db'}"
    else:
        url = request.getfixturevalue("postgres_server").new_database()
    app = site_app(
        site_settings(url, BASE),
        sign_in_limiter=SignInLimiter(per_email=3, per_address=100_000),
        sign_up_limiter=SignUpLimiter(per_address=100_000, total=100_000),
    )
    with TestClient(app, base_url=BASE, follow_redirects=False) as client:
        yield client


@pytest.fixture
def browser(site: TestClient) -> TestClient:
    """A fresh cookie jar on the same site (another browser)."""
    site.cookies.clear()
    return site


def store_of(client: TestClient) -> Store:
    store: Store = client.app.state.public_api.state.store  # type: ignore[attr-defined]
    return store


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([0-9a-f]+)"', html)
    assert match, html
    return match.group(1)


def form(client: TestClient, page: str, action: str, **fields: str) -> Any:
    token = csrf_of(client.get(page).text)
    return client.post(action, data={"csrf_token": token, **fields})


def sign_up_only(client: TestClient, email: str, password: str = PASSWORD) -> Any:
    return form(
        client,
        "/dashboard/sign-up",
        "/dashboard/sign-up",
        email=email,
        password=password,
        confirm=password,
    )


def sign_up(client: TestClient, email: str | None = None) -> str:
    """A new account, signed in (sign-up leads to the sign-in page)."""
    email = email or f"user-{secrets.token_hex(4)}@example.com"
    response = sign_up_only(client, email)
    assert response.status_code == 303, response.text
    assert response.headers["location"].startswith("/dashboard/sign-in?signed_up=1")
    signed_in = form(
        client, response.headers["location"], "/dashboard/sign-in", email=email, password=PASSWORD
    )
    assert signed_in.status_code == 303, signed_in.text
    return email


def create_key(client: TestClient, label: str = "script") -> str:
    page = form(client, "/dashboard/keys", "/dashboard/keys", label=label)
    assert page.status_code == 200
    match = re.search(r'<code id="new-key">([^<]+)</code>', page.text)
    assert match
    return match.group(1)


def solve(client: TestClient, bearer: str) -> Any:
    return client.post(
        "/v1/public/solve",
        content=json.dumps(minimal_request_dict()),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {bearer}"},
    )


def assert_audited(response: Any) -> None:
    assert response.status_code == 200, response.text
    result = SolveResponse.model_validate(response.json())
    assert result.solution is not None
    report = audit(parse_request(minimal_request_dict()), result.solution.assignments)
    assert report.feasible
    assert compare_with_metrics(report, result.solution.metrics) == []


# --------------------------------------------------------------------------- accounts


def test_sign_up_signs_in_and_a_key_is_shown_once_then_works(browser: TestClient) -> None:
    sign_up(browser)
    key = create_key(browser, "nightly roster")
    assert key.startswith("sk_live_")
    listing = browser.get("/dashboard/keys").text
    assert key not in listing and key[:16] in listing and "nightly roster" in listing
    assert_audited(solve(browser, key))
    usage = browser.get("/dashboard/usage").text
    assert re.search(r'id="total-units">1<', usage)
    assert re.search(r'id="available">99<', usage)


def test_a_disabled_key_is_refused_on_http_and_mcp(browser: TestClient) -> None:
    sign_up(browser)
    key = create_key(browser)
    key_id = re.search(
        r'action="/dashboard/keys/([0-9a-f]+)/disable"', browser.get("/dashboard/keys").text
    )
    assert key_id
    assert mcp_call(browser, key, "get_usage").status_code == 200
    form(browser, "/dashboard/keys", f"/dashboard/keys/{key_id.group(1)}/disable")
    assert solve(browser, key).status_code == 401
    assert mcp_call(browser, key, "get_usage").status_code == 401


def test_email_is_unique_and_passwords_are_checked(browser: TestClient) -> None:
    email = sign_up(browser)
    browser.cookies.clear()
    again = sign_up_only(browser, email.upper(), "another password, longer")
    assert again.status_code == 303  # answered as a new account (next test)...
    user = store_of(browser).users.user_by_email(email)
    assert user is not None and user.email == email  # ...but one account, password kept
    browser.cookies.clear()
    taken = form(
        browser,
        "/dashboard/sign-in",
        "/dashboard/sign-in",
        email=email,
        password="another password, longer",
    )
    assert taken.status_code == 401
    short = form(
        browser,
        "/dashboard/sign-up",
        "/dashboard/sign-up",
        email="x@example.com",
        password="short",
        confirm="short",
    )
    assert short.status_code == 400 and "at least 10" in short.text
    differ = form(
        browser,
        "/dashboard/sign-up",
        "/dashboard/sign-up",
        email="y@example.com",
        password=PASSWORD,
        confirm=PASSWORD + "!",
    )
    assert differ.status_code == 400


def test_a_taken_email_and_a_new_one_get_the_same_sign_up_answer(browser: TestClient) -> None:
    """No account enumeration: status, redirect, body and cookies are alike, and the page
    the redirect leads to is the same."""
    taken = sign_up(browser)
    answers = []
    for email in (taken, f"fresh-{secrets.token_hex(4)}@example.com"):
        browser.cookies.clear()
        response = sign_up_only(browser, email)
        landing = browser.get(response.headers["location"])
        answers.append(
            (
                response.status_code,
                response.headers["location"],
                response.content,
                sorted(name for name, _ in _cookies_set_by(response)),
                landing.status_code,
                re.sub(r'value="[0-9a-f]{64}"', "", landing.text),  # the CSRF token
            )
        )
    assert answers[0] == answers[1]
    status, location, _, cookies, landing_status, landing = answers[0]
    assert status == 303 and cookies == [] and landing_status == 200
    assert location.startswith("/dashboard/sign-in?signed_up=1")
    assert 'id="signed-up"' in landing
    browser.cookies.clear()
    assert sign_up_only(browser, taken).headers.get_list("set-cookie") == []


def test_after_sign_up_signing_in_leads_to_the_welcome(browser: TestClient) -> None:
    email = f"welcome-{secrets.token_hex(4)}@example.com"
    page = browser.get(sign_up_only(browser, email).headers["location"]).text
    hidden_next = re.search(r'name="next" value="([^"]+)"', page)
    assert hidden_next
    signed_in = browser.post(
        "/dashboard/sign-in",
        data={
            "csrf_token": csrf_of(page),
            "next": html.unescape(hidden_next.group(1)),
            "email": email,
            "password": PASSWORD,
        },
    )
    assert signed_in.headers["location"] == "/dashboard/keys?welcome=1"
    assert "Welcome!" in browser.get(signed_in.headers["location"]).text


def test_passwords_are_stored_as_argon2id_hashes(browser: TestClient) -> None:
    email = sign_up(browser)
    user = store_of(browser).users.user_by_email(email)
    assert user is not None and user.password_hash.startswith("$argon2id$")
    assert PASSWORD not in user.password_hash


def test_pages_need_a_session(browser: TestClient) -> None:
    for page in (
        "/dashboard/keys",
        "/dashboard/usage",
        "/dashboard/jobs",
        "/dashboard/apps",
        "/dashboard/tier",
    ):
        response = browser.get(page)
        assert response.status_code == 303
        assert response.headers["location"] == "/dashboard/sign-in?next=" + page.replace("/", "%2F")


# ------------------------------------------------------------------------------ security


@pytest.mark.parametrize(
    ("page", "action", "fields"),
    [
        (
            "/dashboard/sign-up",
            "/dashboard/sign-up",
            {"email": "c@example.com", "password": PASSWORD, "confirm": PASSWORD},
        ),
        (
            "/dashboard/sign-in",
            "/dashboard/sign-in",
            {"email": "c@example.com", "password": PASSWORD},
        ),
    ],
)
def test_anonymous_forms_need_the_csrf_token(
    browser: TestClient, page: str, action: str, fields: dict[str, str]
) -> None:
    browser.get(page)
    missing = browser.post(action, data=fields)
    forged = browser.post(action, data={**fields, "csrf_token": "0" * 64})
    assert missing.status_code == 403 and forged.status_code == 403


def test_signed_in_forms_need_the_csrf_token_of_this_session(browser: TestClient) -> None:
    sign_up(browser)
    before = len(store_of(browser).account_view.keys(_account_id(browser)))
    assert browser.post("/dashboard/keys", data={"label": "x"}).status_code == 403
    stolen = csrf_of(browser.get("/dashboard/keys").text)
    browser.cookies.clear()
    sign_up(browser)  # another user's session: the first one's token is worthless here
    assert (
        browser.post("/dashboard/keys", data={"label": "x", "csrf_token": stolen}).status_code
        == 403
    )
    assert browser.post("/dashboard/sign-out", data={}).status_code == 403
    assert len(store_of(browser).account_view.keys(_account_id(browser))) == before


def test_signing_in_always_starts_a_new_session(browser: TestClient) -> None:
    email = sign_up(browser)
    planted = browser.cookies.get(SESSION_COOKIE)
    assert planted
    form(browser, "/dashboard/keys", "/dashboard/sign-out")
    assert browser.get("/dashboard/keys").status_code == 303  # signed out everywhere
    browser.cookies.clear()
    browser.cookies.set(SESSION_COOKIE, planted)  # an id fixed before sign-in...
    response = form(
        browser, "/dashboard/sign-in", "/dashboard/sign-in", email=email, password=PASSWORD
    )
    assert response.status_code == 303
    fresh = _cookie_set_by(response, SESSION_COOKIE)
    assert fresh and fresh != planted  # ...is replaced, not promoted
    browser.cookies.clear()
    browser.cookies.set(SESSION_COOKIE, planted)
    assert browser.get("/dashboard/keys").status_code == 303


def test_session_cookies_are_httponly_samesite_and_signed(browser: TestClient) -> None:
    email = sign_up(browser)
    browser.cookies.clear()
    token = csrf_of(browser.get("/dashboard/sign-in").text)
    response = browser.post(
        "/dashboard/sign-in", data={"csrf_token": token, "email": email, "password": PASSWORD}
    )
    cookie = next(
        v for v in response.headers.get_list("set-cookie") if v.startswith(SESSION_COOKIE)
    )
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie
    browser.cookies.clear()
    browser.cookies.set(SESSION_COOKIE, "forged-unsigned-session-id")
    assert browser.get("/dashboard/keys").status_code == 303


def test_sign_in_is_rate_limited_per_email(browser: TestClient) -> None:
    email = sign_up(browser)
    browser.cookies.clear()
    statuses = [
        form(
            browser,
            "/dashboard/sign-in",
            "/dashboard/sign-in",
            email=email,
            password="wrong password!",
        ).status_code
        for _ in range(2)  # the sign-in after sign-up was the first of three
    ]
    assert statuses == [401, 401]
    blocked = form(
        browser, "/dashboard/sign-in", "/dashboard/sign-in", email=email, password=PASSWORD
    )
    assert blocked.status_code == 429 and blocked.headers["retry-after"] == "60"


def test_sign_in_only_redirects_inside_the_site(browser: TestClient) -> None:
    email = sign_up(browser)
    browser.cookies.clear()
    token = csrf_of(browser.get("/dashboard/sign-in").text)
    response = browser.post(
        "/dashboard/sign-in",
        data={
            "csrf_token": token,
            "email": email,
            "password": PASSWORD,
            "next": "//evil.example/x",
        },
    )
    assert response.headers["location"] == "/dashboard/keys"


def test_an_account_never_sees_another_accounts_jobs_or_keys(browser: TestClient) -> None:
    store = store_of(browser)
    sign_up(browser)
    key_a = create_key(browser)
    account_a = _account_id(browser)
    store.accounts.set_tier(account_a, "pro")
    job = store.jobs.create_job(account_a, minimal_request_dict())
    assert job.id in browser.get("/dashboard/jobs").text
    browser.cookies.clear()
    sign_up(browser)
    key_b = create_key(browser)
    assert job.id not in browser.get("/dashboard/jobs").text
    assert key_a[:16] not in browser.get("/dashboard/keys").text
    seen_by_b = browser.get(
        f"/v1/public/solve/jobs/{job.id}", headers={"Authorization": f"Bearer {key_b}"}
    )
    assert seen_by_b.status_code == 404
    seen_by_a = browser.get(
        f"/v1/public/solve/jobs/{job.id}", headers={"Authorization": f"Bearer {key_a}"}
    )
    assert seen_by_a.status_code == 200
    store.jobs.finish_job(job.id, "failed", error_code="interrupted")


def test_a_user_cannot_disable_another_accounts_key(browser: TestClient) -> None:
    sign_up(browser)
    key_a = create_key(browser)
    key_id = store_of(browser).account_view.keys(_account_id(browser))[0].id
    browser.cookies.clear()
    sign_up(browser)
    form(browser, "/dashboard/keys", f"/dashboard/keys/{key_id}/disable")
    assert_audited(solve(browser, key_a))


# ---------------------------------------------------------------------------------- OAuth


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def register(client: TestClient, name: str = "Test Assistant") -> str:
    response = client.post(
        "/register",
        json={
            "redirect_uris": [REDIRECT_URI],
            "client_name": name,
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        },
    )
    assert response.status_code == 201, response.text
    client_id: str = response.json()["client_id"]
    return client_id


def authorize(client: TestClient, client_id: str, challenge: str, state: str) -> Any:
    return client.get(
        "/authorize",
        params={
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": REDIRECT_URI,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": state,
            "scope": "solve",
            "resource": f"{BASE}/mcp",
        },
    )


def connect(client: TestClient, name: str = "Test Assistant") -> dict[str, Any]:
    """Register, authorize, approve (signed in already), exchange: the token response."""
    client_id = register(client, name)
    verifier, challenge = pkce()
    state = secrets.token_urlsafe(8)
    approval = authorize(client, client_id, challenge, state).headers["location"]
    page = client.get(approval)
    assert page.status_code == 200 and name in page.text
    request_id = parse_qs(urlsplit(approval).query)["request"][0]
    back = client.post(
        "/dashboard/oauth/approve",
        data={"csrf_token": csrf_of(page.text), "request": request_id, "decision": "approve"},
    )
    assert back.status_code == 303
    query = parse_qs(urlsplit(back.headers["location"]).query)
    assert back.headers["location"].startswith(REDIRECT_URI) and query["state"] == [state]
    tokens = client.post(
        "/token",
        data={
            "grant_type": "authorization_code",
            "code": query["code"][0],
            "redirect_uri": REDIRECT_URI,
            "client_id": client_id,
            "code_verifier": verifier,
        },
    )
    assert tokens.status_code == 200, tokens.text
    return {**tokens.json(), "client_id": client_id, "code": query["code"][0], "verifier": verifier}


def mcp_call(
    client: TestClient, bearer: str, tool: str, arguments: dict[str, Any] | None = None
) -> Any:
    return client.post(
        "/mcp",
        headers={**MCP_HEADERS, "Authorization": f"Bearer {bearer}"},
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments or {}},
        },
    )


def jsonrpc_message(stream: str) -> Any:
    """The JSON-RPC message of an MCP answer, which comes as an event stream (its data)."""
    data = next(line for line in stream.splitlines() if line.startswith("data:"))
    return json.loads(data.removeprefix("data:"))


def test_discovery_documents_name_the_oauth_endpoints(browser: TestClient) -> None:
    server = browser.get("/.well-known/oauth-authorization-server").json()
    assert server["authorization_endpoint"] == f"{BASE}/authorize"
    assert server["registration_endpoint"] == f"{BASE}/register"
    assert server["revocation_endpoint"] == f"{BASE}/revoke"
    assert server["code_challenge_methods_supported"] == ["S256"]
    resource = browser.get("/.well-known/oauth-protected-resource/mcp").json()
    assert resource["resource"] == f"{BASE}/mcp"
    challenge = browser.post(
        "/mcp", headers=MCP_HEADERS, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    )
    assert challenge.status_code == 401
    assert "resource_metadata=" in challenge.headers["www-authenticate"]


def test_authorize_sends_an_anonymous_browser_to_sign_in_first(browser: TestClient) -> None:
    client_id = register(browser)
    _, challenge = pkce()
    approval = authorize(browser, client_id, challenge, "s").headers["location"]
    assert approval.startswith(f"{BASE}/dashboard/oauth/approve?request=")
    to_sign_in = browser.get(approval)
    assert to_sign_in.status_code == 303
    assert to_sign_in.headers["location"].startswith(
        "/dashboard/sign-in?next=%2Fdashboard%2Foauth%2Fapprove"
    )


def test_the_oauth_flow_gives_a_token_that_solves_over_mcp_and_bills_the_account(
    browser: TestClient,
) -> None:
    sign_up(browser)
    tokens = connect(browser)
    assert tokens["token_type"] == "Bearer" and tokens["scope"] == "solve"
    account_id = _account_id(browser)
    before = store_of(browser).ledger.usage(account_id)
    result = mcp_call(
        browser, tokens["access_token"], "solve_shift", {"request": minimal_request_dict()}
    )
    assert result.status_code == 200, result.text
    payload = jsonrpc_message(result.text)["result"]
    assert not payload.get("isError"), payload
    assert_audited(_Json(payload["structuredContent"]))
    assert store_of(browser).ledger.usage(account_id)[2] == before[2] - 1
    keys = store_of(browser).account_view.keys(account_id)
    assert [key.kind for key in keys] == ["connection"]  # provisioned, plaintext never shown
    assert "Test Assistant" in browser.get("/dashboard/apps").text


def test_a_second_app_reuses_the_accounts_connection_key(browser: TestClient) -> None:
    sign_up(browser)
    connect(browser, "First Assistant")
    connect(browser, "Second Assistant")
    keys = store_of(browser).account_view.keys(_account_id(browser))
    assert [key.kind for key in keys] == ["connection"]
    assert len(store_of(browser).connections.of_account(_account_id(browser))) == 2


def test_a_code_is_single_use_and_needs_the_pkce_verifier(browser: TestClient) -> None:
    sign_up(browser)
    client_id = register(browser)
    verifier, challenge = pkce()
    approval = authorize(browser, client_id, challenge, "s").headers["location"]
    page = browser.get(approval)
    request_id = parse_qs(urlsplit(approval).query)["request"][0]
    back = browser.post(
        "/dashboard/oauth/approve",
        data={"csrf_token": csrf_of(page.text), "request": request_id, "decision": "approve"},
    )
    code = parse_qs(urlsplit(back.headers["location"]).query)["code"][0]
    exchange = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT_URI,
        "client_id": client_id,
    }
    wrong = browser.post("/token", data={**exchange, "code_verifier": pkce()[0]})
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    assert browser.post("/token", data={**exchange, "code_verifier": verifier}).status_code == 200
    again = browser.post("/token", data={**exchange, "code_verifier": verifier})
    assert again.status_code == 400


def test_a_replayed_code_revokes_every_token_it_bought(browser: TestClient) -> None:
    """RFC 6749 §4.1.2: the second exchange fails, and the first one's tokens (and those
    refreshed from them) stop working; another connection of the account keeps its own."""
    sign_up(browser)
    other = connect(browser, "Other Assistant")
    tokens = connect(browser)
    renewed = browser.post(
        "/token",
        data={
            "grant_type": "refresh_token",
            "client_id": tokens["client_id"],
            "refresh_token": tokens["refresh_token"],
        },
    ).json()
    assert mcp_call(browser, renewed["access_token"], "get_usage").status_code == 200
    replay = browser.post(
        "/token",
        data={
            "grant_type": "authorization_code",
            "code": tokens["code"],
            "redirect_uri": REDIRECT_URI,
            "client_id": tokens["client_id"],
            "code_verifier": tokens["verifier"],
        },
    )
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    for access in (tokens["access_token"], renewed["access_token"]):
        assert mcp_call(browser, access, "get_usage").status_code == 401
        assert solve(browser, access).status_code == 401
    refreshed = browser.post(
        "/token",
        data={
            "grant_type": "refresh_token",
            "client_id": tokens["client_id"],
            "refresh_token": renewed["refresh_token"],
        },
    )
    assert refreshed.status_code == 400
    assert mcp_call(browser, other["access_token"], "get_usage").status_code == 200


@pytest.mark.parametrize(
    "uri",
    [
        "javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "http://evil.example/callback",
        "https://user@evil.example/callback",
        "https://app.example/callback#fragment",
        "com.example.app:/callback",
    ],
)
def test_registration_refuses_unsafe_redirect_uris(browser: TestClient, uri: str) -> None:
    response = browser.post(
        "/register",
        json={
            "redirect_uris": [REDIRECT_URI, uri],
            "client_name": "Unsafe",
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code"],
            "response_types": ["code"],
        },
    )
    assert response.status_code == 400, response.text
    assert response.json()["error"] == "invalid_redirect_uri"


@pytest.mark.parametrize(
    "uri",
    [
        "https://assistant.example/oauth/callback",
        "http://127.0.0.1:33418/callback",
        "http://[::1]:8080/cb",
        "http://localhost/cb",
    ],
)
def test_registration_takes_https_and_loopback_redirect_uris(browser: TestClient, uri: str) -> None:
    response = browser.post(
        "/register",
        json={
            "redirect_uris": [uri],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code"],
            "response_types": ["code"],
        },
    )
    assert response.status_code == 201, response.text


def test_a_client_registered_before_the_rule_is_not_sent_an_unsafe_redirect(
    browser: TestClient,
) -> None:
    sign_up(browser)
    store = store_of(browser)
    client_id = f"legacy-{secrets.token_hex(4)}"
    store.authorizations.save_client(
        client_id, {"client_id": client_id, "redirect_uris": ["javascript:x"]}
    )
    params = {"redirect_uri": "javascript:x", "scopes": ["solve"], "state": "s"}
    request_id = store.authorizations.save_request(client_id, params)
    page = browser.get(f"/dashboard/oauth/approve?request={request_id}")
    assert page.status_code == 400 and "Unsafe app address" in page.text
    answer = browser.post(
        "/dashboard/oauth/approve",
        data={"csrf_token": csrf_of(page.text), "request": request_id, "decision": "approve"},
    )
    assert answer.status_code == 400 and "location" not in answer.headers
    assert store.connections.of_account(_account_id(browser)) == []


def test_forms_post_only_to_the_site_and_approval_to_the_apps_origin_too(
    browser: TestClient,
) -> None:
    def form_action(response: Any) -> list[str]:
        policy = response.headers["content-security-policy"]
        [directive] = [d.strip() for d in policy.split(";") if "form-action" in d]
        return directive.split()[1:]

    for page in ("/dashboard/sign-in", "/dashboard/sign-up"):
        assert form_action(browser.get(page)) == ["'self'"]
    sign_up(browser)
    assert form_action(browser.get("/dashboard/keys")) == ["'self'"]
    client_id = register(browser)
    _, challenge = pkce()
    approval = browser.get(authorize(browser, client_id, challenge, "s").headers["location"])
    assert approval.status_code == 200
    assert form_action(approval) == ["'self'", "http://localhost:7777"]


def test_denying_sends_access_denied_back_and_connects_nothing(browser: TestClient) -> None:
    sign_up(browser)
    client_id = register(browser)
    _, challenge = pkce()
    approval = authorize(browser, client_id, challenge, "st").headers["location"]
    page = browser.get(approval)
    request_id = parse_qs(urlsplit(approval).query)["request"][0]
    back = browser.post(
        "/dashboard/oauth/approve",
        data={"csrf_token": csrf_of(page.text), "request": request_id, "decision": "deny"},
    )
    query = parse_qs(urlsplit(back.headers["location"]).query)
    assert query == {"error": ["access_denied"], "state": ["st"]}
    assert store_of(browser).connections.of_account(_account_id(browser)) == []


def test_approval_needs_the_csrf_token(browser: TestClient) -> None:
    sign_up(browser)
    client_id = register(browser)
    _, challenge = pkce()
    approval = authorize(browser, client_id, challenge, "s").headers["location"]
    browser.get(approval)
    request_id = parse_qs(urlsplit(approval).query)["request"][0]
    forged = browser.post(
        "/dashboard/oauth/approve", data={"request": request_id, "decision": "approve"}
    )
    assert forged.status_code == 403
    assert store_of(browser).connections.of_account(_account_id(browser)) == []


def test_refresh_rotates_and_an_old_refresh_token_is_refused(browser: TestClient) -> None:
    sign_up(browser)
    tokens = connect(browser)
    refresh = {"grant_type": "refresh_token", "client_id": tokens["client_id"]}
    renewed = browser.post("/token", data={**refresh, "refresh_token": tokens["refresh_token"]})
    assert renewed.status_code == 200, renewed.text
    fresh = renewed.json()
    assert fresh["refresh_token"] != tokens["refresh_token"]
    assert mcp_call(browser, fresh["access_token"], "get_usage").status_code == 200
    reused = browser.post("/token", data={**refresh, "refresh_token": tokens["refresh_token"]})
    assert reused.status_code == 400


def test_revoking_the_app_in_the_dashboard_cuts_it_off_at_once(browser: TestClient) -> None:
    sign_up(browser)
    tokens = connect(browser)
    access = tokens["access_token"]
    assert mcp_call(browser, access, "get_usage").status_code == 200
    apps_page = browser.get("/dashboard/apps").text
    app_id = re.search(r'action="/dashboard/apps/([0-9a-f]+)/revoke"', apps_page)
    assert app_id
    form(browser, "/dashboard/apps", f"/dashboard/apps/{app_id.group(1)}/revoke")
    assert mcp_call(browser, access, "get_usage").status_code == 401
    assert solve(browser, access).status_code == 401
    refreshed = browser.post(
        "/token",
        data={
            "grant_type": "refresh_token",
            "client_id": tokens["client_id"],
            "refresh_token": tokens["refresh_token"],
        },
    )
    assert refreshed.status_code == 400
    assert "Test Assistant" not in browser.get("/dashboard/apps").text


def test_a_client_can_revoke_its_own_tokens(browser: TestClient) -> None:
    sign_up(browser)
    tokens = connect(browser)
    response = browser.post(
        "/revoke",  # the SDK's revocation form wants client_secret present, even empty
        data={
            "token": tokens["access_token"],
            "client_id": tokens["client_id"],
            "client_secret": "",
        },
    )
    assert response.status_code == 200
    assert mcp_call(browser, tokens["access_token"], "get_usage").status_code == 401


def test_disabling_the_connection_key_stops_every_app(browser: TestClient) -> None:
    sign_up(browser)
    tokens = connect(browser)
    key = store_of(browser).account_view.keys(_account_id(browser))[0]
    form(browser, "/dashboard/keys", f"/dashboard/keys/{key.id}/disable")
    assert mcp_call(browser, tokens["access_token"], "get_usage").status_code == 401


def _cookies_set_by(response: Any) -> list[tuple[str, str]]:
    found = []
    for header in response.headers.get_list("set-cookie"):
        name, _, value = header.split(";", 1)[0].partition("=")
        found.append((name, value))
    return found


def _cookie_set_by(response: Any, name: str) -> str | None:
    for header in response.headers.get_list("set-cookie"):
        if header.startswith(name + "="):
            return str(header.split(";", 1)[0].split("=", 1)[1])
    return None


class _Json:
    """A response-like wrapper for a JSON document that is already decoded."""

    status_code = 200

    def __init__(self, data: Any) -> None:
        self._data = data
        self.text = json.dumps(data)

    def json(self) -> Any:
        return self._data


def _account_id(client: TestClient) -> str:
    cookie = client.cookies.get(SESSION_COOKIE)
    assert cookie
    from shiftsched.service.dashboard.security import CookieSigner
    from tests.service.site import DASHBOARD_SECRET

    session_id = CookieSigner(DASHBOARD_SECRET).unsign(cookie)
    assert session_id
    user = store_of(client).sessions.session_user(session_id)
    assert user
    return user.account_id


def test_the_jobs_page_shows_size_objective_key_and_links_the_result(
    browser: TestClient,
) -> None:
    sign_up(browser)
    key = create_key(browser)
    account = _account_id(browser)
    body = json.dumps(minimal_request_dict())
    solved = browser.post(
        "/v1/public/solve",
        content=body,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
    )
    assert solved.status_code == 200, solved.text
    result = solved.json()
    page = browser.get("/dashboard/jobs").text
    row = page[page.index(result["job_id"]) :].split("</tr>")[0]
    objective = result["solution"]["metrics"]["objective_value"]
    size = store_of(browser).jobs.get_job(account, result["job_id"]).size  # type: ignore[union-attr]
    assert size is not None and f">{size:,}<" in row
    assert f">{objective:,.0f}<" in row
    assert key[:DISPLAY_PREFIX_LENGTH] in row and "script" in row  # the key and its label
    assert " UTC<" in row
    link = re.search(r'href="(/dashboard/jobs/[0-9a-f]{32}\.json)"', row)
    assert link is not None
    fetched = browser.get(link.group(1))
    assert fetched.status_code == 200
    assert fetched.json() == result
    browser.cookies.clear()
    sign_up(browser)  # another account: not its job
    assert browser.get(link.group(1)).status_code == 404


def post_keyed(client: TestClient, path: str, body: Any, key: str) -> Any:
    return client.post(
        f"/v1/public{path}",
        content=json.dumps(body),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
    )


def jobs_rows(client: TestClient, query: str = "") -> dict[str, str]:
    """Each row of the Jobs page (its HTML) by job id."""
    page = client.get(f"/dashboard/jobs{query}")
    assert page.status_code == 200, page.text
    return dict(re.findall(r'<tr data-job-id="([0-9a-f]{32})">(.*?)</tr>', page.text, re.S))


def test_every_charge_has_a_jobs_row_and_the_rows_add_up_to_usage(browser: TestClient) -> None:
    """A charged 422, a solve and a recommendation each answer a job_id whose row shows
    the units charged; the rows add up to the Usage page's total; filters narrow them."""
    sign_up(browser)
    key = create_key(browser)
    infeasible = json.loads((ROOT / "datasets/infeasible/fixed_assignment.json").read_text())
    refused = post_keyed(browser, "/solve", infeasible, key)
    assert refused.status_code == 422 and refused.json()["diagnosis"], refused.text
    solved = solve(browser, key)
    roster = solved.json()["solution"]["assignments"]
    slot = {"date": roster[0]["date"], "shift_id": roster[0]["shift_id"]}
    body = {"request": minimal_request_dict(), "roster": roster[1:], "slot": slot}
    ranked = post_keyed(browser, "/solve/recommend", body, key)
    assert ranked.status_code == 200, ranked.text
    answers = {"solve": refused, "recommendation": ranked}
    ids = {refused.json()["job_id"], solved.json()["job_id"], ranked.json()["job_id"]}

    rows = jobs_rows(browser)
    assert set(rows) == ids
    charged = {job: int(re.findall(r'data-charged="(\d+)"', row)[0]) for job, row in rows.items()}
    for response in (refused, solved, ranked):
        assert charged[response.json()["job_id"]] == int(response.headers["x-units-consumed"])
    usage = browser.get("/dashboard/usage").text
    total = re.search(r'id="total-units">(\d+)<', usage)
    assert total and int(total.group(1)) == sum(charged.values())
    page = browser.get("/dashboard/jobs").text
    assert f'id="units-charged">{sum(charged.values())}<' in page
    for word, response in answers.items():
        assert f'<td class="operation">{word}</td>' in rows[response.json()["job_id"]]
    name = f"Recommendation · {slot['shift_id']} on {slot['date']} · 3 employees"
    assert name in rows[ranked.json()["job_id"]]

    assert set(jobs_rows(browser, "?operation=recommend")) == {ranked.json()["job_id"]}
    assert set(jobs_rows(browser, "?status=failed")) == {refused.json()["job_id"]}
    assert set(jobs_rows(browser, "?status=bogus&page=x")) == ids  # names nothing: no filter
    assert jobs_rows(browser, "?page=2") == {}
