"""The marker of an argument left out, where None is a meaningful value (``expires_at=None``: never)."""

from __future__ import annotations

from typing import Any, Dict, Optional


class NotGiven:
    """The type of :data:`NOT_GIVEN`."""

    _instance: Optional[NotGiven] = None

    def __new__(cls) -> NotGiven:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


#: The default of optional arguments that may also be None.
NOT_GIVEN = NotGiven()


def given(**fields: Any) -> Dict[str, Any]:
    """The fields that were given (not :data:`NOT_GIVEN`), as a request body."""
    return {name: value for name, value in fields.items() if not isinstance(value, NotGiven)}


def present(**fields: Any) -> Dict[str, Any]:
    """The fields that were given and are not None, as a request body (for arguments whose None means "leave out")."""
    return {name: value for name, value in fields.items() if value is not None and not isinstance(value, NotGiven)}
