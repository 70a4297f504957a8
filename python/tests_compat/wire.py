"""Sends a request byte for byte as the reference ``xinference`` client sends it (``requests``'s
headers, ``json.dumps`` bodies, ``Authorization: Bearer`` only when given) and reads the answer as
it reads it: the status, then ``response.json()``. Standard library only (``http.client``), so the
replay depends on neither the reference package nor ``svc_client``."""

from __future__ import annotations

import gzip
import http.client
import json
import urllib.parse
from dataclasses import dataclass
from typing import Any, Dict, Iterator, Optional

#: What ``requests`` sends on every request (version as in the reference client's environment).
REQUESTS_HEADERS = {
    "User-Agent": "python-requests/2.32.3",
    "Accept-Encoding": "gzip, deflate",
    "Accept": "*/*",
    "Connection": "keep-alive",
}


@dataclass
class Answer:
    """One answer, as the reference client sees it."""

    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def json(self) -> Any:
        """``response.json()``: raises (as the client would) when the body is not JSON."""
        return json.loads(self.body.decode("utf-8"))

    def detail(self) -> Any:
        """What the client's error helper reads from a failure: ``response.json()["detail"]``."""
        return self.json()["detail"]

    def sse_payloads(self) -> Iterator[Any]:
        """The streamed chunks as ``xinference.client.common.streaming_response_iterator`` reads them:
        every stripped line starting ``data:``, ``[DONE]`` skipped, a chunk with an ``error`` raises."""
        for raw in self.body.split(b"\n"):
            line = raw.strip()
            if not line.startswith(b"data:"):
                continue
            payload = line[len(b"data:"):].strip()
            if payload == b"[DONE]":
                continue
            chunk = json.loads(payload.decode("utf-8"))
            if chunk.get("error") is not None:
                raise AssertionError(f"the stream carried an error: {chunk['error']}")
            yield chunk


def send(base_url: str, method: str, path: str, body: Optional[Dict[str, Any]] = None, token: Optional[str] = None) -> Answer:
    """``requests.request(method, base_url + path, json=body, headers=...)`` on the wire."""
    parsed = urllib.parse.urlsplit(base_url)
    headers = dict(REQUESTS_HEADERS)
    data = None
    if body is not None:
        # requests serialises `json=` with json.dumps (", " and ": " separators, ASCII escapes).
        data = json.dumps(body).encode("utf-8")
        headers["Content-Length"] = str(len(data))
        headers["Content-Type"] = "application/json"
    elif method in ("POST", "PUT", "PATCH"):
        headers["Content-Length"] = "0"
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    connection = http.client.HTTPConnection(parsed.hostname or "127.0.0.1", parsed.port, timeout=30)
    try:
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        if response.getheader("Content-Encoding") == "gzip":
            raw = gzip.decompress(raw)
        return Answer(response.status, response.headers, raw)
    finally:
        connection.close()


def launch_body(model_name: str, model_type: str = "LLM", model_engine: Optional[str] = None, model_uid: Optional[str] = None) -> Dict[str, Any]:
    """The body of ``Client.launch_model(model_name, model_type, model_engine, model_uid)`` (sync client:
    always these 19 keys, in this order, with the client's defaults)."""
    return {
        "model_uid": model_uid,
        "model_name": model_name,
        "model_engine": model_engine,
        "peft_model_config": None,
        "model_type": model_type,
        "model_size_in_billions": None,
        "model_format": None,
        "quantization": None,
        "replica": 1,
        "n_worker": 1,
        "n_gpu": "auto",
        "request_limits": None,
        "worker_ip": None,
        "gpu_idx": None,
        "model_path": None,
        "enable_thinking": None,
        "enable_virtual_env": None,
        "virtual_env_packages": None,
        "envs": None,
    }


def async_launch_body(model_name: str, model_type: str = "LLM", model_engine: Optional[str] = None) -> Dict[str, Any]:
    """The body of ``AsyncClient.launch_model``: the first 16 keys of the sync body (no virtual env keys)."""
    body = launch_body(model_name, model_type, model_engine)
    for name in ("enable_virtual_env", "virtual_env_packages", "envs"):
        del body[name]
    return body
