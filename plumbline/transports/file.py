"""The file transport: JSON Lines, one compact event per line, appended and flushed per event."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from plumbline.transports.errors import TransportError
from plumbline.transports.serialize import dumps_event


class JsonLinesWriter:
    """Thread-safe appender of JSON lines; opens (and creates parent directories) lazily."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self._lock = threading.Lock()
        self._file: IO[str] | None = None

    def write(self, event: Mapping[str, Any]) -> None:
        """Append one event; raises TransportError (serialization) or OSError (I/O)."""
        line = dumps_event(event) + "\n"
        with self._lock:
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = self.path.open("a", encoding="utf-8")
            self._file.write(line)
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


class FileTransport:
    """Appends each event to `path` as one JSON line (a file `plumbline replay` can post later)."""

    def __init__(self, path: str | Path) -> None:
        self._writer = JsonLinesWriter(path)

    @property
    def path(self) -> Path:
        return self._writer.path

    def emit(self, event: Mapping[str, Any]) -> None:
        try:
            self._writer.write(event)
        except OSError as exc:
            raise TransportError(f"cannot write to {self.path}: {exc}") from exc

    def close(self, timeout: float | None = None) -> bool:
        try:
            self._writer.close()
        except OSError:
            return False
        return True
