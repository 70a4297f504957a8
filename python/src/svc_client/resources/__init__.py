"""One resource per part of the API (``client.setup``, ``client.auth``, ``client.users``, …)."""

from __future__ import annotations

from .audit import AuditResource
from .auth import AuthResource
from .chat import ChatResource
from .completions import CompletionsResource
from .embeddings import EmbeddingsResource
from .health import HealthResource
from .keys import KeysResource
from .models import ModelsResource
from .registrations import RegistrationsResource
from .security import SecurityResource
from .setup import SetupResource
from .usage import UsageResource
from .users import UsersResource

__all__ = [
    "AuditResource",
    "AuthResource",
    "ChatResource",
    "CompletionsResource",
    "EmbeddingsResource",
    "HealthResource",
    "KeysResource",
    "ModelsResource",
    "RegistrationsResource",
    "SecurityResource",
    "SetupResource",
    "UsageResource",
    "UsersResource",
]
