"""The audit center (``admin``): search, filter options, export and chain verification."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, Literal, Mapping, Optional, Sequence, Union

from .._requester import Requester
from ..errors import APIConnectionError
from ..types import AuditFilterOptions, AuditRecord, AuditSearchResult, AuditVerification

#: Bytes read from the export stream at a time.
_CHUNK_BYTES = 64 * 1024

#: A filter value: text, a number (``page_from``, ``size``), or a list of values (sent comma-separated).
FilterValue = Union[str, int, Sequence[str]]


class AuditResource:
    """``client.audit``.

    Filters are the query parameters of the contract, as keyword arguments: ``time_from``,
    ``time_to`` (``now-<N>m|h|d|w``, ``now``, epoch milliseconds or ISO 8601; ``time_from``
    defaults to ``now-1h``), ``user``, ``api_key_name``, ``model_id``, ``model_name``,
    ``client_ip``, ``model_type``, ``category``, ``auth_type``, ``status``, ``event_type``,
    ``action``. A list is sent comma-separated (any of the values matches).
    """

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def search(self, *, page_from: int = 0, size: Optional[int] = None, **filters: FilterValue) -> AuditSearchResult:
        """``GET /v1/audit/search``: one page of matching records, newest first, and the total.

        Example::

            found = client.audit.search(time_from="now-1d", status=["login_failed", "ip_banned"])
            print(found["total"], [hit["action"] for hit in found["hits"]])
        """
        query = _query({**filters, "page_from": page_from, **({} if size is None else {"size": size})})
        return self._requester.json("GET", "/v1/audit/search", query=query)

    def filter_options(self, *, time_from: Optional[str] = None, time_to: Optional[str] = None) -> AuditFilterOptions:
        """``GET /v1/audit/filter-options``: distinct values of each filterable field in the time range."""
        return self._requester.json("GET", "/v1/audit/filter-options", query=_query({"time_from": time_from, "time_to": time_to}))

    def verify(self) -> AuditVerification:
        """``GET /v1/audit/verify``: checks the hash chain and names the first broken record."""
        return self._requester.json("GET", "/v1/audit/verify")

    def export(self, format: Literal["csv", "jsonl"], **filters: FilterValue) -> Iterator[bytes]:  # noqa: A002 - the query's name
        """``GET /v1/audit/export``: the body in chunks as the server streams it (CSV with a header row, or JSON Lines).

        Nothing is buffered whole; an error answer is raised by this call. Example::

            with open("audit.csv", "wb") as file:
                for chunk in client.audit.export("csv", time_from="now-7d"):
                    file.write(chunk)
        """
        response = self._requester.send("GET", "/v1/audit/export", query=_query({**filters, "format": format}), stream=True)
        assert response.stream is not None
        return _chunks(response.stream)

    def export_records(self, **filters: FilterValue) -> Iterator[AuditRecord]:
        """The JSON Lines export as parsed records, one at a time, read as it streams.

        Example::

            for record in client.audit.export_records(time_from="now-1d", category="security"):
                print(record["@timestamp"], record["event_type"])
        """
        buffered = b""
        for chunk in self.export("jsonl", **filters):
            buffered += chunk
            *lines, buffered = buffered.split(b"\n")
            for line in lines:
                if line.strip():
                    yield json.loads(line)
        if buffered.strip():
            yield json.loads(buffered)


def _query(values: Mapping[str, Any]) -> Dict[str, str]:
    """The query string values: None left out, lists joined with commas, numbers as text."""
    query: Dict[str, str] = {}
    for name, value in values.items():
        if value is None:
            continue
        query[name] = ",".join(str(item) for item in value) if isinstance(value, (list, tuple)) else str(value)
    return query


def _chunks(stream: Any) -> Iterator[bytes]:
    try:
        while True:
            try:
                chunk = stream.read(_CHUNK_BYTES)
            except OSError as error:
                raise APIConnectionError(f"The audit export broke off: {error}") from error
            if not chunk:
                return
            yield chunk
    finally:
        stream.close()
