"""One real server per test module, set up with an administrator and an API key of theirs."""

from __future__ import annotations

import itertools
import os
import unittest
from typing import Any, ClassVar, Dict, Optional

from svc_client import Client

from .proxy import RecordingProxy
from .server import ADMIN_PASSWORD, ADMIN_USERNAME, SvcServer, create_admin_key, set_up_admin

_names = itertools.count(1)


def long_password(username: str) -> str:
    """A password the server accepts for ``username``."""
    return f"{username} has a long passphrase"


def unique_name(prefix: str) -> str:
    """A username (or key name) not used before in this test run."""
    return f"{prefix}{os.getpid()}x{next(_names)}"


class ServerTestCase(unittest.TestCase):
    """Starts one ``svc-local`` for the test class (``server_env`` adds variables) and sets up its admin."""

    server_env: ClassVar[Optional[Dict[str, str]]] = None
    set_up_admin: ClassVar[bool] = True
    server: ClassVar[SvcServer]
    base_url: ClassVar[str]
    admin_key: ClassVar[str]

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.server = SvcServer(cls.server_env)
        cls.addClassCleanup(cls.server.stop)
        cls.base_url = cls.server.base_url
        if cls.set_up_admin:
            cls.admin_key = set_up_admin(cls.base_url)

    def setUp(self) -> None:
        super().setUp()
        # The client reads these when not given values; the tests pass their own.
        for name in ("SVC_ENDPOINT", "SVC_API_KEY"):
            saved = os.environ.pop(name, None)
            if saved is not None:
                self.addCleanup(os.environ.__setitem__, name, saved)

    def admin(self, **options: Any) -> Client:
        """A client with a fresh API key of the administrator."""
        return Client(self.base_url, api_key=create_admin_key(self.base_url, unique_name("admin-key-")), **options)

    def logged_in_admin(self, base_url: Optional[str] = None, **options: Any) -> Client:
        """A client logged in as the administrator (optionally through another URL, e.g. a proxy)."""
        client = Client(base_url or self.base_url, **options)
        client.login(ADMIN_USERNAME, ADMIN_PASSWORD)
        return client

    def new_user(self, *permissions: str) -> Dict[str, Any]:
        """A new user holding ``permissions``; returns the user with its ``password``."""
        username = unique_name("user")
        user: Dict[str, Any] = dict(self.admin().users.create(username, long_password(username), permissions=list(permissions)))
        user["password"] = long_password(username)
        return user


class ProxiedServerTestCase(ServerTestCase):
    """A :class:`ServerTestCase` with a :class:`RecordingProxy` in front of its server, reset before each test."""

    proxy: ClassVar[RecordingProxy]

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.proxy = RecordingProxy(cls.base_url)
        cls.addClassCleanup(cls.proxy.close)

    def setUp(self) -> None:
        super().setUp()
        self.proxy.reset()
