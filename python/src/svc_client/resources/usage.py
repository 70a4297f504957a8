"""Metered model usage over time (one's own; everyone's with ``usage:read_all``), as rows or CSV.

Limits are set with ``client.keys.set_limits``, ``client.users.set_limits`` and
``client.security.set_default_key_limits``.
"""

from __future__ import annotations

from typing import Dict, Literal, Optional

from .._requester import Requester
from ..types import UsageReport

GroupBy = Literal["key", "user", "model"]
Interval = Literal["hour", "day"]


class UsageResource:
    """``client.usage``.

    Filters: ``start`` and ``end`` (``now-<N>m|h|d|w``, ``now``, epoch milliseconds or ISO 8601;
    ``end`` exclusive, default now; ``start`` default 24 hours (hourly) or 7 days (daily) before),
    ``group_by`` (``key``, ``user`` or ``model``, default ``model``), ``interval`` (``hour`` or
    ``day``, default ``day``), ``user_id`` (another user's needs ``usage:read_all``), ``key_id``,
    ``model``.
    """

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def report(
        self,
        *,
        start: Optional[str] = None,
        end: Optional[str] = None,
        group_by: Optional[GroupBy] = None,
        interval: Optional[Interval] = None,
        user_id: Optional[str] = None,
        key_id: Optional[str] = None,
        model: Optional[str] = None,
    ) -> UsageReport:
        """``GET /v1/usage``: rows per hour or UTC day, grouped by key, user or model.

        Example::

            report = client.usage.report(start="now-7d", group_by="key")
            for row in report["data"]:
                print(row["period_start"], row["group"], row["total_tokens"])
        """
        query = _query(start=start, end=end, group_by=group_by, interval=interval, user_id=user_id, key_id=key_id, model=model)
        return self._requester.json("GET", "/v1/usage", query={**query, "format": "json"})

    def export_csv(
        self,
        *,
        start: Optional[str] = None,
        end: Optional[str] = None,
        group_by: Optional[GroupBy] = None,
        interval: Optional[Interval] = None,
        user_id: Optional[str] = None,
        key_id: Optional[str] = None,
        model: Optional[str] = None,
    ) -> str:
        """``GET /v1/usage?format=csv``: the same rows as CSV text with a header row."""
        query = _query(start=start, end=end, group_by=group_by, interval=interval, user_id=user_id, key_id=key_id, model=model)
        return self._requester.send("GET", "/v1/usage", query={**query, "format": "csv"}).body.decode("utf-8")


def _query(**values: Optional[str]) -> Dict[str, str]:
    return {name: value for name, value in values.items() if value is not None}
