"""Lineage health tests (issue 19); ``health.pipeline`` is shared with the UI tests, and needs the
store tests' event helpers on the path."""

import sys
from pathlib import Path

_STORE = str(Path(__file__).resolve().parents[1] / "store")
if _STORE not in sys.path:
    sys.path.insert(0, _STORE)
