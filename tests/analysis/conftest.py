"""The analyses' tests build exact graphs with the read-path tests' store builder."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "store"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))  # model_mirror
