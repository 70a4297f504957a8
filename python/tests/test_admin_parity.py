"""Audit search and export, security settings and bans, and a key's own bans, against a real server
(parity with the TypeScript SDK's ``client.audit``, ``client.security`` and ``client.keys``)."""

from __future__ import annotations

import json

from svc_client import AuthenticationError, BadRequestError, Client, NotFoundError, PermissionDeniedError, RateLimitError

from .support.fixtures import ServerTestCase, unique_name


class AuditTest(ServerTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.client = self.admin()

    def test_search_filters_and_pages(self) -> None:
        with self.assertRaises(AuthenticationError):
            Client(self.base_url).login("admin", "a wrong password for the audit")
        found = self.client.audit.search(time_from="now-1h", status=["login_failed", "ip_banned"], size=5)
        self.assertGreaterEqual(found["total"], 1)
        self.assertTrue(all(hit["status"] in ("login_failed", "ip_banned") for hit in found["hits"]))
        self.assertEqual(found["hits"][0]["@timestamp"], found["hits"][0]["timestamp"])
        later = self.client.audit.search(time_from="now-1h", status=["login_failed", "ip_banned"], page_from=found["total"])
        self.assertEqual(later["hits"], [])
        options = self.client.audit.filter_options(time_from="now-1h")
        self.assertIn("login_failed", options["status"])
        self.assertTrue(self.client.audit.verify()["ok"])

    def test_export_csv_and_records(self) -> None:
        csv = b"".join(self.client.audit.export("csv", time_from="now-1h")).decode("utf-8")
        self.assertTrue(csv.startswith("id,timestamp,"), csv[:40])
        records = list(self.client.audit.export_records(time_from="now-1h", category="auth"))
        self.assertTrue(records)
        self.assertTrue(all(record["category"] == "auth" for record in records))
        jsonl = b"".join(self.client.audit.export("jsonl", time_from="now-1h")).decode("utf-8")
        lines = [json.loads(line) for line in jsonl.split("\n") if line]
        self.assertTrue(lines)
        self.assertTrue(all(record["@timestamp"].endswith("Z") for record in lines))

    def test_a_bad_filter_and_a_non_admin_raise_the_sdk_classes(self) -> None:
        with self.assertRaises(BadRequestError):
            self.client.audit.search(time_from="yesterday-ish")
        user = self.new_user("models:list")
        as_user = Client(self.base_url)
        as_user.login(user["username"], user["password"])
        with self.assertRaises(PermissionDeniedError):
            as_user.audit.search()
        with self.assertRaises(PermissionDeniedError):
            list(as_user.audit.export_records())


class SecurityTest(ServerTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.client = self.admin()

    def test_settings_round_trip(self) -> None:
        before = self.client.security.get_settings()
        updated = self.client.security.update_settings({"key": {"ban_seconds": 600}})
        self.assertEqual(updated["key"]["ban_seconds"], 600)
        self.assertEqual(updated["ip"], before["ip"])
        with self.assertRaises(BadRequestError):
            self.client.security.update_settings({"ip": {"max_failures": 0}})
        self.assertEqual(self.client.security.get_settings(), updated)

    def test_bans_of_ips_keys_and_accounts(self) -> None:
        self.assertEqual(self.client.security.unban_ip("203.0.113.9"), 0)
        self.assertEqual(self.client.security.unban_key("203.0.113.9", "sha256:0123456789abcdef"), 0)
        self.assertIsInstance(self.client.security.list_banned_ips(), list)
        self.assertIsInstance(self.client.security.list_banned_keys(), list)
        self.assertIsInstance(self.client.security.list_locked_accounts(), list)
        self.assertEqual(self.client.security.unban_all_ips(), 0)
        self.assertEqual(self.client.security.unban_all_keys(), 0)
        self.assertEqual(self.client.security.unlock_all_accounts(), 0)

    def test_a_key_banned_after_its_own_threshold(self) -> None:
        key = self.client.keys.create(unique_name("limited-"), rate_limit_max_failures=2, rate_limit_ban_seconds=60)
        self.assertEqual((key["rate_limit_max_failures"], key["rate_limit_window_seconds"], key["rate_limit_ban_seconds"]), (2, None, 60))
        self.client.keys.update(key["id"], enabled=False)
        as_key = Client(self.base_url, api_key=key["key"], max_retries=0)
        for _ in range(2):
            with self.assertRaises(AuthenticationError):
                as_key.auth.me()
        with self.assertRaises(RateLimitError) as banned:
            as_key.auth.me()
        self.assertEqual(banned.exception.code, "key_banned")
        self.assertLessEqual(banned.exception.retry_after, 60)
        bans = self.client.keys.list_bans(key["id"])
        self.assertEqual(len(bans), 1)
        self.assertEqual(self.client.keys.unban(key["id"], bans[0]["ip"]), 1)
        self.assertEqual(self.client.keys.unban_all(key["id"]), 0)
        with self.assertRaises(NotFoundError):
            self.client.keys.list_bans("no-such-key")

    def test_version_and_ui_config(self) -> None:
        self.assertEqual(self.client.health.version()["version"], self.client.health.status()["version"])
        self.assertIs(Client(self.base_url).health.ui_config()["auth_advanced"], True)
