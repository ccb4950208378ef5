"""The Transport protocol every transport implements."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Transport(Protocol):
    """Delivers one OpenLineage event synchronously."""

    def emit(self, event: Mapping[str, Any]) -> None:
        """Deliver `event`; raise TransportError when it could not be delivered."""
        ...

    def close(self, timeout: float | None = None) -> bool:
        """Release resources; True when everything was closed cleanly."""
        ...
