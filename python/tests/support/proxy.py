"""A recording HTTP proxy in front of the real server: it forwards every request, records
``METHOD /path status``, and can answer the next requests with a fault instead (a 503, a dropped
connection, a delay) to exercise the client's retries and timeouts. The client talks to it over
real HTTP, as it would to a load balancer."""

from __future__ import annotations

import http.client
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Dict, List, Optional, Tuple

#: What the proxy does with one request instead of forwarding it.
Fault = Callable[[BaseHTTPRequestHandler], None]


def answer(status: int, headers: Optional[dict] = None, body: bytes = b"") -> Fault:
    """A fault that answers ``status`` itself."""

    def fault(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return fault


def drop_connection(handler: BaseHTTPRequestHandler) -> None:
    """A fault that closes the connection without answering."""
    handler.close_connection = True
    handler.connection.shutdown(2)


def delay(seconds: float) -> Fault:
    """A fault that answers nothing for ``seconds``, then closes."""

    def fault(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(seconds)
        handler.close_connection = True

    return fault


class RecordingProxy:
    """Forwards to ``upstream``; ``base_url`` is where clients should connect."""

    def __init__(self, upstream: str) -> None:
        parsed = urllib.parse.urlsplit(upstream)
        self._upstream = (parsed.hostname or "127.0.0.1", parsed.port or 80)
        self._lock = threading.Lock()
        self._faults: List[Tuple[str, Fault]] = []
        #: Every request seen, as ``"METHOD /path status"`` (``fault`` instead of the status when a fault answered).
        self.requests: List[str] = []
        #: The headers of every request seen (names in lower case), in the same order.
        self.request_headers: List[Dict[str, str]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
                pass

            def _handle(self) -> None:
                path = urllib.parse.urlsplit(self.path).path
                with proxy._lock:
                    proxy.request_headers.append({name.lower(): value for name, value in self.headers.items()})
                fault = proxy._take_fault(path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                if fault is not None:
                    proxy._record(f"{self.command} {path} fault")
                    fault(self)
                    return
                connection = http.client.HTTPConnection(*proxy._upstream, timeout=30)
                try:
                    headers = {name: value for name, value in self.headers.items() if name.lower() not in ("host", "connection")}
                    connection.request(self.command, self.path, body=body, headers=headers)
                    upstream = connection.getresponse()
                    content = upstream.read()
                finally:
                    connection.close()
                proxy._record(f"{self.command} {path} {upstream.status}")
                self.send_response(upstream.status)
                for name, value in upstream.getheaders():
                    if name.lower() not in ("transfer-encoding", "connection", "content-length", "date", "keep-alive"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = do_POST = do_PUT = do_DELETE = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def fail_next(self, fault: Fault, times: int = 1, path: str = "") -> None:
        """The next ``times`` requests (whose path starts with ``path``) get ``fault``."""
        with self._lock:
            self._faults.extend([(path, fault)] * times)

    def _take_fault(self, path: str) -> Optional[Fault]:
        with self._lock:
            for index, (prefix, fault) in enumerate(self._faults):
                if path.startswith(prefix):
                    del self._faults[index]
                    return fault
        return None

    def _record(self, line: str) -> None:
        with self._lock:
            self.requests.append(line)

    def count(self, entry: str) -> int:
        """How many recorded requests start with ``entry`` (e.g. ``"POST /v1/auth/refresh"``)."""
        with self._lock:
            return sum(1 for line in self.requests if line == entry or line.startswith(entry + " "))

    def reset(self) -> None:
        """Forgets the recorded requests and pending faults."""
        with self._lock:
            self.requests.clear()
            self.request_headers.clear()
            self._faults.clear()

    def close(self) -> None:
        """Stops serving."""
        self._server.shutdown()
        self._server.server_close()
