"""``client.usage`` against a real server (parity with the TypeScript SDK's ``client.usage``), and the
rate-limit headers a usage limit's 429 carries."""

from __future__ import annotations

import sqlite3
import time
import unittest

from svc_client import Client, PermissionDeniedError, RateLimitError
from svc_client.errors import error_from_response, parse_duration, read_rate_limits

from .support.fixtures import ServerTestCase

HOUR_MS = 3_600_000


class UsageTest(ServerTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.client = self.admin()
        self.bob = self.new_user("models:read")
        self.admin_id = self.client.auth.me()["id"]
        hour = int(time.time() * 1000) // HOUR_MS * HOUR_MS - HOUR_MS
        # As another process's meter writes them: hourly totals in the server's database.
        with sqlite3.connect(self.server.home / "auth" / "auth.db", timeout=10) as db:
            db.executemany(
                "INSERT INTO usage_totals VALUES (?, '', ?, 'llama-3', ?, 0, ?, ?, 0, 200)",
                [(hour, self.admin_id, 2, 50, 10), (hour, self.bob["id"], 1, 5, 5)],
            )
        self.addCleanup(self._forget_totals)

    def _forget_totals(self) -> None:
        with sqlite3.connect(self.server.home / "auth" / "auth.db", timeout=10) as db:
            db.execute("DELETE FROM usage_totals")

    def as_bob(self) -> Client:
        client = Client(self.base_url)
        client.login(self.bob["username"], self.bob["password"])
        return client

    def test_an_administrator_sees_everyones_usage_grouped_by_user(self) -> None:
        report = self.client.usage.report(start="now-1d", group_by="user")
        self.assertEqual(report["scope"], "all")
        rows = sorted((row["group"], row["calls"], row["total_tokens"]) for row in report["data"])
        self.assertEqual(rows, sorted([(self.admin_id, 2, 60), (self.bob["id"], 1, 10)]))

    def test_a_user_sees_only_their_own_usage_and_not_anothers(self) -> None:
        bob = self.as_bob()
        report = bob.usage.report(start="now-1d")
        self.assertEqual(report["scope"], "own")
        self.assertEqual([row["calls"] for row in report["data"]], [1])
        with self.assertRaises(PermissionDeniedError):
            bob.usage.report(user_id=self.admin_id)

    def test_csv_export(self) -> None:
        lines = self.as_bob().usage.export_csv(start="now-1d").rstrip("\r\n").split("\r\n")
        self.assertEqual(lines[0], "period_start,group,calls,errors,prompt_tokens,completion_tokens,total_tokens,estimated_calls,mean_latency_ms")
        self.assertTrue(lines[1].endswith(",llama-3,1,0,5,5,10,0,200"), lines[1])


class RateLimitHeadersTest(unittest.TestCase):
    def test_go_durations(self) -> None:
        self.assertEqual(parse_duration("6m0s"), 360.0)
        self.assertEqual(parse_duration("1.5s"), 1.5)
        self.assertAlmostEqual(parse_duration("20ms") or 0.0, 0.02)
        self.assertEqual(parse_duration("0s"), 0.0)
        self.assertIsNone(parse_duration("soon"))
        self.assertIsNone(parse_duration(""))

    def test_a_usage_limits_429_carries_its_limits(self) -> None:
        headers = {
            "Retry-After": "2",
            "x-ratelimit-limit-requests": "60",
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "1.5s",
            "x-ratelimit-limit-tokens": "1000",
        }
        body = b'{"detail": "Rate limit reached", "error": {"message": "Rate limit reached", "type": "rate_limit_error", "code": "rate_limit_exceeded"}}'
        error = error_from_response(429, body, headers)
        self.assertIsInstance(error, RateLimitError)
        assert isinstance(error, RateLimitError)
        self.assertEqual(error.code, "rate_limit_exceeded")
        self.assertEqual(error.retry_after, 2.0)
        self.assertEqual(error.rate_limits, {"requests": {"limit": 60.0, "remaining": 0.0, "reset_seconds": 1.5}})
        self.assertEqual(read_rate_limits({}), {})
