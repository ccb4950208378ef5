"""The default place for undeliverable events."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import platformdirs


def default_spill_path() -> Path:
    """`<user data dir>/spill/<process-id>-<timestamp>.jsonl`; nothing is created here."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return Path(platformdirs.user_data_dir("plumbline")) / "spill" / f"{os.getpid()}-{stamp}.jsonl"
