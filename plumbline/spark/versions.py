"""Dataset versions of local file outputs: a digest of the written files' names, sizes and times."""

from __future__ import annotations

import hashlib
import os


def local_version(path: str) -> str | None:
    """A digest that changes whenever the content under `path` is rewritten (None if absent)."""
    if not os.path.exists(path):
        return None
    digest = hashlib.sha256()
    entries = []
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        for name in files:
            if name.startswith((".", "_")):
                continue
            full = os.path.join(root, name)
            stat = os.stat(full)
            entries.append(f"{os.path.relpath(full, path)}\t{stat.st_size}\t{stat.st_mtime_ns}")
    for entry in sorted(entries):
        digest.update(entry.encode())
        digest.update(b"\n")
    return digest.hexdigest()[:32]
