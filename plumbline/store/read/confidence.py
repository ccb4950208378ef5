"""An edge's confidence as the read API shows it (issue 31 §2), from its stored columns."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from plumbline.openlineage.confidence import completeness_of, reasons_of
from plumbline.store.read.common import iso
from plumbline.store.read.records import Confidence


def confidence(
    source: str | None, completeness: str | None, reasons: Any, last_seen: datetime | None
) -> Confidence:
    """``edgeSource``, ``completeness``, ``completenessReasons`` and ``lastSeen`` of an edge."""
    return {
        "edgeSource": source,
        "completeness": completeness_of(completeness),
        "completenessReasons": reasons_of(source, completeness, reasons),
        "lastSeen": iso(last_seen),
    }
