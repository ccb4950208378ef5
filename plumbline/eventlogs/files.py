"""Finding Spark event logs and reading their events as a stream.

A PATH is a log file (`local-1700000000000`, `app-…-0001.zstd`, `….inprogress`), a rolling log
folder (`eventlog_v2_<app id>/` holding `events_<n>_<app id>[.codec]` parts and an `appstatus_`
file that ends in `.inprogress` while the application runs), or a folder of those (an
`spark.eventLog.dir`). Local paths are read with the standard library; a URI with a scheme
(`hdfs://`, `s3a://`, `gs://`...) through `fsspec`, when it and the file system's package are
installed. Each file is decompressed as a stream and read a line (an event) at a time.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from plumbline.eventlogs.codecs import TruncatedError, codec_of, decompressed
from plumbline.eventlogs.errors import EventLogError

ROLLING_PREFIX = "eventlog_v2_"
_PART_PREFIX = "events_"
_STATUS_PREFIX = "appstatus_"
IN_PROGRESS = ".inprogress"
MAX_EVENT_BYTES = 512 * 1024 * 1024  # one event (a line) larger than this is corrupt


@dataclass
class EventLog:
    """One application's log: its files in order, whether it is still written, its size."""

    path: str  # the file, or the rolling folder
    files: list[str] = field(default_factory=list)
    in_progress: bool = False
    size: int = 0
    mtime: float = 0.0  # the last change of its files (epoch seconds; 0 when not known)


def _is_remote(path: str) -> bool:
    scheme = path.split("://", 1)[0] if "://" in path else ""
    return bool(scheme) and scheme != "file"


def _local(path: str) -> str:
    return path[len("file://") :] if path.startswith("file://") else path


def _filesystem(path: str) -> Any:
    try:
        import fsspec
    except ImportError:
        raise EventLogError(
            f"reading {path} needs fsspec (and its package for the scheme)"
        ) from None
    return fsspec.core.url_to_fs(path)[0]


def _listing(path: str) -> list[tuple[str, bool, int, float]]:
    """(path, is a folder, size, last change) of each entry of a folder."""
    if _is_remote(path):
        fs = _filesystem(path)
        return [
            (
                str(e["name"])
                if "://" in str(e["name"])
                else f"{path.split('://', 1)[0]}://{e['name']}",
                e.get("type") == "directory",
                int(e.get("size") or 0),
                _remote_mtime(e),
            )
            for e in fs.ls(path, detail=True)
        ]
    local = _local(path)
    found = []
    for entry in os.scandir(local):
        stat = entry.stat()
        found.append(
            (entry.path, entry.is_dir(), stat.st_size if entry.is_file() else 0, stat.st_mtime)
        )
    return found


def _remote_mtime(entry: dict[str, Any]) -> float:
    value = entry.get("mtime") or entry.get("LastModified") or entry.get("last_modified") or 0
    if hasattr(value, "timestamp"):
        return float(value.timestamp())
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def _is_dir(path: str) -> bool:
    if _is_remote(path):
        return bool(_filesystem(path).isdir(path))
    return os.path.isdir(_local(path))


def _stat(path: str) -> tuple[int, float]:
    """A file's size and last change."""
    if _is_remote(path):
        info = _filesystem(path).info(path)
        return int(info.get("size") or 0), _remote_mtime(info)
    stat = os.stat(_local(path))
    return stat.st_size, stat.st_mtime


def file_name(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def rolling_log(path: str) -> EventLog:
    """A rolling log folder: its `events_<n>_…` parts in order."""
    parts: list[tuple[int, str, int]] = []
    log = EventLog(path)
    for entry, is_dir, size, mtime in _listing(path):
        log.mtime = max(log.mtime, mtime)
        name = file_name(entry)
        if name.startswith(_STATUS_PREFIX):
            log.in_progress = name.endswith(IN_PROGRESS)
        elif name.startswith(_PART_PREFIX) and not is_dir:
            index = name[len(_PART_PREFIX) :].split("_", 1)[0]
            if index.isdigit():
                parts.append((int(index), entry, size))
    if not parts:
        raise EventLogError(f"{path}: a rolling event log folder without events_ files")
    parts.sort()
    log.files = [p for _, p, _ in parts]
    log.size = sum(s for _, _, s in parts)
    return log


def find_logs(paths: list[str]) -> tuple[list[EventLog], list[tuple[str, str]]]:
    """The event logs under `paths`, and (path, reason) for each path that is not one."""
    found: list[EventLog] = []
    problems: list[tuple[str, str]] = []
    for path in paths:
        try:
            if not _is_dir(path):
                size, mtime = _stat(path)
                found.append(
                    EventLog(path, [path], file_name(path).endswith(IN_PROGRESS), size, mtime)
                )
            elif file_name(path).startswith(ROLLING_PREFIX):
                found.append(rolling_log(path))
            else:
                for entry, is_dir, size, mtime in sorted(_listing(path)):
                    name = file_name(entry)
                    if is_dir and name.startswith(ROLLING_PREFIX):
                        found.append(rolling_log(entry))
                    elif not is_dir and not name.startswith("."):
                        running = name.endswith(IN_PROGRESS)
                        found.append(EventLog(entry, [entry], running, size, mtime))
        except FileNotFoundError:
            problems.append((path, "no such file or folder"))
        except (OSError, EventLogError) as exc:
            problems.append((path, str(exc)))
    return found, problems


def open_log_file(path: str) -> IO[bytes]:
    if _is_remote(path):
        stream: IO[bytes] = _filesystem(path).open(path, "rb")
        return stream
    return open(_local(path), "rb")  # noqa: SIM115 - closed by the caller's `with`


def parse_line(line: bytes, name: str, number: int) -> dict[str, Any]:
    """One event line parsed; raises EventLogError when it is not a JSON object."""
    try:
        event = json.loads(line)
    except ValueError:
        raise EventLogError(f"{name}: line {number} is not a JSON event") from None
    if not isinstance(event, dict):
        raise EventLogError(f"{name}: line {number} is not a JSON event")
    return event


def read_events(log: EventLog) -> Iterator[dict[str, Any]]:
    """Every event of a log, parsed, in order; raises EventLogError on a corrupt or cut log
    (a last line without its newline in a log that is no longer written is a cut log)."""
    for path in log.files:
        codec = codec_of(file_name(path))
        with decompressed(open_log_file(path), codec) as stream:
            number = 0
            try:
                for line in stream:
                    number += 1
                    if len(line) > MAX_EVENT_BYTES:
                        raise EventLogError(
                            f"{file_name(path)}: line {number} is larger than {MAX_EVENT_BYTES} bytes"
                        )
                    if not line.strip():
                        continue
                    if not line.endswith(b"\n") and not log.in_progress:
                        raise EventLogError(
                            f"{file_name(path)}: truncated (the last event is cut short)"
                        )
                    try:
                        event = parse_line(line, file_name(path), number)
                    except EventLogError:
                        if not line.endswith(b"\n"):  # the application is still writing it
                            return
                        raise
                    yield event
            except TruncatedError as exc:
                if not log.in_progress:
                    raise EventLogError(f"{file_name(path)}: truncated ({exc})") from None
            except EventLogError:
                raise
            except Exception as exc:  # a codec library's own error: a corrupt file
                raise EventLogError(
                    f"{file_name(path)}: corrupt ({type(exc).__name__}: {exc})"
                ) from None
