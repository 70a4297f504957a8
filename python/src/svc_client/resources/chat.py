"""Chat completions (``models:read``), plain or streamed by server-sent events."""

from __future__ import annotations

import json
from typing import IO, Any, Iterator, List, Mapping, Sequence

from .._requester import Requester
from ..errors import APIConnectionError
from ..types import ChatCompletion, ChatCompletionChunk


class ChatResource:
    """``client.chat``."""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def complete(self, model: str, messages: Sequence[Mapping[str, Any]], **params: Any) -> ChatCompletion:
        """``POST /v1/chat/completions``: the whole answer. ``params`` (``max_tokens``, ``temperature``, …) go into the body."""
        body = {**params, "model": model, "messages": [dict(message) for message in messages], "stream": False}
        return self._requester.json("POST", "/v1/chat/completions", body=body)

    def stream(self, model: str, messages: Sequence[Mapping[str, Any]], **params: Any) -> Iterator[ChatCompletionChunk]:
        """``POST /v1/chat/completions`` with ``stream: true``: yields each chunk as it arrives.

        The request is sent by this call, so an error answer (a bad key, a denied model) is raised
        here, before any chunk. Closing the iterator (or leaving a ``for`` loop early) closes the
        connection.
        """
        body = {**params, "model": model, "messages": [dict(message) for message in messages], "stream": True}
        response = self._requester.send("POST", "/v1/chat/completions", body=body, stream=True)
        assert response.stream is not None
        return server_sent_events(response.stream)


def server_sent_events(stream: IO[bytes]) -> Iterator[Any]:
    """The JSON ``data:`` payloads of a server-sent event stream, until ``[DONE]``."""
    try:
        data: List[str] = []
        while True:
            try:
                raw = stream.readline()
            except OSError as error:
                raise APIConnectionError(f"The stream broke: {error}") from error
            if not raw:
                return
            line = raw.decode("utf-8").rstrip("\r\n")
            if line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
            elif line == "" and data:
                payload = "\n".join(data)
                data = []
                if payload == "[DONE]":
                    return
                yield json.loads(payload)
    finally:
        stream.close()
