"""Rejected events cost bounded memory, time and answer size (issue 28 item 1), on both backends.

One valid event followed by a hundred thousand ``{}`` used to take seconds per ten thousand and
answer tens of megabytes (a million: 237 MB, 3.8 GB of server memory). The answer now lists the
first rejected indexes and reasons and counts the rest; each element of a batch is reserved
from the ingestion budget, accepted or not; a batch has at most ``MAX_BATCH_EVENTS`` elements.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from ingest_helpers import count, event, post

from plumbline.server.ingest_budget import MAX_BATCH_EVENTS, minimum_budget
from plumbline.server.ingest_report import MAX_LISTED_REJECTED

ANSWER_BOUND = 64 * 1024
Server = Callable[..., Any]


def _with_junk(junk: bytes, times: int) -> bytes:
    valid = json.dumps(event(str(uuid.uuid4()), job="kept")).encode()
    return b"[" + valid + (b"," + junk) * times + b"]"


def test_a_hundred_thousand_rejected_elements_get_a_bounded_answer(live_server: Any) -> None:
    response = post(live_server.url, None, raw=_with_junk(b"{}", 100_000))
    assert response.status_code == 201, response.text[:1000]
    assert len(response.content) <= ANSWER_BOUND, len(response.content)
    answer = response.json()
    assert (answer["accepted"], answer["rejectedCount"]) == (1, 100_000)
    assert answer["rejected"] == list(range(1, MAX_LISTED_REJECTED + 1))
    assert answer["errors"] and all(e["index"] >= 1 for e in answer["errors"])
    assert {"eventTime", "producer"} <= {e["field"] for e in answer["errors"] if e["index"] == 1}
    assert 0 < answer["errorsOmitted"] <= 100_000
    assert count(live_server.db_url, "lineage_events") == 1


def test_long_reasons_are_clipped_to_keep_the_answer_bounded(live_server: Any) -> None:
    # each element's reason quotes its 20,000-character schemaURL: the old answer was 2 MB
    bad = [
        json.dumps(event(str(uuid.uuid4()), schemaURL=f"https://x/{i}#" + "s" * 20_000)).encode()
        for i in range(100)
    ]
    good = json.dumps(event(str(uuid.uuid4()), job="kept")).encode()
    response = post(live_server.url, None, raw=b"[" + b",".join([good, *bad]) + b"]")
    assert response.status_code == 201, response.text[:1000]
    assert len(response.content) <= ANSWER_BOUND, len(response.content)
    answer = response.json()
    assert answer["rejected"] == list(range(1, 101)) and answer["rejectedCount"] == 100
    assert answer["errors"][0]["field"] == "schemaURL" and answer["errors"][0]["index"] == 1
    assert all(len(e["message"]) <= 1000 for e in answer["errors"])
    listed = {e["index"] for e in answer["errors"]}
    assert answer["errorsOmitted"] == 100 - len(listed) > 0


def test_a_batch_with_only_rejected_elements_is_a_bounded_422(live_server: Any) -> None:
    response = post(live_server.url, None, raw=b"[" + b",".join([b"{}"] * 50_000) + b"]")
    assert response.status_code == 422, response.text[:1000]
    assert len(response.content) <= ANSWER_BOUND, len(response.content)
    answer = response.json()
    assert answer["message"].startswith("none of the 50000 events is valid OpenLineage")
    assert "50,000 rejected" in answer["message"]
    assert 0 < len(answer["errors"]) <= 100


def test_rejected_elements_are_reserved_from_the_ingestion_budget(make_server: Server) -> None:
    # 64 KiB of `{}`: ~21,800 elements at 128 bytes each do not fit the smallest budget for
    # 64 KiB bodies (which one 64 KiB batch of real events does): refused, not held unaccounted
    limit = 64 * 1024
    server = make_server(max_body_bytes=limit, ingest_memory_bytes=minimum_budget(limit))
    junk = _with_junk(b"{}", (limit - 1000) // 3)
    response = post(server.url, None, raw=junk)
    assert response.status_code == 413, response.text[:1000]
    assert "need more memory than the ingestion budget holds" in response.json()["message"]
    assert server.app.state.ingest_budget.in_flight == 0
    assert count(server.db_url, "lineage_events") == 0


def test_a_batch_past_the_most_elements_is_413_before_it_is_split(live_server: Any) -> None:
    response = post(live_server.url, None, raw=_with_junk(b"0", MAX_BATCH_EVENTS))
    assert response.status_code == 413, response.text[:1000]
    assert f"at most {MAX_BATCH_EVENTS:,}" in response.json()["message"]


def test_replay_names_every_rejected_event_of_a_batch_past_the_listed_ones(
    live_server: Any,
) -> None:
    # the answer lists the first 1,000 rejected: replay sends the unlisted rest again, so each
    # of 1,500 rejected lines is reported and the valid ones (first and last) are sent once
    from plumbline.transports.config import TransportConfig
    from plumbline.transports.http import HttpTransport
    from plumbline.transports.replay import Line, Replayer

    good = [event(str(uuid.uuid4()), job=f"kept_{i}") for i in range(2)]
    documents = [good[0], *({"n": i} for i in range(1500)), good[1]]
    lines = [Line(i + 1, json.dumps(d).encode()) for i, d in enumerate(documents)]
    transport = HttpTransport(TransportConfig(type="http", url=live_server.url))
    report = Replayer(transport, batch_size=2000).replay(iter(lines))
    assert report.sent == 2
    assert sorted(p.line.number for p in report.rejected) == list(range(2, 1502))
    assert count(live_server.db_url, "lineage_events") == 2
