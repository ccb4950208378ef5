"""`plumbline replay` end to end against a real HTTP server on a local port."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from plumbline.cli import main
from plumbline.transports import AsyncEmitter, FileTransport

# The recording test server lives with the transport tests; `tests` itself is shadowed by a
# `tests` package that marquez-python installs, so it is imported by file location.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "transports"))
from ol_test_server import LineageServer, dead_port, make_event, running_server  # noqa: E402


@pytest.fixture
def server() -> Iterator[LineageServer]:
    with running_server() as s:
        yield s


def _write_lines(path: Path, lines: list[str | bytes]) -> None:
    with path.open("wb") as handle:
        for line in lines:
            handle.write((line.encode() if isinstance(line, str) else line) + b"\n")


def _compact(event: dict) -> str:
    return json.dumps(event, separators=(",", ":"))


def _replay(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["replay", *args], env=env or {}, catch_exceptions=False)
    return result.exit_code, result.stdout


def test_replays_a_file_transport_output_in_batches(server: LineageServer, tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    transport = FileTransport(path)
    events = [make_event(i) for i in range(5)]
    for event in events:
        transport.emit(event)
    transport.close()

    code, output = _replay(str(path), "--url", server.url, "--batch-size", "2", "--api-key", "rk-1")
    assert code == 0, output
    # batches as JSON arrays; a last batch of one is a single event
    assert [r.body for r in server.received] == [events[0:2], events[2:4], events[4]]
    assert {r.headers["authorization"] for r in server.received} == {"Bearer rk-1"}
    assert {r.path for r in server.received} == {"/api/v1/lineage"}
    assert f"Replaying {path} to {server.url}/api/v1/lineage" in output
    assert "all 5 event(s) delivered" in output
    assert "rk-1" not in output
    assert not (tmp_path / "events.jsonl.failed.jsonl").exists()


def test_batch_size_one_posts_single_events_and_url_comes_from_env(
    server: LineageServer, tmp_path: Path
) -> None:
    path = tmp_path / "events.jsonl"
    _write_lines(path, [_compact(make_event(1)), "", "   ", _compact(make_event(2))])
    code, output = _replay(str(path), "--batch-size", "1", env={"PLUMBLINE_URL": server.url + "/"})
    assert code == 0, output
    assert [r.body for r in server.received] == [
        make_event(1),
        make_event(2),
    ]  # objects, not arrays
    assert "all 2 event(s) delivered" in output


NO_TIME = {k: v for k, v in make_event(3).items() if k != "eventTime"}
MIXED_LINES: list[str | bytes] = [
    _compact(make_event(1)),  # line 1
    '{"eventType": "START", "run": ',  # line 2: truncated
    _compact(make_event(2)),  # line 3
    _compact(NO_TIME),  # line 4: the server rejects it
    "[1, 2]",  # line 5: not an object
    b"\xff\xfe not utf-8",  # line 6
    _compact(make_event(4)),  # line 7
]


def _requires_event_time(event: dict) -> str | None:
    return "eventTime is required" if "eventTime" not in event else None


def _assert_mixed_report(output: str, failed: Path, rejection: str) -> None:
    assert "line 2: unparsable: invalid JSON: Expecting value (column 31)" in output
    assert "line 5: unparsable: expected a JSON object, got list" in output
    assert "line 6: unparsable: not UTF-8 text" in output
    assert f"line 4: rejected: {rejection}" in output
    assert f"wrote 4 undelivered line(s) to {failed}" in output
    assert failed.read_bytes().splitlines() == [
        b'{"eventType": "START", "run": ',
        _compact(NO_TIME).encode(),
        b"[1, 2]",
        b"\xff\xfe not utf-8",
    ]


def test_bad_lines_and_partial_batch_rejections(server: LineageServer, tmp_path: Path) -> None:
    server.reject = _requires_event_time  # answers a batch 201 listing the rejected indexes
    path = tmp_path / "spill.jsonl"
    _write_lines(path, MIXED_LINES)

    code, output = _replay(str(path), "--url", server.url, "--batch-size", "3")
    assert code == 1
    e1, e2, e4 = make_event(1), make_event(2), make_event(4)
    assert [r.body for r in server.received] == [[e1, e2, NO_TIME], e4]
    assert "│    3 │        1 │          3 │           0 │" in output  # sent/rejected/unparsable
    _assert_mixed_report(
        output,
        tmp_path / "spill.jsonl.failed.jsonl",
        "eventTime is required",
    )


def test_batch_rejected_as_a_whole_is_resent_one_by_one(
    server: LineageServer, tmp_path: Path
) -> None:
    server.reject = _requires_event_time
    server.atomic_batches = True  # one bad event fails its whole batch (422)
    path = tmp_path / "spill.jsonl"
    _write_lines(path, MIXED_LINES)

    code, output = _replay(str(path), "--url", server.url, "--batch-size", "3")
    assert code == 1
    e1, e2, e4 = make_event(1), make_event(2), make_event(4)
    assert [r.body for r in server.received] == [[e1, e2, NO_TIME], e1, e2, NO_TIME, e4]
    _assert_mixed_report(
        output,
        tmp_path / "spill.jsonl.failed.jsonl",
        f"HTTP 422 from {server.url}/api/v1/lineage: the event breaks the OpenLineage "
        "specification (eventTime is required)",
    )


def test_retries_5xx_then_delivers(server: LineageServer, tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    _write_lines(path, [_compact(make_event(i)) for i in range(3)])
    server.fail_next(503, 2)
    code, output = _replay(str(path), "--url", server.url, "--backoff", "0.01")
    assert code == 0, output
    assert [r.body for r in server.received] == [[make_event(i) for i in range(3)]] * 3
    assert "all 3 event(s) delivered" in output


def test_unreachable_server_keeps_every_line(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    lines = [_compact(make_event(i)) for i in range(5)]
    _write_lines(path, lines)
    with dead_port() as url:
        code, output = _replay(
            str(path), "--url", url, "--batch-size", "2", "--retries", "2", "--backoff", "0.01"
        )
    assert code == 1
    failed = tmp_path / "events.jsonl.failed.jsonl"
    assert failed.read_text().splitlines() == lines
    assert "line 1: undelivered: cannot reach" in output
    assert "line 5: undelivered: not sent: server unavailable" in output
    assert f"wrote 5 undelivered line(s) to {failed}" in output


def test_replays_a_spill_file_written_by_the_emitter(server: LineageServer, tmp_path: Path) -> None:
    spill = tmp_path / "spill.jsonl"
    with dead_port() as url:
        from plumbline.transports import TransportConfig, create_transport

        emitter = AsyncEmitter(
            create_transport(TransportConfig(type="http", url=url)), spill_path=spill, retries=0
        )
        for i in range(3):
            emitter.submit(make_event(i))
        assert emitter.close() is True
    code, output = _replay(str(spill), "--url", server.url)
    assert code == 0, output
    assert server.events == [make_event(i) for i in range(3)]


def test_invalid_url_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    _write_lines(path, [_compact(make_event(1))])
    result = CliRunner().invoke(main, ["replay", str(path), "--url", "ftp://h"])
    assert result.exit_code == 2
    assert "not an http(s) URL" in result.output


def test_unauthorized_batch_is_not_resent_one_by_one(server: LineageServer, tmp_path: Path) -> None:
    server.fail_next(401, 2, message="a valid bearer token is required")
    path = tmp_path / "events.jsonl"
    _write_lines(path, [_compact(make_event(i)) for i in range(4)])
    code, output = _replay(str(path), "--url", server.url, "--batch-size", "2")
    assert code == 1
    assert len(server.received) == 2  # one request per batch, no per-event retry
    for line in (1, 2, 3, 4):
        assert (
            f"line {line}: rejected: HTTP 401 from {server.url}/api/v1/lineage: "
            "a valid bearer token is required"
        ) in output


def test_replay_into_the_plumbline_server(make_server, db_url: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Against the real server (auth required): batches stored, the bad event rejected with its reason."""
    import httpx

    from plumbline.server.tokens import create_token
    from plumbline.store.engine import create_store_engine

    live = make_server(auth="required")
    engine = create_store_engine(db_url)
    token = create_token(engine, "replayer", "write")
    engine.dispose()

    good = [make_event(i) for i in range(1, 5)]
    lines: list[str | bytes] = [
        _compact(good[0]),
        _compact(good[1]),
        "not json at all",
        _compact(NO_TIME),
        _compact(good[2]),
        _compact(good[3]),
    ]
    path = tmp_path / "spill.jsonl"
    _write_lines(path, lines)

    code, output = _replay(str(path), "--url", live.url, "--batch-size", "2", "--api-key", token)
    assert code == 1
    assert "│    4 │        1 │          1 │           0 │" in output
    assert "line 3: unparsable: invalid JSON: Expecting value (column 1)" in output
    assert "line 4: rejected: eventTime: " in output  # the server names the missing field
    assert token not in output
    failed = tmp_path / "spill.jsonl.failed.jsonl"
    assert failed.read_text().splitlines() == ["not json at all", _compact(NO_TIME)]

    stored = httpx.get(
        f"{live.url}/api/v1/events/lineage",
        params={"sortDirection": "asc"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert stored.status_code == 200, stored.text
    run_ids = sorted(e["run"]["runId"] for e in stored.json()["events"])
    assert run_ids == sorted(e["run"]["runId"] for e in good)

    # replaying the same file again is harmless: ingestion is idempotent
    code, _ = _replay(str(path), "--url", live.url, "--batch-size", "2", "--api-key", token)
    assert code == 1
    again = httpx.get(
        f"{live.url}/api/v1/events/lineage", headers={"Authorization": f"Bearer {token}"}
    )
    assert len(again.json()["events"]) == 4
