"""Where the official OpenLineage spec files are (``shared/openlineage-spec``, never copied into the
project): ``$PLUMBLINE_SPEC_DIR``; else beside the project's checkout; else beside the checkout it
was cloned from (a fresh clone in a temporary directory, as CI makes)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _origin() -> Path | None:
    """The local checkout this one was cloned from, if any."""
    try:
        url = subprocess.run(
            ["git", "-C", str(ROOT), "config", "--get", "remote.origin.url"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        return None
    path = Path(url.removeprefix("file://")) if url else None
    return path if path is not None and path.is_dir() else None


def find_spec_dir() -> Path:
    """The first of the candidate places that holds the spec files (else the usual one)."""
    beside = ROOT.parent / "shared" / "openlineage-spec"
    candidates = [beside]
    if os.environ.get("PLUMBLINE_SPEC_DIR"):
        candidates.insert(0, Path(os.environ["PLUMBLINE_SPEC_DIR"]))
    origin = _origin()
    if origin is not None:
        candidates.append(origin.resolve().parent / "shared" / "openlineage-spec")
    return next((path for path in candidates if path.is_dir()), beside)


SPEC_DIR = find_spec_dir()
