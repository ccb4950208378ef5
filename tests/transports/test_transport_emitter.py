from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ol_test_server import LineageServer, make_event

from plumbline.transports import (
    AsyncEmitter,
    EmitterStats,
    FileTransport,
    TransportConfig,
    create_transport,
)


def _http(url: str, **kw: object) -> object:
    return create_transport(TransportConfig(type="http", url=url, **kw))  # type: ignore[arg-type]


def _spilled(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_delivers_in_order_and_close_returns_true(server: LineageServer, tmp_path: Path) -> None:
    spill = tmp_path / "spill.jsonl"
    emitter = AsyncEmitter(_http(server.url), spill_path=spill)
    events = [make_event(i) for i in range(5)]
    for event in events:
        emitter.submit(event)
    assert emitter.close(timeout=10) is True
    assert server.events == events
    assert emitter.stats == EmitterStats(submitted=5, sent=5, spilled=0, failed=0, dropped=0)
    assert not spill.exists()  # created only when something spills


def test_retries_5xx_then_succeeds(server: LineageServer, tmp_path: Path) -> None:
    server.fail_next(503, 2)
    emitter = AsyncEmitter(
        _http(server.url), spill_path=tmp_path / "s.jsonl", retries=3, backoff=0.01
    )
    emitter.submit(make_event(1))
    assert emitter.flush(timeout=10) is True
    assert [r.body for r in server.received] == [make_event(1)] * 3
    assert emitter.stats == EmitterStats(submitted=1, sent=1)
    emitter.close()


def test_gives_up_after_retries_and_spills(server: LineageServer, tmp_path: Path) -> None:
    server.fail_next(500, 10)
    spill = tmp_path / "s.jsonl"
    emitter = AsyncEmitter(_http(server.url), spill_path=spill, retries=2, backoff=0.01)
    emitter.submit(make_event(1))
    assert emitter.close(timeout=10) is True
    assert len(server.received) == 3  # first attempt + 2 retries
    assert emitter.stats == EmitterStats(submitted=1, sent=0, spilled=1, failed=1)
    assert _spilled(spill) == [make_event(1)]


def test_4xx_is_not_retried_and_is_spilled_with_reason_logged(
    server: LineageServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server.fail_next(400, 1, message="eventTime: field required")
    spill = tmp_path / "s.jsonl"
    emitter = AsyncEmitter(
        _http(server.url, api_key="top-secret-key"), spill_path=spill, retries=5, backoff=0.01
    )
    with caplog.at_level(logging.DEBUG, logger="plumbline"):
        emitter.submit(make_event(1))
        emitter.submit(make_event(2))
        assert emitter.close(timeout=10) is True
    assert len(server.received) == 2  # no retry of the rejected one
    assert emitter.stats == EmitterStats(submitted=2, sent=1, spilled=1, failed=1)
    assert _spilled(spill) == [make_event(1)]
    assert "HTTP 400" in caplog.text and "eventTime: field required" in caplog.text
    assert "top-secret-key" not in caplog.text


def test_unreachable_server_spills_everything(
    refused_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    spill = tmp_path / "deep" / "spill.jsonl"
    emitter = AsyncEmitter(
        _http(refused_url), spill_path=spill, retries=1, backoff=0.01, log_interval=60
    )
    events = [make_event(i) for i in range(7)]
    with caplog.at_level(logging.WARNING, logger="plumbline.transports.emitter"):
        for event in events:
            emitter.submit(event)
        assert emitter.close(timeout=20) is True
    assert emitter.stats == EmitterStats(submitted=7, sent=0, spilled=7, failed=7)
    assert _spilled(spill) == events
    warnings = [r.getMessage() for r in caplog.records if "spilled to" in r.getMessage()]
    # throttled: one warning while spilling, not seven, and the total when closing
    assert warnings == [
        f"plumbline: 1 event(s) spilled to {spill} so far (last reason: "
        f"cannot reach {refused_url}/api/v1/lineage: [Errno 111] Connection refused)",
        f"plumbline: 7 event(s) were spilled to {spill}; send them with `plumbline replay {spill}`",
    ]


def test_full_queue_spills_without_blocking(server: LineageServer, tmp_path: Path) -> None:
    server.hang_seconds = 30  # the first request hangs until released
    spill = tmp_path / "s.jsonl"
    emitter = AsyncEmitter(_http(server.url, timeout=60), max_queue=2, spill_path=spill)
    emitter.submit(make_event(0))
    server.wait_for(1)  # event 0 is in flight; the queue is empty
    started = time.monotonic()
    for i in range(1, 6):
        emitter.submit(make_event(i))
    assert time.monotonic() - started < 2.0  # never blocks on the hanging server
    assert emitter.stats == EmitterStats(submitted=6, spilled=3)
    assert _spilled(spill) == [make_event(3), make_event(4), make_event(5)]
    server.hang_seconds = 0
    server.release.set()
    assert emitter.close(timeout=10) is True
    assert server.events == [make_event(0), make_event(1), make_event(2)]
    assert emitter.stats == EmitterStats(submitted=6, sent=3, spilled=3)


def test_flush_and_close_time_out_on_a_hanging_server(
    server: LineageServer, tmp_path: Path
) -> None:
    server.hang_seconds = 30
    spill = tmp_path / "s.jsonl"
    emitter = AsyncEmitter(_http(server.url, timeout=60), spill_path=spill)
    for i in range(3):
        emitter.submit(make_event(i))
    server.wait_for(1)

    started = time.monotonic()
    assert emitter.flush(timeout=0.3) is False
    assert 0.3 <= time.monotonic() - started < 3.0

    started = time.monotonic()
    assert emitter.close(timeout=0.5) is False
    assert 0.5 <= time.monotonic() - started < 3.0  # not the 30 s hang
    # the two events that never left the queue are spilled, and so is the one still in flight:
    # the process may exit as soon as close returns, before that request ends
    assert _spilled(spill) == [make_event(1), make_event(2), make_event(0)]
    assert emitter.stats == EmitterStats(submitted=3, spilled=3)

    server.release.set()  # the in-flight request now completes: it arrives too (a duplicate)
    assert emitter.flush(timeout=10) is True
    assert emitter.stats == EmitterStats(submitted=3, sent=1, spilled=3)
    assert len(_spilled(spill)) == 3
    assert emitter.close(timeout=1) is False  # idempotent: the first result


def test_flush_waits_for_slow_but_finite_server(server: LineageServer, tmp_path: Path) -> None:
    server.hang_seconds = 0.3
    emitter = AsyncEmitter(_http(server.url), spill_path=tmp_path / "s.jsonl")
    emitter.submit(make_event(1))
    emitter.submit(make_event(2))
    started = time.monotonic()
    assert emitter.flush(timeout=10) is True
    assert time.monotonic() - started >= 0.5  # two sequential 0.3 s answers
    assert emitter.stats == EmitterStats(submitted=2, sent=2)
    assert emitter.close() is True


def test_submit_after_close_spills(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    spill = tmp_path / "spill.jsonl"
    emitter = AsyncEmitter(FileTransport(out), spill_path=spill)
    emitter.submit(make_event(1))
    assert emitter.close() is True
    assert emitter.close() is True
    emitter.submit(make_event(2))
    assert emitter.stats == EmitterStats(submitted=2, sent=1, spilled=1)
    assert _spilled(out) == [make_event(1)]
    assert _spilled(spill) == [make_event(2)]


def test_unserializable_event_never_raises_into_caller(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "out.jsonl"
    emitter = AsyncEmitter(FileTransport(out), spill_path=tmp_path / "spill.jsonl")
    with caplog.at_level(logging.ERROR, logger="plumbline.transports.emitter"):
        emitter.submit({"bad": object()})  # must not raise
        emitter.submit(make_event(1))
        assert emitter.close() is True
    assert emitter.stats == EmitterStats(submitted=2, sent=1, failed=1, dropped=1)
    assert "plumbline event lost" in caplog.text
    assert _spilled(out) == [make_event(1)]


def test_default_spill_path_is_in_user_data_dir_and_lazy(
    refused_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    ok = AsyncEmitter(FileTransport(tmp_path / "out.jsonl"))
    ok.submit(make_event(1))
    assert ok.close() is True
    assert not (tmp_path / "xdg").exists()  # nothing spilled, nothing created

    emitter = AsyncEmitter(_http(refused_url), retries=0)
    emitter.submit(make_event(2))
    assert emitter.close(timeout=10) is True
    spill_dir = tmp_path / "xdg" / "plumbline" / "spill"
    files = list(spill_dir.iterdir())
    assert files == [emitter.spill_path]
    assert files[0].name.startswith(f"{__import__('os').getpid()}-") and files[0].suffix == ".jsonl"
    assert _spilled(files[0]) == [make_event(2)]


def test_in_flight_event_failing_after_close_is_spilled_once(
    server: LineageServer, tmp_path: Path
) -> None:
    server.hang_seconds = 30
    spill = tmp_path / "s.jsonl"
    emitter = AsyncEmitter(_http(server.url, timeout=60), spill_path=spill, retries=0)
    emitter.submit(make_event(0))
    server.wait_for(1)
    assert emitter.close(timeout=0.3) is False
    assert _spilled(spill) == [make_event(0)]
    server.fail_next(503)  # the hanging request now ends in a failure
    server.release.set()
    assert emitter.flush(timeout=10) is True
    assert _spilled(spill) == [make_event(0)]  # not written a second time
    assert emitter.stats == EmitterStats(submitted=1, failed=1, spilled=1)


def test_close_cuts_retry_backoff_short_and_spills(refused_url: str, tmp_path: Path) -> None:
    spill = tmp_path / "s.jsonl"
    emitter = AsyncEmitter(_http(refused_url), spill_path=spill, retries=5, backoff=30)
    emitter.submit(make_event(1))
    started = time.monotonic()
    assert emitter.close(timeout=0.3) is False  # the event was still waiting for a retry
    assert time.monotonic() - started < 3.0  # not the 30 s backoff
    assert emitter.flush(timeout=5) is True
    assert emitter.stats == EmitterStats(submitted=1, spilled=1, failed=1)
    assert _spilled(spill) == [make_event(1)]


def test_unwritable_spill_counts_dropped_and_logs(
    refused_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    emitter = AsyncEmitter(_http(refused_url), spill_path=blocker / "spill.jsonl", retries=0)
    with caplog.at_level(logging.ERROR, logger="plumbline.transports.emitter"):
        emitter.submit(make_event(1))
        assert emitter.close(timeout=10) is True
    assert emitter.stats == EmitterStats(submitted=1, failed=1, dropped=1)
    assert "plumbline event lost (cannot reach" in caplog.text


def test_queued_events_are_delivered_at_interpreter_exit(
    server: LineageServer, tmp_path: Path
) -> None:
    """A script that never calls close still delivers what it submitted (the atexit hook)."""
    server.hang_seconds = 0.2  # the events are still queued when the script's main code ends
    script = tmp_path / "job.py"
    script.write_text(
        "from plumbline.transports import AsyncEmitter, TransportConfig, create_transport\n"
        f"t = create_transport(TransportConfig(type='http', url={server.url!r}))\n"
        f"e = AsyncEmitter(t, spill_path={str(tmp_path / 'spill.jsonl')!r})\n"
        "for i in range(3):\n"
        "    e.submit({'n': i})\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert server.events == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert not (tmp_path / "spill.jsonl").exists()


def test_context_manager_closes(server: LineageServer, tmp_path: Path) -> None:
    with AsyncEmitter(_http(server.url), spill_path=tmp_path / "s.jsonl") as emitter:
        emitter.submit(make_event(1))
    assert server.events == [make_event(1)]
    emitter.submit(make_event(2))  # closed: spilled, not sent
    assert emitter.stats == EmitterStats(submitted=2, sent=1, spilled=1)


def test_close_and_worker_never_both_spill_the_in_flight_event(
    refused_url: str, tmp_path: Path
) -> None:
    """Close gives up while the worker waits to retry one event and another is queued: close
    spills the queued one while the worker, woken, spills the one it held; close then comes to
    the in-flight event, which must not be written twice (repeated: a race on every close)."""
    for attempt in range(20):
        spill = tmp_path / f"s{attempt}.jsonl"
        emitter = AsyncEmitter(_http(refused_url), spill_path=spill, retries=5, backoff=30)
        held, queued = make_event(2 * attempt), make_event(2 * attempt + 1)
        emitter.submit(held)
        emitter.submit(queued)
        assert emitter.close(timeout=0.05) is False
        assert emitter.flush(timeout=5) is True
        assert sorted(_spilled(spill), key=json.dumps) == sorted([held, queued], key=json.dumps)
        assert emitter.stats.spilled == 2
