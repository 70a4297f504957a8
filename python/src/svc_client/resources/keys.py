"""API keys (``keys:create`` for one's own, ``keys:manage`` for everyone's)."""

from __future__ import annotations

from typing import List, Optional, Sequence, Union

from .._not_given import NOT_GIVEN, NotGiven, given, present
from .._requester import Requester
from ..types import ApiKey, ApiKeyCreated, BannedIp, ModelPermission, Permission, UsageLimits
from ._paths import segment


class KeysResource:
    """``client.keys``."""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def list(self, *, owner: Optional[str] = None) -> List[ApiKey]:
        """``GET /v1/admin/keys``: one's own keys, or (with ``keys:manage``) everyone's or one owner's (a user id)."""
        return self._requester.json("GET", "/v1/admin/keys", query=None if owner is None else {"owner": owner})

    def create(
        self,
        name: Optional[str] = None,
        *,
        description: Optional[str] = None,
        owner: Optional[str] = None,
        expires_at: Optional[str] = None,
        model_permissions: Optional[Sequence[ModelPermission]] = None,
        permissions: Optional[Sequence[Permission]] = None,
        rate_limit_max_failures: Optional[int] = None,
        rate_limit_window_seconds: Optional[int] = None,
        rate_limit_ban_seconds: Optional[int] = None,
    ) -> ApiKeyCreated:
        """``POST /v1/admin/keys``: a new key; the answer's ``key`` is its plaintext, shown this once.

        ``name`` defaults to the key's prefix. ``expires_at`` is an ISO 8601 time or date in the
        future (without an offset: UTC; None: never); ``model_permissions`` absent or empty allows
        every model; ``permissions`` narrows the owner's for calls made with the key. The
        ``rate_limit_*`` thresholds ban the key from a client IP after that many failures there
        (None: the global setting).
        """
        body = present(
            name=name,
            rate_limit_max_failures=rate_limit_max_failures,
            rate_limit_window_seconds=rate_limit_window_seconds,
            rate_limit_ban_seconds=rate_limit_ban_seconds,
            description=description,
            owner=owner,
            expires_at=expires_at,
            model_permissions=None if model_permissions is None else [dict(entry) for entry in model_permissions],
            permissions=None if permissions is None else list(permissions),
        )
        return self._requester.json("POST", "/v1/admin/keys", body=body)

    def set_limits(self, key_id: str, limits: Optional[UsageLimits]) -> ApiKey:
        """``PUT /v1/admin/keys/{key_id}`` with ``limits``: replaces the key's usage limits (none may exceed its
        owner's); None removes them, leaving the owner's.

        Example::

            client.keys.set_limits(key_id, {"requests_per_minute": 60, "max_concurrent_requests": 4})
        """
        body = {"limits": None if limits is None else dict(limits)}
        return self._requester.json("PUT", f"/v1/admin/keys/{segment(key_id)}", body=body)

    def get(self, key_id: str) -> ApiKey:
        """``GET /v1/admin/keys/{key_id}``."""
        return self._requester.json("GET", f"/v1/admin/keys/{segment(key_id)}")

    def update(
        self,
        key_id: str,
        *,
        name: Union[str, NotGiven] = NOT_GIVEN,
        description: Union[str, None, NotGiven] = NOT_GIVEN,
        enabled: Union[bool, NotGiven] = NOT_GIVEN,
        expires_at: Union[str, None, NotGiven] = NOT_GIVEN,
        model_permissions: Union[Sequence[ModelPermission], NotGiven] = NOT_GIVEN,
        permissions: Union[Sequence[Permission], None, NotGiven] = NOT_GIVEN,
        rate_limit_max_failures: Union[int, None, NotGiven] = NOT_GIVEN,
        rate_limit_window_seconds: Union[int, None, NotGiven] = NOT_GIVEN,
        rate_limit_ban_seconds: Union[int, None, NotGiven] = NOT_GIVEN,
    ) -> ApiKey:
        """``PUT /v1/admin/keys/{key_id}``: renames, describes, enables or disables, expires, restricts.

        Only the arguments given are changed; None clears ``description``, ``expires_at`` (never
        expires), ``permissions`` (the owner's) and a ``rate_limit_*`` threshold (the global
        setting). An empty ``model_permissions`` denies every model.
        """
        body = given(
            name=name,
            description=description,
            enabled=enabled,
            expires_at=expires_at,
            model_permissions=model_permissions if isinstance(model_permissions, NotGiven) else [dict(entry) for entry in model_permissions],
            permissions=permissions if permissions is None or isinstance(permissions, NotGiven) else list(permissions),
            rate_limit_max_failures=rate_limit_max_failures,
            rate_limit_window_seconds=rate_limit_window_seconds,
            rate_limit_ban_seconds=rate_limit_ban_seconds,
        )
        return self._requester.json("PUT", f"/v1/admin/keys/{segment(key_id)}", body=body)

    def delete(self, key_id: str) -> None:
        """``DELETE /v1/admin/keys/{key_id}``: the key fails on its next use."""
        self._requester.json("DELETE", f"/v1/admin/keys/{segment(key_id)}")

    def reveal(self, key_id: str) -> str:
        """``GET /v1/admin/keys/{key_id}/reveal`` (``keys:manage``): the plaintext key."""
        return self._requester.json("GET", f"/v1/admin/keys/{segment(key_id)}/reveal")["key"]

    def get_model_permissions(self, key_id: str) -> List[ModelPermission]:
        """``GET /v1/admin/keys/{key_id}/permissions``: the key's model restrictions."""
        return self._requester.json("GET", f"/v1/admin/keys/{segment(key_id)}/permissions")["model_permissions"]

    def set_model_permissions(self, key_id: str, model_permissions: Sequence[ModelPermission]) -> List[ModelPermission]:
        """``PUT /v1/admin/keys/{key_id}/permissions`` (``keys:manage``): replaces them; an empty list denies every model."""
        body = {"model_permissions": [dict(entry) for entry in model_permissions]}
        return self._requester.json("PUT", f"/v1/admin/keys/{segment(key_id)}/permissions", body=body)["model_permissions"]

    def list_bans(self, key_id: str) -> List[BannedIp]:
        """``GET /v1/admin/keys/{key_id}/banned`` (``admin``): the client IPs the key is banned from, with the time left."""
        return self._requester.json("GET", f"/v1/admin/keys/{segment(key_id)}/banned")

    def unban(self, key_id: str, ip: str) -> int:
        """``POST /v1/admin/keys/{key_id}/unban`` (``admin``): lifts the key's ban from ``ip``; returns how many were lifted (0 or 1)."""
        return self._requester.json("POST", f"/v1/admin/keys/{segment(key_id)}/unban", body={"ip": ip})["unbanned"]

    def unban_all(self, key_id: str) -> int:
        """``POST /v1/admin/keys/{key_id}/unban-all`` (``admin``): lifts every ban of the key; returns how many."""
        return self._requester.json("POST", f"/v1/admin/keys/{segment(key_id)}/unban-all")["unbanned"]
