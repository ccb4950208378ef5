"""`POST /api/v1/lineage`: OpenLineage events in (RunEvent, DatasetEvent, JobEvent; single or batch).

The body is read here, not by FastAPI, so that its size is checked before and after gzip
decompression. Each event is validated on its own: a batch answers 201 when at least one event is
accepted and lists the rejected ones by index; 422 when none is. Accepted events are stored (and
queued for forwarding) in one transaction, the request's memory reserved from the process's
ingestion budget first (:mod:`plumbline.server.ingest_budget`: 503 + Retry-After when it is in
use).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time
from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from plumbline.openlineage import (
    EventValidationError,
    ParsedEvent,
    RunEvent,
    parse_body,
    parse_event,
)
from plumbline.openlineage.body import Outcome, parse_element, split_body, surely_rejected
from plumbline.openlineage.decode import (
    BodyTooLargeError,
    MalformedBodyError,
    UnsupportedEncodingError,
    count_elements,
    decompress,
)
from plumbline.openlineage.errors import Violation
from plumbline.server import forwarding, metrics
from plumbline.server.auth import Principal, require
from plumbline.server.catalog import enrich_event
from plumbline.server.errors import APIError, ErrorBody, ErrorItem
from plumbline.server.fresh_reads import READ_WAIT_SECONDS, wait_until_normalized
from plumbline.server.ingest_budget import (
    DECOMPRESS_COST,
    ELEMENT_COST,
    MAX_BATCH_EVENTS,
    PARSE_COST,
    RECEIVE_COST,
    SPLIT_COST,
    Handover,
    IngestBudget,
    Reservation,
)
from plumbline.server.ingest_report import Rejections
from plumbline.server.settings import ServerSettings
from plumbline.store import Store, existing_fields
from plumbline.store.write import writer_for

logger = logging.getLogger(__name__)

router = APIRouter(tags=["lineage"])


class IngestResult(BaseModel):
    """What happened to the events of one request."""

    accepted: int  # valid events (newly stored or already stored)
    stored: int  # events stored by this request (0 with --store off)
    duplicates: int  # valid events that were already stored
    rejected: list[int]  # indexes of the rejected events (batches): the first 1,000
    rejectedCount: int  # every rejected event
    errors: list[ErrorItem]  # why: the reasons of the first ones (at most 100, 32 KiB)
    errorsOmitted: int  # rejected events whose reasons ``errors`` does not (all) list


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
        403: {
            "model": ErrorBody,
            "description": "none of the events is the token's to write (their namespaces are not all its own)",
        },
        408: {
            "model": ErrorBody,
            "description": "the body arrived slower than the minimum rate (body_min_rate)",
        },
        413: {
            "model": ErrorBody,
            "description": "the body (or its decompressed size) is too large",
        },
        415: {"model": ErrorBody, "description": "unsupported Content-Encoding"},
        422: {"model": ErrorBody, "description": "no event is valid OpenLineage"},
        503: {
            "model": ErrorBody,
            "description": (
                "the ingestion memory budget (or the client's share of it) is in use: "
                "retry after Retry-After seconds"
            ),
        },
    },
    openapi_extra={"requestBody": _REQUEST_BODY},
)
async def post_lineage(
    request: Request, principal: Annotated[Principal, Depends(require("write"))]
) -> JSONResponse:
    """Validate and store OpenLineage events; answers 201 with what was accepted and rejected."""
    settings: ServerSettings = request.app.state.settings
    budget: IngestBudget = request.app.state.ingest_budget
    with budget.reservation(_client(request, principal)) as held:
        body = await _read_body(request, settings, held)
        encoding = request.headers.get("content-encoding")
        result = await run_in_threadpool(
            ingest_body, request.app.state.store, settings, body, encoding, principal, held
        )
    return JSONResponse(result, status_code=201)


def _client(request: Request, principal: Principal) -> str:
    """Whose share of the ingestion budget a request uses: its token's, else (open mode) its
    client address's."""
    if principal.name is not None:
        return f"token:{principal.name}"
    return f"address:{request.client.host if request.client else ''}"


async def _read_body(request: Request, settings: ServerSettings, held: Reservation) -> bytes:
    """The body, its memory reserved as its bytes arrive (not what its length declares: a
    client that declares much and sends little holds little). A body slower than
    ``body_min_rate`` bytes/s on average after its first ``body_timeout_seconds`` is 408."""
    limit = settings.max_body_bytes
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise APIError(413, f"the body is over the limit of {limit} bytes")
    chunks: list[bytes] = []
    received = 0
    started = time.monotonic()
    stream = request.stream().__aiter__()
    while True:
        # the next bytes are due by the time the ones so far allow at the minimum rate
        due = started + settings.body_timeout_seconds + received / settings.body_min_rate
        try:
            chunk = await asyncio.wait_for(stream.__anext__(), max(due - time.monotonic(), 0.001))
        except StopAsyncIteration:
            break
        except TimeoutError:
            raise APIError(
                408,
                f"the body arrived too slowly: {received} bytes in "
                f"{time.monotonic() - started:.0f} s (a body must average "
                f"{settings.body_min_rate} bytes/s after its first "
                f"{settings.body_timeout_seconds:g} s)",
            ) from None
        received += len(chunk)
        if received > limit:
            raise APIError(413, f"the body is over the limit of {limit} bytes")
        await _reserve_waiting(held, RECEIVE_COST * received)
        chunks.append(chunk)
    return b"".join(chunks)


async def _reserve_waiting(held: Reservation, total: int) -> None:
    """Hold ``total`` bytes in all, at once when they fit, else after waiting in line for them
    in a worker thread (a 503 when the wait is over and they still do not fit)."""
    try:
        held.reserve_up_to(total)
    except APIError as exc:
        if exc.status != 503:
            raise
        await run_in_threadpool(functools.partial(held.reserve_up_to, total, wait=True))


def ingest_body(
    store: Store,
    settings: ServerSettings,
    body: bytes,
    encoding: str | None,
    principal: Principal,
    held: Reservation,
) -> dict[str, Any]:
    """Decode, validate and store one request body; raise :class:`APIError` when nothing is
    accepted. Everything it will hold is reserved from the budget before any event is stored."""
    try:
        compressed = (encoding or "identity").strip().lower() not in ("", "identity")
        if compressed:  # decompression may hold this much before its size is known
            held.reserve_up_to(held.held + DECOMPRESS_COST * settings.max_body_bytes, wait=True)
        text = decompress(body, encoding, settings.max_body_bytes)
        elements = _reserve_request(held, body, text, compressed)
        split = split_body(text)
        if split is not None and split.is_batch and elements > len(split.sent):
            held.release(ELEMENT_COST * (elements - len(split.sent)))  # reserved for at most
    except BodyTooLargeError as exc:
        raise APIError(413, str(exc)) from None
    except UnsupportedEncodingError as exc:
        raise APIError(415, str(exc)) from None
    except MalformedBodyError as exc:
        raise APIError(400, str(exc)) from None

    whole = split is None or not split.is_batch  # one event, or a body json must read whole
    ingestion = _Ingestion(store, settings, principal, is_batch=not whole)
    if whole:
        try:
            parsed_body = parse_body(text)
        except MalformedBodyError as exc:
            raise APIError(400, str(exc)) from None
        ingestion.rejections.is_batch = parsed_body.is_batch
        for index, (parsed, data) in enumerate(
            zip(parsed_body.outcomes, parsed_body.sent, strict=True)
        ):
            ingestion.take(parsed, data, index)
        ingestion.store(held.hand_over(PARSE_COST * len(text)))
    else:
        assert split is not None
        sent = split.sent
        for index, data in enumerate(sent):
            ingestion.take(ingestion.parse(data), data, index)
            sent[index] = b""  # rejected: let it go now (accepted: the event holds it)
        # the parsed events are the normalizer's now: so is their memory
        ingestion.store(held.hand_over(PARSE_COST * len(text)))
    return ingestion.result(len(split.sent) if split is not None else None)


def _reserve_request(held: Reservation, body: bytes, text: bytes, compressed: bool) -> int:
    """Reserve what the request will hold before its body is split (waiting for room): its
    bytes at their costs, and :data:`ELEMENT_COST` per element of a batch (413 past
    :data:`MAX_BATCH_EVENTS`, or when they could never fit in the budget). Returns the elements
    reserved for (a bound: the split gives back what it did not need)."""
    per_bytes = (
        RECEIVE_COST * len(body)
        + (DECOMPRESS_COST * len(text) if compressed else 0)
        + (SPLIT_COST + PARSE_COST) * len(text)
    )
    budget = held.budget
    room = budget.capacity - budget.standing
    if budget.share is not None:  # one client holds at most its share
        room = min(room, budget.share)
    elements = 0
    if text.lstrip(b" \t\n\r")[:1] == b"[":
        elements = text.count(b",") + 1  # at most (commas inside events count too)
        if elements > MAX_BATCH_EVENTS or per_bytes + ELEMENT_COST * elements > room:
            elements = count_elements(text)  # exactly, without building them
        if elements > MAX_BATCH_EVENTS:
            raise APIError(413, f"the batch has {elements:,} events: at most {MAX_BATCH_EVENTS:,}")
    total = per_bytes + ELEMENT_COST * elements
    if total > room:
        raise APIError(
            413,
            f"the batch's {elements:,} events need more memory than the ingestion budget holds "
            "(--ingest-memory-bytes): send them in smaller batches",
        )
    held.reserve_up_to(total, wait=True)  # before any event is stored: a 503 leaves nothing
    return elements


_KNOWN_SIZE = 256  # elements this small are remembered when rejected…
_KNOWN = 4096  # …this many of them, per request


class _Ingestion:
    """The events of one request: validated, checked against the token and each other, stored,
    summed up in the answer."""

    def __init__(
        self, store: Store, settings: ServerSettings, principal: Principal, *, is_batch: bool
    ) -> None:
        self.db = store
        self.settings = settings
        self.principal = principal
        self.accepted: list[ParsedEvent] = []  # not stored yet
        self.received: dict[str, bytes] = {}  # digest -> the event as received (to forward)
        self.rejections = Rejections(is_batch)
        self.run_jobs: dict[str, tuple[str, str]] = {}  # run id -> its job, in this request
        self.total_accepted = 0
        self.stored = 0
        self.duplicates = 0
        # small rejected elements already seen in this request, by their bytes (a body of a
        # million `{}` is validated once)
        self.rejected_before: dict[bytes, EventValidationError] = {}

    def parse(self, data: bytes) -> Outcome | None:
        """One element of a batch: the event, why it is rejected, or None when it surely is
        and no reason of it would be listed any more (told without validating it)."""
        small = len(data) <= _KNOWN_SIZE
        if small and data in self.rejected_before:
            return self.rejected_before[data]
        if not self.rejections.wants_reasons and surely_rejected(data):
            return None
        try:
            outcome = parse_element(data)
        except MalformedBodyError as exc:  # split_body checked the encoding: not expected
            outcome = EventValidationError([Violation(None, str(exc))])
        if (
            small
            and isinstance(outcome, EventValidationError)
            and len(self.rejected_before) < _KNOWN
        ):
            self.rejected_before[data] = outcome
        return outcome

    def take(self, parsed: Outcome | None, data: bytes, index: int) -> None:
        """Check the outcome of event ``index``: valid, the token's to write (the namespace
        rule of :mod:`plumbline.server.auth`), and not reusing another job's run id."""
        rejections = self.rejections
        if parsed is None:
            rejections.add_unexplained(index)
            return
        if isinstance(parsed, EventValidationError):
            rejections.add(index, ((v.field, v.message) for v in parsed.violations))
            return
        refusal = self.principal.event_refusal(parsed.raw)
        if refusal is not None:
            rejections.add(index, [refusal], refused=True)
            return
        screened = self.principal.screened(parsed.raw, self._known(parsed.raw))
        if screened is not parsed.raw:  # foreign inputs' facets dropped: store and forward that
            parsed = dataclasses.replace(parse_event(dict(screened)), digest=parsed.digest)
            data = parsed.canonical
        reused = _reused_run_id(parsed, self.run_jobs)
        if reused is not None:
            rejections.add(index, [("run.runId", reused)])
            return
        self.received[parsed.digest] = data
        if self.settings.catalogs and self.settings.store:
            parsed = _enriched(self.settings, parsed)
        self.accepted.append(parsed)

    def _known(self, raw: Mapping[str, Any]) -> set[tuple[str, str, str]]:
        """The foreign fields ``raw``'s column lineage names that exist (a limited token may
        draw an edge from them, not create one), once the events accepted before are in the
        lineage tables (as a read waits for them, :mod:`plumbline.server.fresh_reads`)."""
        refs = self.principal.foreign_input_fields(raw)
        if not refs:
            return set()
        wait_until_normalized(self.db, writer_for(self.db.engine), READ_WAIT_SECONDS)
        with self.db.connection() as connection:
            return existing_fields(connection, refs)

    def store(self, normalized: Handover) -> None:
        """Store the events taken since the last call, in one transaction, and let them go;
        ``normalized`` gives their memory back as the normalizer lets them go (all of it at
        once if none is stored)."""
        accepted, self.accepted = self.accepted, []
        if not accepted or not self.settings.store:
            normalized()
        if not accepted:
            return
        settings = self.settings

        def queue(connection: Any, events: list[ParsedEvent]) -> None:
            if not settings.forward:
                return  # nothing to forward to: skip making the bodies
            # each event is forwarded exactly as received: a single event's body, a batch's
            # events one by one as their bytes in the batch
            bodies = [self.received[e.digest] for e in events]
            forwarding.enqueue(
                connection, settings, [(b, e.run_id) for b, e in zip(bodies, events, strict=True)]
            )

        if settings.store:
            result = writer_for(self.db.engine).accept(
                accepted,
                token_name=self.principal.name,
                on_stored=queue,
                normalized=normalized,
                progress=normalized.progress,
            )
            self.stored += len(result.stored)
            self.duplicates += result.duplicates
        else:
            with self.db.writing() as connection:
                queue(connection, accepted)
        self.total_accepted += len(accepted)
        self.received.clear()

    def result(self, events: int | None) -> dict[str, Any]:
        """The answer (201), or :class:`APIError` 422 when no event was accepted."""
        rejections = self.rejections
        metrics.record_ingest(self.total_accepted, rejections.count)
        if not self.total_accepted and rejections.refused == rejections.count > 0:
            raise APIError(403, rejections.errors[0].message, rejections.errors)
        if not self.total_accepted:
            message = "the event breaks the OpenLineage specification"
            if rejections.is_batch:
                message = f"none of the {events or rejections.count} events is valid OpenLineage"
            raise APIError(422, message + rejections.summary(), rejections.errors)
        logger.debug(
            "ingested %d events (%d new, %d rejected)",
            self.total_accepted,
            self.stored,
            rejections.count,
        )
        return {
            "accepted": self.total_accepted,
            "stored": self.stored,
            "duplicates": self.duplicates,
            "rejected": rejections.indexes,
            "rejectedCount": rejections.count,
            "errors": [error.to_json() for error in rejections.errors],
            "errorsOmitted": rejections.omitted,
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
