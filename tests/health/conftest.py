"""Lineage health tests build pipelines with the store tests' event helpers."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "store"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
