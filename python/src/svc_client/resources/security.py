"""Brute-force protection settings, bans and account lockouts (``admin``)."""

from __future__ import annotations

from typing import Any, List, Mapping, Optional

from .._requester import Requester
from ..types import BannedIp, BannedKey, LockedAccount, SecuritySettings, UsageLimits


class SecurityResource:
    """``client.security``."""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def get_settings(self) -> SecuritySettings:
        """``GET /v1/admin/security/rate-limit``: failure limits per IP and per (IP, credential), and the login lockout."""
        return self._requester.json("GET", "/v1/admin/security/rate-limit")

    def update_settings(self, update: Mapping[str, Mapping[str, int]]) -> SecuritySettings:
        """``PUT /v1/admin/security/rate-limit``: any subset (``{"ip": {"max_failures": 20}}``); one bad value changes nothing.

        Example::

            settings = client.security.update_settings({"key": {"ban_seconds": 600}})
        """
        body = {section: dict(fields) for section, fields in update.items()}
        return self._requester.json("PUT", "/v1/admin/security/rate-limit", body=body)

    def set_default_key_limits(self, limits: Optional[UsageLimits]) -> SecuritySettings:
        """``PUT /v1/admin/security/rate-limit`` with ``default_key_limits``: the usage limits new keys get when
        their creator sets none (existing keys keep theirs); None for none."""
        body = {"default_key_limits": None if limits is None else dict(limits)}
        return self._requester.json("PUT", "/v1/admin/security/rate-limit", body=body)

    def list_banned_ips(self) -> List[BannedIp]:
        """``GET /v1/admin/security/banned-ips``: active IP bans with the time left."""
        return self._requester.json("GET", "/v1/admin/security/banned-ips")

    def unban_ip(self, ip: str) -> int:
        """``POST /v1/admin/security/unban-ip``: returns how many bans were lifted (0 or 1)."""
        return self._unbanned("/v1/admin/security/unban-ip", {"ip": ip})

    def unban_all_ips(self) -> int:
        """``POST /v1/admin/security/unban-all-ips``: returns how many bans were lifted."""
        return self._unbanned("/v1/admin/security/unban-all-ips")

    def list_banned_keys(self) -> List[BannedKey]:
        """``GET /v1/admin/security/banned-keys``: active (IP, credential) bans."""
        return self._requester.json("GET", "/v1/admin/security/banned-keys")

    def unban_key(self, ip: str, key_id: str) -> int:
        """``POST /v1/admin/security/unban-key``: ``key_id`` is the ban's ``sha256:…`` credential id."""
        return self._unbanned("/v1/admin/security/unban-key", {"ip": ip, "key_id": key_id})

    def unban_all_keys(self) -> int:
        """``POST /v1/admin/security/unban-all-keys``: returns how many bans were lifted."""
        return self._unbanned("/v1/admin/security/unban-all-keys")

    def list_locked_accounts(self) -> List[LockedAccount]:
        """``GET /v1/admin/security/locked-accounts``: accounts locked after failed logins, with the time left."""
        return self._requester.json("GET", "/v1/admin/security/locked-accounts")

    def unlock_account(self, user_id: str) -> int:
        """``POST /v1/admin/security/unlock-account``: returns how many lockouts were lifted (0 or 1)."""
        return self._unbanned("/v1/admin/security/unlock-account", {"user_id": user_id})

    def unlock_all_accounts(self) -> int:
        """``POST /v1/admin/security/unlock-all-accounts``: returns how many lockouts were lifted."""
        return self._unbanned("/v1/admin/security/unlock-all-accounts")

    def _unbanned(self, path: str, body: Any = None) -> int:
        return self._requester.json("POST", path, body=body)["unbanned"]
