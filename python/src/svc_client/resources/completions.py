"""Text completions (``models:read``), plain or streamed by server-sent events."""

from __future__ import annotations

from typing import Any, Iterator, List, Union

from .._requester import Requester
from ..types import Completion, CompletionChunk
from .chat import server_sent_events


class CompletionsResource:
    """``client.completions``."""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def create(self, model: str, prompt: Union[str, List[str]], **params: Any) -> Completion:
        """``POST /v1/completions``: the whole answer. ``params`` (``max_tokens``, ``temperature``, …) go into the body.

        Example::

            completion = client.completions.create("my-echo", "Once upon a time", max_tokens=16)
            print(completion["choices"][0]["text"])
        """
        body = {**params, "model": model, "prompt": prompt, "stream": False}
        return self._requester.json("POST", "/v1/completions", body=body)

    def stream(self, model: str, prompt: Union[str, List[str]], **params: Any) -> Iterator[CompletionChunk]:
        """``POST /v1/completions`` with ``stream: true``: yields each chunk as it arrives.

        As :meth:`ChatResource.stream`: an error answer is raised by this call, before any chunk;
        closing the iterator closes the connection.
        """
        body = {**params, "model": model, "prompt": prompt, "stream": True}
        response = self._requester.send("POST", "/v1/completions", body=body, stream=True)
        assert response.stream is not None
        return server_sent_events(response.stream)
