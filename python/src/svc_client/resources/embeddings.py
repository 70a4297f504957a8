"""Embeddings (``models:read``)."""

from __future__ import annotations

from typing import Any, List, Union

from .._requester import Requester
from ..types import EmbeddingList


class EmbeddingsResource:
    """``client.embeddings``."""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def create(self, model: str, input: Union[str, List[str]], **params: Any) -> EmbeddingList:  # noqa: A002 - the OpenAI name
        """``POST /v1/embeddings``: one embedding per input text, in order. ``params`` (``encoding_format``, …) go into the body.

        Example::

            vectors = [item["embedding"] for item in client.embeddings.create("embedder", ["a", "b"])["data"]]
        """
        body = {**params, "model": model, "input": input}
        return self._requester.json("POST", "/v1/embeddings", body=body)
