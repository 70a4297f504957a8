"""User administration (``users:manage``)."""

from __future__ import annotations

from typing import List, Optional, Sequence

from .._not_given import present
from .._requester import Requester
from ..types import Permission, UsageLimits, User
from ._paths import segment


class UsersResource:
    """``client.users``."""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def list(self) -> List[User]:
        """``GET /v1/admin/users``: every account."""
        return self._requester.json("GET", "/v1/admin/users")

    def create(
        self,
        username: str,
        password: str,
        *,
        permissions: Optional[Sequence[Permission]] = None,
        must_change_password: Optional[bool] = None,
    ) -> User:
        """``POST /v1/admin/users``: the caller may grant only permissions the caller holds."""
        body = {"username": username, "password": password, **present(
            permissions=None if permissions is None else list(permissions),
            must_change_password=must_change_password,
        )}
        return self._requester.json("POST", "/v1/admin/users", body=body)

    def get(self, user_id: str) -> User:
        """``GET /v1/admin/users/{user_id}``."""
        return self._requester.json("GET", f"/v1/admin/users/{segment(user_id)}")

    def update(
        self,
        user_id: str,
        *,
        enabled: Optional[bool] = None,
        permissions: Optional[Sequence[Permission]] = None,
    ) -> User:
        """``PUT /v1/admin/users/{user_id}``: enables, disables or re-permissions another user."""
        body = present(
            enabled=enabled,
            permissions=None if permissions is None else list(permissions),
        )
        return self._requester.json("PUT", f"/v1/admin/users/{segment(user_id)}", body=body)

    def set_limits(self, user_id: str, limits: Optional[UsageLimits]) -> User:
        """``PUT /v1/admin/users/{user_id}`` with ``limits``: replaces the user's usage limits (all of the user's calls,
        every key included); None removes them.

        Example::

            client.users.set_limits(user_id, {"tokens_per_minute": 100000, "token_budget": {"tokens": 5000000, "period": "month"}})
        """
        body = {"limits": None if limits is None else dict(limits)}
        return self._requester.json("PUT", f"/v1/admin/users/{segment(user_id)}", body=body)

    def delete(self, user_id: str) -> None:
        """``DELETE /v1/admin/users/{user_id}``: the user's keys and sessions go with them."""
        self._requester.json("DELETE", f"/v1/admin/users/{segment(user_id)}")

    def set_password(self, user_id: str, new_password: str, *, must_change_password: Optional[bool] = None) -> None:
        """``PUT /v1/admin/users/{user_id}/password``: sets another user's password and ends their sessions."""
        body = {"new_password": new_password, **present(must_change_password=must_change_password)}
        self._requester.json("PUT", f"/v1/admin/users/{segment(user_id)}/password", body=body)

    def get_permissions(self, user_id: str) -> List[Permission]:
        """``GET /v1/admin/users/{user_id}/permissions``."""
        return self._requester.json("GET", f"/v1/admin/users/{segment(user_id)}/permissions")["permissions"]

    def set_permissions(self, user_id: str, permissions: Sequence[Permission]) -> List[Permission]:
        """``PUT /v1/admin/users/{user_id}/permissions``: replaces them; returns what is stored."""
        body = {"permissions": list(permissions)}
        return self._requester.json("PUT", f"/v1/admin/users/{segment(user_id)}/permissions", body=body)["permissions"]


