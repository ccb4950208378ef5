"""A tiny writer of store rows for the read-path tests: builds exact graphs (chains, cycles, fans)
straight into the schema — the contract between the write and read paths — on either backend.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


class StoreBuilder:
    """Inserts namespaces, datasets, fields, jobs, edges and runs; returns their ids."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.namespaces: dict[str, int] = {}
        self.datasets: dict[tuple[str, str], int] = {}
        self.jobs: dict[tuple[str, str], int] = {}
        self.fields: dict[tuple[str, str, str], int] = {}

    def _insert(self, table: sa.Table, **values: Any) -> int:
        result = self.conn.execute(sa.insert(table).values(**values).returning(table.c.id))
        return int(result.scalar_one())

    def _existing(self, table: sa.Table, **where: Any) -> int | None:
        query = sa.select(table.c.id).where(*(table.c[k] == v for k, v in where.items()))
        return self.conn.execute(query).scalar()

    def namespace(self, name: str) -> int:
        if name not in self.namespaces:
            self.namespaces[name] = self._existing(s.namespaces, name=name) or self._insert(
                s.namespaces, name=name, created_at=T0, updated_at=T0
            )
        return self.namespaces[name]

    def dataset(
        self, ns: str, name: str, fields: tuple[str, ...] = (), *, at: datetime = T0
    ) -> int:
        key = (ns, name)
        if key not in self.datasets:
            found = self._existing(s.datasets, namespace_id=self.namespace(ns), name=name)
            self.datasets[key] = found or self._insert(
                s.datasets,
                uuid=str(uuid.uuid4()),
                namespace_id=self.namespace(ns),
                name=name,
                physical_name=name,
                created_at=at,
                updated_at=at,
            )
        for field in fields:
            self.field(ns, name, field)
        return self.datasets[key]

    def field(self, ns: str, dataset: str, name: str, type_: str = "string") -> int:
        key = (ns, dataset, name)
        if key not in self.fields:
            self.fields[key] = self._insert(
                s.dataset_fields,
                dataset_id=self.dataset(ns, dataset),
                name=name,
                type=type_,
                in_schema=True,  # as a schema facet names it
                created_at=T0,
                updated_at=T0,
            )
        return self.fields[key]

    def job(
        self, ns: str, name: str, inputs: tuple[str, ...] = (), outputs: tuple[str, ...] = ()
    ) -> int:
        """A job in ``ns`` reading and writing datasets of the same namespace."""
        key = (ns, name)
        if key not in self.jobs:
            self.jobs[key] = self._insert(
                s.jobs,
                uuid=str(uuid.uuid4()),
                namespace_id=self.namespace(ns),
                name=name,
                created_at=T0,
                updated_at=T0,
            )
        job = self.jobs[key]
        for direction, names in (("input", inputs), ("output", outputs)):
            for ds in names:
                self.conn.execute(
                    sa.insert(s.job_dataset_edges).values(
                        job_id=job,
                        dataset_id=self.dataset(ns, ds),
                        direction=direction,
                        first_seen=T0,
                        last_seen=T0,
                    )
                )
        return job

    def column_edge(
        self,
        ns: str,
        source: tuple[str, str],
        target: tuple[str, str],
        type_: str = "DIRECT",
        subtype: str = "IDENTITY",
    ) -> None:
        """``source`` field (dataset, field) feeds ``target`` field."""
        self.conn.execute(
            sa.insert(s.column_lineage_edges).values(
                output_field_id=self.field(ns, *target),
                input_field_id=self.field(ns, *source),
                transformation_type=type_,
                transformation_subtype=subtype,
                first_seen=T0,
                last_seen=T0,
            )
        )

    def dataset_dependency(
        self, ns: str, source: tuple[str, str], target: str, subtype: str = "FILTER"
    ) -> None:
        """``source`` field shapes the whole ``target`` dataset (columnLineage ``dataset``)."""
        self.conn.execute(
            sa.insert(s.column_dataset_edges).values(
                output_dataset_id=self.dataset(ns, target),
                input_field_id=self.field(ns, *source),
                transformation_type="INDIRECT",
                transformation_subtype=subtype,
                first_seen=T0,
                last_seen=T0,
            )
        )

    def run(
        self,
        ns: str,
        job: str,
        *,
        reads: tuple[str, ...] = (),
        writes: tuple[str, ...] = (),
        state: str = "COMPLETE",
        minutes: int = 0,
        run_uuid: str | None = None,
    ) -> str:
        """A finished run of ``job`` that read the current versions of ``reads`` and wrote a new
        version of each of ``writes``; returns the run's uuid."""
        run_id = run_uuid or str(uuid.uuid4())
        start = T0 + timedelta(minutes=minutes)
        end = start + timedelta(seconds=90)
        job_pk = self.jobs[(ns, job)]
        run_pk = self._insert(
            s.runs,
            uuid=run_id,
            job_id=job_pk,
            current_state=state,
            started_at=start,
            ended_at=end,
            facets={"nominalTime": {"nominalStartTime": start.isoformat()}},
            job_facets={"jobType": {"jobType": "JOB"}},
            created_at=start,
            updated_at=end,
        )
        self.conn.execute(
            sa.update(s.jobs).where(s.jobs.c.id == job_pk).values(latest_run_uuid=run_id)
        )
        for ds in reads:
            dataset_pk = self.datasets[(ns, ds)]
            current = self.conn.execute(
                sa.select(s.datasets.c.current_version_id).where(s.datasets.c.id == dataset_pk)
            ).scalar()
            self._insert(
                s.run_io,
                run_id=run_pk,
                dataset_id=dataset_pk,
                dataset_version_id=current,
                direction="input",
                created_at=start,
            )
        for ds in writes:
            dataset_pk = self.datasets[(ns, ds)]
            version = self._insert(
                s.dataset_versions,
                uuid=str(uuid.uuid4()),
                dataset_id=dataset_pk,
                version=run_id,
                run_uuid=run_id,
                lifecycle_state="OVERWRITE",
                created_at=end,
            )
            self.conn.execute(
                sa.update(s.datasets)
                .where(s.datasets.c.id == dataset_pk)
                .values(current_version_id=version)
            )
            self._insert(
                s.run_io,
                run_id=run_pk,
                dataset_id=dataset_pk,
                dataset_version_id=version,
                direction="output",
                row_count=10,
                created_at=end,
            )
        return run_id

    def hide_dataset(self, ns: str, name: str) -> None:
        self.conn.execute(
            sa.update(s.datasets)
            .where(s.datasets.c.id == self.datasets[(ns, name)])
            .values(is_hidden=True)
        )
