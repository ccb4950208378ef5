"""Finding Spark event logs and reading their events as a stream.

A PATH is a log file (`local-1700000000000`, `app-…-0001.zstd`, `….inprogress`), a rolling log
folder (`eventlog_v2_<app id>/` holding `events_<n>_<app id>[.codec]` parts and an `appstatus_`
file that ends in `.inprogress` while the application runs), or a folder of those (an
`spark.eventLog.dir`). Local paths are read with the standard library; a URI with a scheme
(`hdfs://`, `s3a://`, `gs://`...) through `fsspec`, when it and the file system's package are
installed. Each file is decompressed as a stream and read a line (an event) at a time.

A hostile or broken folder costs bounded work (issue 28 item 7): an entry that is not a regular
file or folder (a device, a FIFO, a socket), a symbolic link loop or a broken link is skipped with
its reason (one line each; the logs beside it are read); a line is read only up to
:class:`ReadLimits`' ``max_event_bytes`` (a longer one is refused without being held whole); a
compressed file's decompressed bytes are capped at ``max_ratio`` times its size (at least
``min_decompressed_bytes``).
"""

from __future__ import annotations

import errno
import io
import json
import os
import stat as stat_module
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any, cast

from plumbline.eventlogs.codecs import TruncatedError, codec_of, decompressed
from plumbline.eventlogs.errors import EventLogError

ROLLING_PREFIX = "eventlog_v2_"
_PART_PREFIX = "events_"
_STATUS_PREFIX = "appstatus_"
IN_PROGRESS = ".inprogress"
MAX_EVENT_BYTES = 512 * 1024 * 1024  # one event (a line) larger than this is corrupt
# a compressed log decompresses to at most this many times its size (Spark's codecs make event
# logs 5-30x smaller), and always to this many bytes
MAX_DECOMPRESSION_RATIO = 1000
MIN_DECOMPRESSED_BYTES = 1024 * 1024 * 1024


@dataclass(frozen=True)
class ReadLimits:
    """What reading one log file may cost (tests give small ones)."""

    max_event_bytes: int = MAX_EVENT_BYTES
    max_ratio: int = MAX_DECOMPRESSION_RATIO
    min_decompressed_bytes: int = MIN_DECOMPRESSED_BYTES

    def decompressed_cap(self, compressed_size: int) -> int:
        """The most bytes a compressed file of ``compressed_size`` may decompress to."""
        return max(self.min_decompressed_bytes, self.max_ratio * compressed_size)


@dataclass
class EventLog:
    """One application's log: its files in order, whether it is still written, its size."""

    path: str  # the file, or the rolling folder
    files: list[str] = field(default_factory=list)
    in_progress: bool = False
    size: int = 0
    mtime: float = 0.0  # the last change of its files (epoch seconds; 0 when not known)
    unreadable: str | None = None  # why it is skipped: not a regular file, a link loop


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


def _listing(path: str) -> list[tuple[str, bool, int, float, str | None]]:
    """(path, is a folder, size, last change, why it is unreadable or None) of each entry of a
    folder."""
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
                None,
            )
            for e in fs.ls(path, detail=True)
        ]
    local = _local(path)
    found = []
    for entry in os.scandir(local):
        found.append((entry.path, *_local_stat(entry.path)))
    return found


_SPECIAL = (
    (stat_module.S_ISCHR, "a character device"),
    (stat_module.S_ISBLK, "a block device"),
    (stat_module.S_ISFIFO, "a FIFO"),
    (stat_module.S_ISSOCK, "a socket"),
)


def _local_stat(path: str) -> tuple[bool, int, float, str | None]:
    """(is a folder, size, last change, why it is unreadable or None) of a local path, its
    symbolic links followed: a loop, a broken link or a special file is unreadable."""
    try:
        found = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return False, 0, 0.0, "a symbolic link loop"
        if exc.errno == errno.ENOENT and os.path.islink(path):
            return False, 0, 0.0, "a broken symbolic link"
        raise
    if stat_module.S_ISDIR(found.st_mode):
        return True, 0, found.st_mtime, None
    if stat_module.S_ISREG(found.st_mode):
        return False, found.st_size, found.st_mtime, None
    kind = next((name for test, name in _SPECIAL if test(found.st_mode)), "a special file")
    return False, 0, found.st_mtime, f"not a regular file ({kind})"


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


def _stat(path: str) -> tuple[int, float, str | None]:
    """A file's size and last change, and why it is unreadable (None: it is not)."""
    if _is_remote(path):
        info = _filesystem(path).info(path)
        return int(info.get("size") or 0), _remote_mtime(info), None
    _, size, mtime, unreadable = _local_stat(_local(path))
    return size, mtime, unreadable


def file_name(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def rolling_log(path: str) -> EventLog:
    """A rolling log folder: its `events_<n>_…` parts in order."""
    parts: list[tuple[int, str, int]] = []
    log = EventLog(path)
    for entry, is_dir, size, mtime, unreadable in _listing(path):
        log.mtime = max(log.mtime, mtime)
        name = file_name(entry)
        if name.startswith(_STATUS_PREFIX):
            log.in_progress = name.endswith(IN_PROGRESS)
        elif name.startswith(_PART_PREFIX) and unreadable is not None:
            log.unreadable = f"its part {name} is {unreadable}"
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
                size, mtime, unreadable = _stat(path)
                running = file_name(path).endswith(IN_PROGRESS)
                found.append(EventLog(path, [path], running, size, mtime, unreadable))
            elif file_name(path).startswith(ROLLING_PREFIX):
                found.append(rolling_log(path))
            else:
                for entry, is_dir, size, mtime, unreadable in sorted(_listing(path)):
                    name = file_name(entry)
                    if is_dir and name.startswith(ROLLING_PREFIX):
                        found.append(rolling_log(entry))
                    elif not is_dir and not name.startswith("."):
                        running = name.endswith(IN_PROGRESS)
                        found.append(EventLog(entry, [entry], running, size, mtime, unreadable))
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


def read_events(log: EventLog, limits: ReadLimits = ReadLimits()) -> Iterator[dict[str, Any]]:
    """Every event of a log, parsed, in order; raises EventLogError on a corrupt or cut log
    (a last line without its newline in a log that is no longer written is a cut log), a line
    longer than ``limits.max_event_bytes`` (read no further than that) or a file that
    decompresses past its cap."""
    if log.unreadable is not None:
        raise EventLogError(f"{file_name(log.path)}: {log.unreadable}")
    for path in log.files:
        codec = codec_of(file_name(path))
        cap = None
        if codec is not None:
            cap = limits.decompressed_cap(_stat(path)[0])
        stream = decompressed(open_log_file(path), codec, max_bytes=cap)
        if not isinstance(stream, io.BufferedReader):  # readline(size) stops at size
            stream = cast(IO[bytes], io.BufferedReader(cast(Any, stream)))
        with stream:
            number = 0
            try:
                while line := stream.readline(limits.max_event_bytes + 1):
                    number += 1
                    if len(line) > limits.max_event_bytes:
                        raise EventLogError(
                            f"{file_name(path)}: line {number} is larger than "
                            f"{limits.max_event_bytes} bytes"
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
