"""Access tokens the server considers expired, signed with its real secret: the deterministic way
to make the server answer 401 ``token_expired`` without waiting for a token to age."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from typing import Any, Dict, Tuple


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def decode_jwt(token: str) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """The header and payload of a compact JWT."""
    header, payload, _signature = token.split(".")
    return json.loads(_unb64url(header)), json.loads(_unb64url(payload))


def expired_copy(token: str, secret: str) -> str:
    """``token`` with the same subject, expired half an hour ago (beyond the server's 30 s leeway), re-signed with ``secret``."""
    header, payload = decode_jwt(token)
    now = int(time.time())
    payload = {**payload, "jti": str(uuid.uuid4()), "iat": now - 3600, "exp": now - 1800}
    signing_input = f"{_b64url(json.dumps(header).encode())}.{_b64url(json.dumps(payload).encode())}"
    signature = hmac.new(secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64url(signature)}"
