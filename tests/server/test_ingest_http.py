"""`POST /api/v1/lineage` over real HTTP: single events, batches, gzip, limits and every error shape."""

from __future__ import annotations

import gzip
import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from ingest_helpers import count, event, post

BASE = "https://openlineage.io/spec/2-0-2/OpenLineage.json"


def _run() -> str:
    return str(uuid.uuid4())


def test_single_event_is_stored(live_server: Any) -> None:
    response = post(live_server.url, event(_run()))
    assert response.status_code == 201
    assert response.json() == {
        "accepted": 1,
        "stored": 1,
        "duplicates": 0,
        "rejected": [],
        "rejectedCount": 0,
        "errors": [],
        "errorsOmitted": 0,
    }
    assert count(live_server.db_url, "lineage_events") == 1
    assert count(live_server.db_url, "job_dataset_edges") == 2


def test_the_same_event_twice_is_stored_once(live_server: Any) -> None:
    body = event(_run())
    post(live_server.url, body)
    response = post(live_server.url, body)
    assert (response.status_code, response.json()["duplicates"]) == (201, 1)
    assert count(live_server.db_url, "lineage_events") == 1


def test_run_dataset_and_job_events_on_one_endpoint(live_server: Any) -> None:
    dataset_event = {
        "eventTime": "2024-03-01T12:00:00Z",
        "producer": "https://example.com/p",
        "schemaURL": f"{BASE}#/$defs/DatasetEvent",
        "dataset": {"namespace": "db", "name": "static"},
    }
    job_event = {
        "eventTime": "2024-03-01T12:00:00Z",
        "producer": "https://example.com/p",
        "schemaURL": "https://openlineage.io/spec/1-0-5/OpenLineage.json#/definitions/JobEvent",
        "job": {"namespace": "http-tests", "name": "static_job"},
        "inputs": [{"namespace": "db", "name": "static"}],
        "outputs": [],
    }
    response = post(live_server.url, [event(_run()), dataset_event, job_event])
    assert response.json()["accepted"] == 3
    assert count(live_server.db_url, "lineage_events") == 3
    assert count(live_server.db_url, "jobs") == 2
    assert count(live_server.db_url, "runs") == 1


def test_gzip_body(live_server: Any) -> None:
    response = post(live_server.url, [event(_run()), event(_run())], gzipped=True)
    assert (response.status_code, response.json()["stored"]) == (201, 2)


def test_malformed_json_is_400(live_server: Any) -> None:
    response = post(live_server.url, None, raw=b'{"eventType": "START",')
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == 400 and body["errors"] == []
    assert body["message"].startswith("the body is not valid JSON")


INVALID_JSON = {  # body -> the byte its 400 names (issue 28 item 3)
    b'{"eventType": NaN}': 14,
    b'[{"eventType": "START", "x": -Infinity}]': 29,
    b'{"eventType": "\xff"}': 15,
    b'{"eventType": "\xc0\xaf"}': 15,  # overlong UTF-8 of "/"
    b'{"eventType": "START"} trailing': 23,
    b'[{"eventType": "START"}] ]': 25,
}


@pytest.mark.parametrize("body", INVALID_JSON, ids=[repr(b)[:40] for b in INVALID_JSON])
def test_a_body_that_is_not_json_is_400_naming_the_byte(live_server: Any, body: bytes) -> None:
    response = post(live_server.url, None, raw=body)
    assert response.status_code == 400, response.text
    answer = response.json()
    assert answer["message"].startswith("the body is not valid JSON"), answer
    assert f"at byte {INVALID_JSON[body]}" in answer["message"], answer


def test_broken_gzip_is_400(live_server: Any) -> None:
    response = post(
        live_server.url, None, raw=b"not gzip at all", headers={"Content-Encoding": "gzip"}
    )
    assert response.status_code == 400
    assert "gzip" in response.json()["message"]


def test_unsupported_encoding_is_415(live_server: Any) -> None:
    response = post(live_server.url, None, raw=b"xx", headers={"Content-Encoding": "br"})
    assert response.status_code == 415


def test_wrong_types_are_422_naming_the_field(live_server: Any) -> None:
    bad = event(_run())
    bad["job"]["name"] = 42
    bad["outputs"][0]["facets"] = {
        "schema": {
            "_producer": "p",
            "_schemaURL": "s",
            "fields": [{"name": "a"}, {"name": "b", "type": 7}],
        }
    }
    response = post(live_server.url, bad)
    assert response.status_code == 422
    assert response.json() == {
        "code": 422,
        "message": "the event breaks the OpenLineage specification",
        "errors": [
            {"index": None, "field": "job.name", "message": "Input should be a valid string"},
            {
                "index": None,
                "field": "outputs[0].facets.schema.fields[1].type",
                "message": "Input should be a valid string",
            },
        ],
    }
    assert count(live_server.db_url, "lineage_events") == 0


def test_missing_run_id_and_unknown_event_type_are_422(live_server: Any) -> None:
    bad = event(_run(), event_type="FINISHED")
    del bad["run"]["runId"]
    response = post(live_server.url, bad)
    assert response.status_code == 422
    fields = [error["field"] for error in response.json()["errors"]]
    assert fields == ["eventType", "run.runId"]


def test_batch_with_one_bad_event_stores_the_good_ones(live_server: Any) -> None:
    bad = event(_run())
    bad["eventTime"] = "not a time"
    response = post(live_server.url, [event(_run()), bad, event(_run())])
    assert response.status_code == 201
    body = response.json()
    assert (body["accepted"], body["stored"], body["rejected"]) == (2, 2, [1])
    assert [(e["index"], e["field"]) for e in body["errors"]] == [(1, "eventTime")]
    assert count(live_server.db_url, "lineage_events") == 2
    assert count(live_server.db_url, "runs") == 2


def test_batch_with_only_bad_events_is_422(live_server: Any) -> None:
    response = post(live_server.url, [{"eventType": "START"}, 17])
    assert response.status_code == 422
    body = response.json()
    assert body["message"] == "none of the 2 events is valid OpenLineage"
    assert {e["index"] for e in body["errors"]} == {0, 1}
    assert {"index": 1, "field": None, "message": "an event must be a JSON object"} in body[
        "errors"
    ]


def test_empty_batch_is_400(live_server: Any) -> None:
    assert post(live_server.url, []).status_code == 400


def test_huge_body_is_413(make_server: Any) -> None:
    server = make_server(max_body_bytes=20_000)
    padding = "x" * 30_000
    response = post(server.url, event(_run(), padding=padding))
    assert response.status_code == 413
    assert response.json()["code"] == 413
    # the same event under the limit goes through
    assert post(server.url, event(_run(), padding="x" * 100)).status_code == 201


def test_gzip_bomb_is_413(make_server: Any) -> None:
    server = make_server(max_body_bytes=100_000)
    body = json.dumps(event(_run(), padding=" " * 5_000_000)).encode()
    compressed = gzip.compress(body)
    assert len(compressed) < 20_000  # small on the wire, 5 MB once inflated
    response = post(server.url, None, raw=compressed, headers={"Content-Encoding": "gzip"})
    assert response.status_code == 413
    assert "decompresses" in response.json()["message"]
    assert count(server.db_url, "lineage_events") == 0


def test_chunked_body_over_the_limit_is_413(make_server: Any) -> None:
    server = make_server(max_body_bytes=10_000)

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit is enforced while reading
        for _ in range(20):
            yield b" " * 1000

    response = httpx.post(
        f"{server.url}/api/v1/lineage",
        content=chunks(),
        headers={"Content-Type": "application/json"},
        timeout=60,
    )
    assert response.status_code == 413


def test_proxy_mode_stores_no_lineage(make_server: Any) -> None:
    server = make_server(store=False)
    response = post(server.url, [event(_run()), event(_run())])
    assert response.status_code == 201
    assert response.json()["stored"] == 0
    assert count(server.db_url, "lineage_events") == 0
    assert count(server.db_url, "jobs") == 0
