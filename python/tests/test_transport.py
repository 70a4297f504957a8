"""Retries and timeouts, through a proxy in front of a real server that answers the first requests
with a fault: which calls are retried, how often, and what is raised when they are not."""

from __future__ import annotations

import socket

from svc_client import APIConnectionError, APIError, APIConnectionTimeoutError, Client, ConflictError, InternalServerError, RateLimitError

from .support.fixtures import ProxiedServerTestCase, ServerTestCase, long_password, unique_name
from .support.proxy import answer, delay, drop_connection

UNAVAILABLE = b'{"detail":"The service is temporarily unavailable","error":{"message":"The service is temporarily unavailable","type":"server_error","code":"service_unavailable"}}'
TOO_MANY = b'{"detail":"Too many requests","error":{"message":"Too many requests","type":"rate_limit_error","code":"rate_limited"}}'
JSON = {"Content-Type": "application/json"}


class RetryTest(ProxiedServerTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.client = Client(self.proxy.base_url, api_key=self.admin_key)

    def test_a_get_is_retried_after_a_503_honouring_retry_after(self) -> None:
        self.proxy.fail_next(answer(503, {**JSON, "Retry-After": "0"}, UNAVAILABLE), times=2)
        self.assertGreaterEqual(len(self.client.keys.list()), 1)
        self.assertEqual(self.proxy.requests, ["GET /v1/admin/keys fault", "GET /v1/admin/keys fault", "GET /v1/admin/keys 200"])

    def test_retry_after_ms_is_honoured_too(self) -> None:
        self.proxy.fail_next(answer(429, {**JSON, "retry-after-ms": "5"}, TOO_MANY))
        self.client.auth.me()
        self.assertEqual(self.proxy.count("GET /v1/auth/me"), 2)

    def test_gives_up_after_max_retries_with_the_last_error(self) -> None:
        self.proxy.fail_next(answer(503, {**JSON, "Retry-After": "0"}, UNAVAILABLE), times=3)
        with self.assertRaises(InternalServerError) as caught:
            self.client.auth.me()
        self.assertEqual((caught.exception.status, caught.exception.code), (503, "service_unavailable"))
        self.assertEqual(self.proxy.count("GET /v1/auth/me"), 3, "one attempt and two retries")

    def test_max_retries_zero_sends_once(self) -> None:
        client = Client(self.proxy.base_url, api_key=self.admin_key, max_retries=0)
        self.proxy.fail_next(answer(503, {**JSON, "Retry-After": "0"}, UNAVAILABLE))
        with self.assertRaises(InternalServerError):
            client.auth.me()
        self.assertEqual(self.proxy.count("GET /v1/auth/me"), 1)

    def test_a_post_is_never_retried(self) -> None:
        self.proxy.fail_next(answer(503, {**JSON, "Retry-After": "0"}, UNAVAILABLE))
        username = unique_name("erin")
        with self.assertRaises(InternalServerError):
            self.client.users.create(username, long_password(username))
        self.assertEqual(self.proxy.requests, ["POST /v1/admin/users fault"])

    def test_a_conflict_is_not_retried(self) -> None:
        username = unique_name("fred")
        self.client.users.create(username, long_password(username))
        user_id = next(user["id"] for user in self.client.users.list() if user["username"] == username)
        self.proxy.reset()
        self.proxy.fail_next(answer(409, JSON, b'{"detail":"busy","error":{"message":"busy","type":"conflict_error","code":"last_admin"}}'))
        with self.assertRaises(ConflictError):
            self.client.users.update(user_id, enabled=False)
        self.assertEqual(self.proxy.requests, [f"PUT /v1/admin/users/{user_id} fault"])

    def test_a_wait_longer_than_a_minute_is_not_waited_for(self) -> None:
        self.proxy.fail_next(answer(429, {**JSON, "Retry-After": "120"}, TOO_MANY))
        with self.assertRaises(RateLimitError) as caught:
            self.client.auth.me()
        self.assertEqual(caught.exception.retry_after, 120.0)
        self.assertEqual(self.proxy.count("GET /v1/auth/me"), 1)

    def test_a_dropped_connection_is_retried_for_a_get(self) -> None:
        self.proxy.fail_next(drop_connection)
        self.assertEqual(self.client.auth.me()["username"], "admin")
        self.assertEqual(self.proxy.requests, ["GET /v1/auth/me fault", "GET /v1/auth/me 200"])

    def test_a_dropped_connection_fails_a_post(self) -> None:
        self.proxy.fail_next(drop_connection)
        username = unique_name("gina")
        with self.assertRaises(APIConnectionError) as caught:
            self.client.users.create(username, long_password(username))
        self.assertNotIsInstance(caught.exception, APIConnectionTimeoutError)
        self.assertIn(self.proxy.base_url, str(caught.exception))
        self.assertIsNone(caught.exception.status)

    def test_no_answer_within_the_timeout(self) -> None:
        client = Client(self.proxy.base_url, api_key=self.admin_key, timeout=0.2, max_retries=0)
        self.proxy.fail_next(delay(2))
        with self.assertRaises(APIConnectionTimeoutError) as caught:
            client.auth.me()
        self.assertEqual(str(caught.exception), "The svc server did not answer within 0.2 s")


    def test_a_redirect_is_not_followed(self) -> None:
        self.proxy.fail_next(answer(302, {"Location": "http://127.0.0.1:9/elsewhere"}))
        with self.assertRaises(APIError) as caught:
            self.client.auth.me()
        self.assertEqual(caught.exception.status, 302)
        self.assertEqual(self.proxy.requests, ["GET /v1/auth/me fault"], "the credentials went nowhere else")

    def test_sends_the_configured_headers_and_json(self) -> None:
        client = Client(self.proxy.base_url, api_key=self.admin_key, headers={"X-Team": "research"})
        username = unique_name("hal")
        client.users.create(username, long_password(username))
        sent = self.proxy.request_headers[-1]
        self.assertEqual(sent["x-team"], "research")
        self.assertEqual(sent["authorization"], f"Bearer {self.admin_key}")
        self.assertEqual(sent["content-type"], "application/json")
        self.assertEqual(sent["accept"], "application/json")

    def test_public_routes_carry_no_credentials(self) -> None:
        self.client.setup.status()
        self.assertNotIn("authorization", self.proxy.request_headers[-1])


class UnreachableTest(ServerTestCase):
    set_up_admin = False

    def test_a_closed_port_is_a_connection_error(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        with self.assertRaises(APIConnectionError) as caught:
            Client(f"http://127.0.0.1:{port}", max_retries=0).setup.status()
        self.assertIn(f"127.0.0.1:{port}", caught.exception.message)
