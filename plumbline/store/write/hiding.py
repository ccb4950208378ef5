"""Soft delete (Marquez's ``DELETE``): hide a namespace, dataset or job.

Hidden things vanish from lists, lookups, search and graphs; the write path un-hides them when a new
event mentions them again.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import dataset_pk, job_pk, namespace_row
from plumbline.store.read.datasets import datasets_by_pk
from plumbline.store.read.jobs import jobs_by_pk
from plumbline.store.read.namespaces import get_namespace
from plumbline.store.read.records import Dataset, Job, Namespace


def hide_dataset(conn: Connection, namespace: str, name: str) -> Dataset:
    """Hide one dataset; returns it as it was before (Marquez answers the deleted dataset)."""
    pk = dataset_pk(conn, namespace, name)
    doc = datasets_by_pk(conn, [pk])[pk]
    now = datetime.now(UTC)
    conn.execute(
        sa.update(s.datasets).where(s.datasets.c.id == pk).values(is_hidden=True, updated_at=now)
    )
    return doc


def hide_job(conn: Connection, namespace: str, name: str) -> Job:
    """Hide one job; returns it as it was before."""
    pk = job_pk(conn, namespace, name)
    doc = jobs_by_pk(conn, [pk])[pk]
    now = datetime.now(UTC)
    conn.execute(sa.update(s.jobs).where(s.jobs.c.id == pk).values(is_hidden=True, updated_at=now))
    return doc


def hide_namespace(conn: Connection, namespace: str) -> Namespace:
    """Hide a namespace with every dataset and job in it; returns it as it was before."""
    row = namespace_row(conn, namespace)
    doc = get_namespace(conn, namespace)
    now = datetime.now(UTC)
    for table in (s.datasets, s.jobs):
        conn.execute(
            sa.update(table)
            .where(table.c.namespace_id == row.id)
            .values(is_hidden=True, updated_at=now)
        )
    conn.execute(
        sa.update(s.namespaces)
        .where(s.namespaces.c.id == row.id)
        .values(is_hidden=True, updated_at=now)
    )
    return doc
