"""Writes of change alerts: insert each once (by its dedupe key), attach its blast radius,
acknowledge it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store.schema import alerts
from plumbline.store.write.upsert import insert_returning


@dataclass(frozen=True)
class NewAlert:
    """An alert a check found; ``occurrence`` tells this occurrence from others of the same
    kind and subject (a run id, a schema fingerprint, …), so it is stored once."""

    kind: str
    namespace: str
    subject: str
    occurrence: str
    run_uuid: str | None
    details: dict[str, Any]

    @property
    def dedupe_key(self) -> str:
        text = "\x00".join((self.kind, self.subject, self.occurrence))
        return hashlib.sha256(text.encode()).hexdigest()


def _ignore_returning_id(statement: Any) -> Any:
    return statement.on_conflict_do_nothing(index_elements=["dedupe_key"]).returning(alerts.c.id)


def insert_alerts(connection: Connection, found: list[NewAlert], now: datetime) -> list[int]:
    """Store the alerts not stored yet; the ids of those inserted."""
    if not found:
        return []
    unique = {alert.dedupe_key: alert for alert in found}
    rows = [
        {
            "kind": alert.kind,
            "namespace": alert.namespace,
            "subject": alert.subject,
            "dedupe_key": key,
            "run_uuid": alert.run_uuid,
            "seen_at": now,
            "details": alert.details,
        }
        for key, alert in sorted(unique.items())
    ]
    return sorted(
        row.id for row in insert_returning(connection, alerts, rows, _ignore_returning_id)
    )


def set_blast_radius(
    connection: Connection,
    alert_id: int,
    blast_radius: dict[str, Any],
    details: dict[str, Any] | None = None,
) -> None:
    """Attach the blast radius computed for an alert (and replace its details, when given)."""
    values: dict[str, Any] = {"blast_radius": blast_radius}
    if details is not None:
        values["details"] = details
    connection.execute(sa.update(alerts).where(alerts.c.id == alert_id).values(**values))


def acknowledge(connection: Connection, alert_id: int, by: str | None, now: datetime) -> bool:
    """Mark an alert acknowledged (the first acknowledgement is kept); whether it exists."""
    exists = connection.execute(sa.select(alerts.c.id).where(alerts.c.id == alert_id)).first()
    if exists is None:
        return False
    connection.execute(
        sa.update(alerts)
        .where(alerts.c.id == alert_id, alerts.c.acknowledged_at.is_(None))
        .values(acknowledged_at=now, acknowledged_by=by)
    )
    return True
