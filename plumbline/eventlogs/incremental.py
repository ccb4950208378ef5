"""Incremental extraction: `--since` and the record of the logs already read (`--state FILE`).

The record is a small JSON file: each log extracted without a fault, by path, with the size and
last change it had then. A log whose size and last change are unchanged is not read again (a log
that grew, a rolling log with a new part, is read again whole: its runs have the same ids, so the
server adds only what is new). A log whose last change is before `since` is not read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from plumbline.eventlogs.errors import EventLogError
from plumbline.eventlogs.files import EventLog

_VERSION = 1
MAX_STATE_BYTES = 64 * 1024 * 1024


def read_state(path: Path | None) -> dict[str, dict[str, float]]:
    """The logs a state file records (empty when there is none yet)."""
    if path is None or not path.exists():
        return {}
    if path.stat().st_size > MAX_STATE_BYTES:
        raise EventLogError(f"{path}: larger than {MAX_STATE_BYTES} bytes, not a state file")
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EventLogError(f"{path}: not a state file of extract-eventlogs ({exc})") from None
    logs = data.get("logs") if isinstance(data, dict) else None
    if not isinstance(logs, dict) or data.get("version") != _VERSION:
        raise EventLogError(f"{path}: not a state file of extract-eventlogs")
    return {str(k): v for k, v in logs.items() if isinstance(v, dict)}


def why_skip(log: EventLog, since: float | None, state: dict[str, dict[str, float]]) -> str | None:
    """The reason not to read `log` now, or None."""
    if log.unreadable is not None:
        return log.unreadable
    if since is not None and log.mtime and log.mtime < since:
        return "last changed before --since"
    known = state.get(log.path)
    if known is not None and known.get("size") == log.size and known.get("mtime") == log.mtime:
        return "already read (unchanged since, by --state)"
    return None


def write_state(path: Path, state: dict[str, dict[str, float]], read: list[EventLog]) -> None:
    """Record `read` (logs extracted without a fault) in the state file, atomically."""
    for log in read:
        state[log.path] = {"size": log.size, "mtime": log.mtime}
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps({"version": _VERSION, "logs": state}, indent=1), "utf-8")
    temporary.replace(path)
