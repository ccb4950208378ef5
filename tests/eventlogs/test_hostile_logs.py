"""Hostile or broken log folders cost bounded work (issue 28 item 7): a symbolic link loop, a
link to /dev/zero, a FIFO or a broken link beside valid logs is skipped with its reason (the valid
logs are still extracted); a line is refused past the event limit without being held whole; a
small compressed file that inflates enormously is refused at its decompression cap; an LZ4 or
Snappy block that claims gigabytes is refused before it is decoded. Small crafted files with small
limits; the extraction itself runs on Spark (both lines)."""

from __future__ import annotations

import json
import os
import struct
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cramjam
import pytest
import zstandard

from plumbline.eventlogs.codecs import MAX_BLOCK_BYTES, IncrementalDecoder
from plumbline.eventlogs.errors import EventLogError
from plumbline.eventlogs.files import EventLog, ReadLimits, find_logs, read_events
from plumbline.eventlogs.job import run_extraction
from plumbline.eventlogs.task import Target

MiB = 1024 * 1024
APP_START = {"Event": "SparkListenerApplicationStart", "App Name": "tiny", "App ID": "local-1",
             "Timestamp": 1700000000000, "User": "me"}  # fmt: skip
APP_END = {"Event": "SparkListenerApplicationEnd", "Timestamp": 1700000001000}
TINY = b"".join(json.dumps(e).encode() + b"\n" for e in (APP_START, APP_END))


def _hostile_folder(folder: Path) -> None:
    """A valid log beside a link loop, a link to /dev/zero, a FIFO and a broken link."""
    folder.mkdir()
    (folder / "local-1700000000000").write_bytes(TINY)
    (folder / "local-2-loop").symlink_to(folder / "local-2-loop")
    (folder / "local-3-zero").symlink_to("/dev/zero")
    os.mkfifo(folder / "local-4-fifo")
    (folder / "local-5-gone").symlink_to(folder / "nowhere")


SKIPPED = {
    "local-2-loop": "a symbolic link loop",
    "local-3-zero": "not a regular file (a character device)",
    "local-4-fifo": "not a regular file (a FIFO)",
    "local-5-gone": "a broken symbolic link",
}


def test_special_entries_are_skipped_and_the_valid_log_is_found(tmp_path: Path) -> None:
    _hostile_folder(tmp_path / "logs")
    logs, problems = find_logs([str(tmp_path / "logs")])
    assert problems == []
    reasons = {Path(log.path).name: log.unreadable for log in logs}
    assert reasons == {"local-1700000000000": None, **SKIPPED}
    valid = next(log for log in logs if log.unreadable is None)
    assert [e["Event"] for e in read_events(valid)] == [APP_START["Event"], APP_END["Event"]]
    with pytest.raises(EventLogError, match="symbolic link loop"):
        next(read_events(next(log for log in logs if "loop" in log.path)))


@pytest.mark.spark
def test_extraction_reads_the_valid_log_beside_them(
    tmp_path: Path, spark: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    _hostile_folder(tmp_path / "logs")
    report = run_extraction(
        [str(tmp_path / "logs")], Target(out=str(tmp_path / "out")), spark=spark
    )
    by_name = {Path(r.path).name: r for r in report.results}
    assert by_name["local-1700000000000"].status == "ok", by_name["local-1700000000000"]
    for name, reason in SKIPPED.items():
        assert (by_name[name].status, by_name[name].reason) == ("skipped", reason)
    assert not report.failed


def _peak(read: Callable[[], object]) -> tuple[int, BaseException | None]:
    """The Python memory ``read`` allocated at most, and what it raised."""
    tracemalloc.start()
    raised: BaseException | None = None
    try:
        read()
    except EventLogError as exc:
        raised = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak, raised


def _log(path: Path, data: bytes) -> EventLog:
    path.write_bytes(data)
    return EventLog(str(path), [str(path)], False, len(data))


def test_a_long_line_is_refused_without_being_held(tmp_path: Path) -> None:
    long_line = TINY + b'{"Event":"x","pad":"' + b"a" * (16 * MiB) + b'"}\n'
    log = _log(tmp_path / "local-1", long_line)
    peak, raised = _peak(lambda: list(read_events(log, ReadLimits(max_event_bytes=MiB))))
    assert raised is not None and "line 3 is larger than 1048576 bytes" in str(raised)
    assert peak < 4 * MiB  # the 16 MiB line was never held whole


def test_a_zstd_bomb_is_refused_at_its_cap(tmp_path: Path) -> None:
    compressor = zstandard.ZstdCompressor().compressobj()
    line = [compressor.compress(b"x" * MiB) for _ in range(64)]  # one 64 MiB line, no newline
    data = b"".join(line) + compressor.flush()
    assert len(data) < 64 * 1024
    log = _log(tmp_path / "local-1.zstd", data)
    limits = ReadLimits(max_event_bytes=256 * MiB, max_ratio=100, min_decompressed_bytes=2 * MiB)
    peak, raised = _peak(lambda: list(read_events(log, limits)))
    assert raised is not None and "decompresses to more than 2097152 bytes" in str(raised)
    assert peak < 8 * MiB
    # the same file under the event limit alone: refused at the line, not held whole either
    peak, raised = _peak(lambda: list(read_events(log, ReadLimits(max_event_bytes=MiB))))
    assert raised is not None and "larger than 1048576 bytes" in str(raised)
    assert peak < 4 * MiB


def test_a_huge_lz4_block_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    packed = bytes(cramjam.lz4.compress_block(b"\x00" * 4096, store_size=False))
    claims = 1 << 30  # lz4-java writes at most 32 MiB a block
    header = b"LZ4Block" + struct.pack("<Biii", 0x20, len(packed), claims, 0)
    log = _log(tmp_path / "local-1.lz4", header + packed)
    started = time.monotonic()
    with pytest.raises(EventLogError, match=f"LZ4 block of {claims} bytes"):
        list(read_events(log))
    assert time.monotonic() - started < 5


def test_a_huge_snappy_chunk_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    header = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
    log = _log(tmp_path / "local-1.snappy", header + struct.pack(">i", MAX_BLOCK_BYTES + 1))
    with pytest.raises(EventLogError, match="Snappy chunk of"):
        list(read_events(log))
    packed = bytes(cramjam.snappy.compress_raw(b"\x00" * (MAX_BLOCK_BYTES + 1)))
    log = _log(tmp_path / "local-2.snappy", header + struct.pack(">i", len(packed)) + packed)
    with pytest.raises(EventLogError, match=f"Snappy chunk of {MAX_BLOCK_BYTES + 1} bytes"):
        list(read_events(log))


def test_a_followed_zstd_bomb_is_refused_piece_by_piece() -> None:
    """``--follow`` decodes a growing file a piece at a time: a bomb is refused at the cap
    with a bounded overshoot, not after inflating the whole chunk read."""
    compressor = zstandard.ZstdCompressor().compressobj()
    data = b"".join(compressor.compress(b"x" * MiB) for _ in range(256)) + compressor.flush()
    decoder = IncrementalDecoder("zstd", max_ratio=100, min_bytes=2 * MiB)
    peak, raised = _peak(lambda: decoder.feed(data))  # 256 MiB inflated from one chunk
    assert raised is not None and "decompression bomb" in str(raised)
    assert peak < 48 * MiB
    plain = IncrementalDecoder("zstd", max_ratio=100, min_bytes=2 * MiB)
    text = zstandard.ZstdCompressor().compress(TINY * 1000)
    assert plain.feed(text[:100]) + plain.feed(text[100:]) == TINY * 1000
