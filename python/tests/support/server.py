"""Starts the real ``svc-local`` (``server/dist/bin/svc-local.js``) in a child process on a free port,
with its own temporary ``SVC_HOME``, and stops it."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading
import urllib.request
from pathlib import Path
from typing import Any, Dict, Mapping, Optional

REPO_ROOT = Path(__file__).resolve().parents[3]
# SVC_TEST_SVC_LOCAL runs the tests against another build of the server (e.g. another branch's).
SVC_LOCAL = Path(os.environ.get("SVC_TEST_SVC_LOCAL") or REPO_ROOT / "server" / "dist" / "bin" / "svc-local.js")
START_DEADLINE_SECONDS = 30

ADMIN_USERNAME = "admin"
ADMIN_PASSWORD = "correct horse battery staple admin"


class SvcServer:
    """A running ``svc-local`` process."""

    def __init__(self, env: Optional[Mapping[str, str]] = None) -> None:
        if not SVC_LOCAL.exists():
            raise RuntimeError(f"{SVC_LOCAL} is missing: run `npm run build` first")
        node = os.environ.get("SVC_TEST_NODE") or shutil.which("node")
        if node is None:
            raise RuntimeError("node is not on PATH: the tests start the real svc server with it")
        self.home = Path(tempfile.mkdtemp(prefix="svc-python-tests-"))
        child_env = {"PATH": os.environ.get("PATH", ""), "SVC_HOME": str(self.home), **(env or {})}
        self._process = subprocess.Popen(
            [node, str(SVC_LOCAL), "--port", "0", "--log-level", "error"],
            env=child_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._stderr: list = []
        threading.Thread(target=self._drain, args=(self._process.stdout, lines), daemon=True).start()
        threading.Thread(target=self._drain, args=(self._process.stderr, None), daemon=True).start()
        try:
            self.base_url = self._await_address(lines)
        except BaseException:
            self.stop()
            raise

    def _drain(self, pipe: Any, lines: "Optional[queue.Queue[Optional[str]]]") -> None:
        for raw in pipe:
            text = raw.decode("utf-8", errors="replace")
            if lines is not None:
                lines.put(text)
            else:
                self._stderr.append(text)
        if lines is not None:
            lines.put(None)

    def _await_address(self, lines: "queue.Queue[Optional[str]]") -> str:
        while True:
            try:
                line = lines.get(timeout=START_DEADLINE_SECONDS)
            except queue.Empty:
                raise RuntimeError(f"svc-local did not start within {START_DEADLINE_SECONDS} s") from None
            if line is None:
                self._process.wait()
                raise RuntimeError(f"svc-local exited with {self._process.returncode}: {''.join(self._stderr)}")
            match = re.search(r"svc listening on (http://\S+)", line)
            if match:
                return match.group(1)

    @property
    def jwt_secret(self) -> str:
        """The secret the server signs access tokens with (generated into its home)."""
        return (self.home / "auth" / "jwt_secret_key").read_text().strip()

    def stop(self) -> None:
        """SIGTERM, wait, and delete the home directory."""
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        for pipe in (self._process.stdout, self._process.stderr):
            if pipe is not None:
                pipe.close()
        shutil.rmtree(self.home, ignore_errors=True)


def raw_request(base_url: str, method: str, path: str, body: Any = None, token: Optional[str] = None) -> Dict[str, Any]:
    """A plain urllib call, independent of the client under test: the JSON answer (raises on errors)."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(base_url + path, data=data, headers=headers, method=method), timeout=30) as answer:
        text = answer.read()
    return json.loads(text) if text else {}


def set_up_admin(base_url: str) -> str:
    """Creates the first administrator and an API key of theirs; returns the key."""
    raw_request(base_url, "POST", "/v1/admin/setup", {"username": ADMIN_USERNAME, "password": ADMIN_PASSWORD})
    return create_admin_key(base_url, "python tests")


def create_admin_key(base_url: str, name: str) -> str:
    """A fresh API key of the administrator."""
    token = raw_request(base_url, "POST", "/v1/auth/login", {"username": ADMIN_USERNAME, "password": ADMIN_PASSWORD})["access_token"]
    return raw_request(base_url, "POST", "/v1/admin/keys", {"name": name}, token)["key"]
