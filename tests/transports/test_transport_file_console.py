from __future__ import annotations

import datetime as dt
import json
import logging
import threading
import uuid
from pathlib import Path

import pytest
from ol_test_server import make_event

from plumbline.transports import (
    ConsoleTransport,
    FileTransport,
    TransportConfig,
    TransportError,
    create_transport,
)


def test_file_transport_round_trips_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "events.jsonl"
    transport = create_transport(TransportConfig(type="file", path=str(path)))
    assert isinstance(transport, FileTransport)
    events = [make_event(1), make_event(2, "START"), {"eventType": "COMPLETE", "note": "naïve ✓"}]
    for event in events:
        transport.emit(event)
    assert transport.close() is True

    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == events
    assert lines[2] == '{"eventType":"COMPLETE","note":"naïve ✓"}'  # compact, not ASCII-escaped


def test_file_transport_flushes_each_event_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"existing":true}\n', encoding="utf-8")
    transport = FileTransport(path)
    transport.emit(make_event(7))
    # readable before close: flushed per event
    assert path.read_text(encoding="utf-8").splitlines() == [
        '{"existing":true}',
        json.dumps(make_event(7), separators=(",", ":")),
    ]
    transport.close()


def test_file_transport_is_thread_safe(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    transport = FileTransport(path)
    big = "x" * 5000  # long lines make interleaving visible if writes were not serialized

    def write(worker: int) -> None:
        for i in range(50):
            transport.emit({"worker": worker, "i": i, "pad": big})

    threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    transport.close()
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 200
    assert sorted((r["worker"], r["i"]) for r in records) == [
        (w, i) for w in range(4) for i in range(50)
    ]
    for w in range(4):  # each writer's events stay in its order
        assert [r["i"] for r in records if r["worker"] == w] == list(range(50))


def test_file_transport_serializes_datetimes_and_uuids(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    transport = FileTransport(path)
    run_id = uuid.UUID("0190a0a0-0000-7000-8000-000000000001")
    when = dt.datetime(2026, 11, 21, 10, 0, tzinfo=dt.UTC)
    transport.emit({"run": {"runId": run_id}, "eventTime": when})
    transport.close()
    assert json.loads(path.read_text()) == {
        "run": {"runId": "0190a0a0-0000-7000-8000-000000000001"},
        "eventTime": "2026-11-21T10:00:00+00:00",
    }


def test_file_transport_rejects_unserializable_event(tmp_path: Path) -> None:
    transport = FileTransport(tmp_path / "e.jsonl")
    with pytest.raises(TransportError, match="not JSON-serializable") as info:
        transport.emit({"bad": object()})
    assert info.value.retryable is False
    transport.close()


def test_file_transport_unwritable_path_raises_transport_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    transport = FileTransport(blocker / "events.jsonl")  # parent is a file
    with pytest.raises(TransportError, match="cannot write"):
        transport.emit(make_event(1))


def test_console_transport_logs_one_json_line(caplog: pytest.LogCaptureFixture) -> None:
    transport = create_transport(TransportConfig(type="console"))
    assert isinstance(transport, ConsoleTransport)
    with caplog.at_level(logging.INFO, logger="plumbline.transports.console"):
        transport.emit(make_event(3))
        transport.emit(make_event(4))
    records = [r for r in caplog.records if r.name == "plumbline.transports.console"]
    assert [r.levelno for r in records] == [logging.INFO, logging.INFO]
    assert [json.loads(r.getMessage()) for r in records] == [make_event(3), make_event(4)]
    assert all("\n" not in r.getMessage() for r in records)
    assert transport.close() is True
