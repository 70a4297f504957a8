"""One resource per part of the API (``client.setup``, ``client.auth``, ``client.users``, …)."""

from __future__ import annotations

from .auth import AuthResource
from .chat import ChatResource
from .health import HealthResource
from .keys import KeysResource
from .models import ModelsResource
from .registrations import RegistrationsResource
from .setup import SetupResource
from .users import UsersResource

__all__ = [
    "AuthResource",
    "ChatResource",
    "HealthResource",
    "KeysResource",
    "ModelsResource",
    "RegistrationsResource",
    "SetupResource",
    "UsersResource",
]
