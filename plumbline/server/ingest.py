"""`POST /api/v1/lineage`: OpenLineage events in (RunEvent, DatasetEvent, JobEvent; single or batch).

The body is read here, not by FastAPI, so that its size is checked before and after gzip
decompression. Each event is validated on its own: a batch answers 201 when at least one event is
accepted and lists the rejected ones by index; 422 when none is. Accepted events are stored (and
queued for forwarding) in one transaction.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.engine import Engine
from starlette.concurrency import run_in_threadpool

from plumbline.openlineage import (
    EventValidationError,
    ParsedEvent,
    RunEvent,
    parse_body,
    parse_event,
)
from plumbline.openlineage.decode import (
    BodyTooLargeError,
    MalformedBodyError,
    UnsupportedEncodingError,
    decompress,
)
from plumbline.server import forwarding, metrics
from plumbline.server.auth import Principal, require
from plumbline.server.catalog import enrich_event
from plumbline.server.errors import APIError, FieldError
from plumbline.server.settings import ServerSettings
from plumbline.store.write import writer_for

logger = logging.getLogger(__name__)

router = APIRouter(tags=["lineage"])


class ErrorItem(BaseModel):
    index: int | None
    field: str | None
    message: str


class ErrorBody(BaseModel):
    code: int
    message: str
    errors: list[ErrorItem]


class IngestResult(BaseModel):
    """What happened to the events of one request."""

    accepted: int  # valid events (newly stored or already stored)
    stored: int  # events stored by this request (0 with --store off)
    duplicates: int  # valid events that were already stored
    rejected: list[int]  # indexes of the events that break the spec (batches)
    errors: list[ErrorItem]


_REQUEST_BODY = {
    "required": True,
    "description": (
        "One OpenLineage event (RunEvent, DatasetEvent or JobEvent, told apart by the schemaURL "
        "suffix) or a JSON array of events. May be sent with Content-Encoding: gzip."
    ),
    "content": {
        "application/json": {
            "schema": {
                "oneOf": [
                    {"type": "object", "description": "an OpenLineage event (spec 2-0-x)"},
                    {"type": "array", "items": {"type": "object"}, "minItems": 1},
                ]
            }
        }
    },
}


@router.post(
    "/api/v1/lineage",
    status_code=201,
    response_model=IngestResult,
    summary="Send OpenLineage events",
    responses={
        400: {"model": ErrorBody, "description": "the body is not valid JSON or gzip"},
        403: {"model": ErrorBody, "description": "the token may not write to this namespace"},
        413: {
            "model": ErrorBody,
            "description": "the body (or its decompressed size) is too large",
        },
        415: {"model": ErrorBody, "description": "unsupported Content-Encoding"},
        422: {"model": ErrorBody, "description": "no event is valid OpenLineage"},
    },
    openapi_extra={"requestBody": _REQUEST_BODY},
)
async def post_lineage(
    request: Request, principal: Annotated[Principal, Depends(require("write"))]
) -> JSONResponse:
    """Validate and store OpenLineage events; answers 201 with what was accepted and rejected."""
    settings: ServerSettings = request.app.state.settings
    body = await _read_body(request, settings.max_body_bytes)
    encoding = request.headers.get("content-encoding")
    result = await run_in_threadpool(
        ingest_body, request.app.state.engine, settings, body, encoding, principal
    )
    return JSONResponse(result, status_code=201)


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise APIError(413, f"the body is over the limit of {limit} bytes")
    received = bytearray()
    async for chunk in request.stream():
        received += chunk
        if len(received) > limit:
            raise APIError(413, f"the body is over the limit of {limit} bytes")
    return bytes(received)


def ingest_body(
    engine: Engine,
    settings: ServerSettings,
    body: bytes,
    encoding: str | None,
    principal: Principal,
) -> dict[str, Any]:
    """Decode, validate and store one request body; raise :class:`APIError` when nothing is accepted."""
    try:
        text = decompress(body, encoding, settings.max_body_bytes)
        parsed_body = parse_body(text)
    except BodyTooLargeError as exc:
        raise APIError(413, str(exc)) from None
    except UnsupportedEncodingError as exc:
        raise APIError(415, str(exc)) from None
    except MalformedBodyError as exc:
        raise APIError(400, str(exc)) from None

    is_batch = parsed_body.is_batch
    accepted: list[ParsedEvent] = []
    received: dict[str, bytes] = {}  # digest -> the event as received (to forward)
    rejected: list[int] = []
    errors: list[FieldError] = []
    run_jobs: dict[str, tuple[str, str]] = {}  # run id -> its job, in this request
    for index, (parsed, sent) in enumerate(
        zip(parsed_body.outcomes, parsed_body.sent, strict=True)
    ):
        if isinstance(parsed, EventValidationError):
            rejected.append(index)
            errors.extend(
                FieldError(v.message, v.field, index if is_batch else None)
                for v in parsed.violations
            )
            continue
        principal.check_event(parsed.raw)  # 403 for a namespace the token does not cover
        reused = _reused_run_id(parsed, run_jobs)
        if reused is not None:
            rejected.append(index)
            errors.append(FieldError(reused, "run.runId", index if is_batch else None))
            continue
        received[parsed.digest] = sent
        if settings.catalogs and settings.store:
            parsed = _enriched(settings, parsed)
        accepted.append(parsed)

    metrics.record_ingest(len(accepted), len(rejected))
    if not accepted:
        message = "the event breaks the OpenLineage specification"
        if is_batch:
            message = f"none of the {len(parsed_body.outcomes)} events is valid OpenLineage"
        raise APIError(422, message, errors)

    def queue(connection: Any, events: list[ParsedEvent]) -> None:
        if not settings.forward:
            return  # nothing to forward to: skip making the bodies
        # each event is forwarded exactly as received: a single event's body, a batch's events
        # one by one as their bytes in the batch
        bodies = [received[e.digest] for e in events]
        forwarding.enqueue(
            connection, settings, [(b, e.run_id) for b, e in zip(bodies, events, strict=True)]
        )

    if settings.store:
        result = writer_for(engine).accept(accepted, token_name=principal.name, on_stored=queue)
        stored, duplicates = len(result.stored), result.duplicates
    else:
        with engine.begin() as connection:
            queue(connection, accepted)
        stored, duplicates = 0, 0
    logger.debug("ingested %d events (%d new, %d rejected)", len(accepted), stored, len(rejected))
    return {
        "accepted": len(accepted),
        "stored": stored,
        "duplicates": duplicates,
        "rejected": rejected,
        "errors": [error.to_json() for error in errors],
    }


def _reused_run_id(parsed: ParsedEvent, run_jobs: dict[str, tuple[str, str]]) -> str | None:
    """Why the event is rejected when its run id is the run of another job earlier in the same
    request (a run belongs to one job); None when it is not. Across requests the normalizer
    keeps such an event marked failed (``plumbline.store.write.conflicts``)."""
    event = parsed.event
    if not isinstance(event, RunEvent) or parsed.run_id is None:
        return None
    job = (event.job.namespace, event.job.name)
    owner = run_jobs.setdefault(parsed.run_id, job)
    if owner == job:
        return None
    return (
        f"run {parsed.run_id} is already the run of job {owner[0]}:{owner[1]} in this request "
        f"(a run id names one run of one job), not of {job[0]}:{job[1]}"
    )


def _enriched(settings: ServerSettings, parsed: ParsedEvent) -> ParsedEvent:
    """``parsed`` with catalog facets on its catalog tables: what is stored and normalized.

    The digest stays the received event's, so a re-posted event is still a duplicate when the
    catalog has moved on (a new snapshot) in between.
    """
    document = enrich_event(settings, parsed.raw)
    if document is parsed.raw:
        return parsed
    try:
        enriched = parse_event(document)
    except EventValidationError as exc:  # a catalog fact the model rejects: store the event as sent
        logger.warning("catalog enrichment made an invalid event, stored unenriched: %s", exc)
        return parsed
    return dataclasses.replace(enriched, digest=parsed.digest)
