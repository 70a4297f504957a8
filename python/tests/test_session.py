"""Automatic refresh against a real server, observed through a recording proxy: proactive (the
client knows its token expired) and reactive (the server answers 401 ``token_expired``), exactly one
refresh for any number of threads, and what a failed refresh does to the session."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, List

from svc_client import AuthenticationError, Client, InternalServerError

from .support.fixtures import ProxiedServerTestCase
from .support.proxy import answer
from .support.server import ADMIN_USERNAME, raw_request
from .support.tokens import expired_copy

THREADS = 32


def session_of(client: Client) -> Any:
    """The client's session (private: the tests stand in for the passing of time)."""
    return client._requester.session


def expire_locally(client: Client) -> None:
    """Makes the client believe its access token has expired (as it would after its lifetime)."""
    session = session_of(client)
    stored = session.stored
    session.replace(type(stored)(stored.access_token, stored.refresh_token, 0.0))


def in_threads(call: Callable[[], Any], count: int = THREADS) -> List[Any]:
    """Runs ``call`` in ``count`` threads released together; returns each result or raised error."""
    barrier = threading.Barrier(count)

    def run() -> Any:
        barrier.wait()
        try:
            return call()
        except Exception as error:  # noqa: BLE001 - the caller inspects what each thread got
            return error

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(lambda _: run(), range(count)))


class RefreshTest(ProxiedServerTestCase):
    def forge_expired_token(self, client: Client) -> str:
        """Swaps the client's access token for one signed with the server's real secret and expired
        beyond its leeway, while the client still believes it fresh: only the server's answer can
        trigger the refresh. Returns the forged token."""
        session = session_of(client)
        stored = session.stored
        forged = expired_copy(stored.access_token, self.server.jwt_secret)
        session.replace(type(stored)(forged, stored.refresh_token, stored.access_token_expires_at))
        return forged

    def test_proactive_one_refresh_for_many_threads(self) -> None:
        client = self.logged_in_admin(self.proxy.base_url)
        old = session_of(client).stored
        expire_locally(client)
        self.proxy.reset()

        results = in_threads(client.auth.me)

        self.assertEqual([type(result) for result in results if not isinstance(result, dict)], [])
        self.assertTrue(all(me["username"] == ADMIN_USERNAME for me in results))
        self.assertEqual(self.proxy.count("POST /v1/auth/refresh"), 1)
        self.assertEqual(self.proxy.count("GET /v1/auth/me"), THREADS, "no call was sent with the old token, none replayed")
        new = session_of(client).stored
        self.assertNotEqual(new.access_token, old.access_token)
        self.assertNotEqual(new.refresh_token, old.refresh_token, "the refresh token was rotated")

    def test_reactive_refresh_and_replay_on_token_expired(self) -> None:
        client = self.logged_in_admin(self.proxy.base_url)
        forged = self.forge_expired_token(client)
        self.proxy.reset()

        self.assertEqual(client.auth.me()["username"], ADMIN_USERNAME)
        self.assertEqual(self.proxy.requests, ["GET /v1/auth/me 401", "POST /v1/auth/refresh 200", "GET /v1/auth/me 200"])
        self.assertNotEqual(session_of(client).stored.access_token, forged)

    def test_reactive_one_refresh_for_many_threads(self) -> None:
        client = self.logged_in_admin(self.proxy.base_url)
        self.forge_expired_token(client)
        self.proxy.reset()

        results = in_threads(client.auth.me)

        self.assertEqual([repr(result) for result in results if not isinstance(result, dict)], [])
        self.assertEqual(self.proxy.count("POST /v1/auth/refresh"), 1)
        self.assertEqual(self.proxy.count("GET /v1/auth/me 200"), THREADS, "every call succeeded once")
        self.assertGreaterEqual(self.proxy.count("GET /v1/auth/me 401"), 1)

    def test_a_refused_refresh_ends_the_session_for_every_waiting_thread(self) -> None:
        client = self.logged_in_admin(self.proxy.base_url)
        # The session is revoked elsewhere (another device logged it out).
        raw_request(self.base_url, "POST", "/v1/auth/logout", {"refresh_token": session_of(client).stored.refresh_token})
        expire_locally(client)
        self.proxy.reset()

        results = in_threads(client.auth.me)

        self.assertEqual({(type(error), error.code) for error in results}, {(AuthenticationError, "invalid_refresh_token")})
        self.assertEqual(self.proxy.count("POST /v1/auth/refresh"), 1)
        self.assertFalse(client.logged_in)
        with self.assertRaises(AuthenticationError) as caught:
            client.auth.me()
        self.assertEqual(caught.exception.code, "missing_credentials")

    def test_a_refresh_failing_on_the_way_keeps_the_session(self) -> None:
        client = self.logged_in_admin(self.proxy.base_url, max_retries=0)
        expire_locally(client)
        self.proxy.fail_next(answer(503, {"Content-Type": "application/json"}, b'{"detail":"down","error":{"message":"down","type":"server_error","code":"service_unavailable"}}'), path="/v1/auth/refresh")

        with self.assertRaises(InternalServerError) as caught:
            client.auth.me()
        self.assertEqual(caught.exception.code, "service_unavailable")
        self.assertTrue(client.logged_in, "a 503 is not a refusal: the session stays")
        self.assertEqual(client.auth.me()["username"], ADMIN_USERNAME, "the next call refreshes")
        self.assertEqual(self.proxy.count("POST /v1/auth/refresh"), 2)

    def test_an_api_key_is_never_refreshed(self) -> None:
        client = Client(self.proxy.base_url, api_key="sk-svc-" + "B" * 49)
        with self.assertRaises(AuthenticationError):
            client.auth.me()
        self.assertEqual(self.proxy.requests, ["GET /v1/auth/me 401"])

