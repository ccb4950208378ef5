"""`GET /api/v1/health`: answers 200 without auth once the server is ready."""

from __future__ import annotations

from fastapi import APIRouter, Request

from plumbline import __version__
from plumbline.server.errors import APIError
from plumbline.store import ping

router = APIRouter(tags=["health"])


@router.get("/api/v1/health")
def health(request: Request) -> dict[str, str]:
    """Ready when the store answers a trivial query."""
    try:
        ping(request.app.state.store.engine)
    except Exception as exc:  # the store is down: not ready
        raise APIError(503, f"store unavailable: {type(exc).__name__}") from exc
    return {"status": "ok", "version": __version__}
