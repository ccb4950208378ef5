"""plumbline.store: the lineage store (schema, migrations, write path, read path).

Other packages use only the names in ``__all__`` here and in the ``__all__`` of
:mod:`plumbline.store.read` (one query module per kind of read) and :mod:`plumbline.store.write`;
a module listed there (``tokens``, ``outbox``, ``read.datasets``, ``write.conflicts``, …) is public
too, except its names with a leading underscore. Every other module of the package is internal
and may change without notice. ``tests/test_surfaces.py`` checks that
other packages keep to this surface.

Names are imported on first use (see :mod:`plumbline._exports`): importing the package is cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from plumbline._exports import load_export

if TYPE_CHECKING:
    from plumbline.store import outbox, read, tokens, write
    from plumbline.store.engine import (
        check_store_url,
        create_store_engine,
        default_db_url,
        ping,
        single_writer,
        sqlite_file,
    )
    from plumbline.store.errors import (
        SchemaTooNewError,
        StoreError,
        UnsupportedDatabaseURLError,
    )
    from plumbline.store.handle import Store
    from plumbline.store.migrate import check_not_newer, current_revision, head_revision, upgrade
    from plumbline.store.read.common import dataset_pk, iso, job_pk, utc
    from plumbline.store.read.errors import InvalidArgumentError, NotFoundError, ReadError
    from plumbline.store.read.gcpause import gc_paused
    from plumbline.store.read.nodeids import (
        NodeId,
        dataset_node,
        field_node,
        job_node,
        resolve_node_id,
    )
    from plumbline.store.read.screen import existing_fields
    from plumbline.store.read.visibility import VisibleTo
    from plumbline.store.read.walks import field_walk, job_walk, upstream_run_walk
    from plumbline.store.read.work_budget import (
        DEFAULT_MAX_ANALYSIS_ROWS,
        budget_spent,
        work_budget,
    )
    from plumbline.store.revision import at_newest_schema
    from plumbline.store.write.normalizer import (
        NormalizeError,
        failed_events,
        normalization_backlog,
        pending_mark,
        pending_up_to,
    )
    from plumbline.store.write.prune import prune
    from plumbline.store.write.writer import StoreWriter, WriteResult, writer_for

# public name -> the module that defines it (a name mapped to "plumbline.store.<name>" is a module)
_EXPORTS = {
    "check_store_url": "plumbline.store.engine",
    "create_store_engine": "plumbline.store.engine",
    "default_db_url": "plumbline.store.engine",
    "single_writer": "plumbline.store.engine",
    "sqlite_file": "plumbline.store.engine",
    "ping": "plumbline.store.engine",
    "SchemaTooNewError": "plumbline.store.errors",
    "StoreError": "plumbline.store.errors",
    "UnsupportedDatabaseURLError": "plumbline.store.errors",
    "Store": "plumbline.store.handle",
    "check_not_newer": "plumbline.store.migrate",
    "current_revision": "plumbline.store.migrate",
    "head_revision": "plumbline.store.migrate",
    "upgrade": "plumbline.store.migrate",
    "at_newest_schema": "plumbline.store.revision",
    "outbox": "plumbline.store.outbox",
    "read": "plumbline.store.read",
    "dataset_pk": "plumbline.store.read.common",
    "iso": "plumbline.store.read.common",
    "job_pk": "plumbline.store.read.common",
    "utc": "plumbline.store.read.common",
    "InvalidArgumentError": "plumbline.store.read.errors",
    "NotFoundError": "plumbline.store.read.errors",
    "ReadError": "plumbline.store.read.errors",
    "gc_paused": "plumbline.store.read.gcpause",
    "dataset_node": "plumbline.store.read.nodeids",
    "field_node": "plumbline.store.read.nodeids",
    "job_node": "plumbline.store.read.nodeids",
    "NodeId": "plumbline.store.read.nodeids",
    "resolve_node_id": "plumbline.store.read.nodeids",
    "existing_fields": "plumbline.store.read.screen",
    "DEFAULT_MAX_ANALYSIS_ROWS": "plumbline.store.read.work_budget",
    "work_budget": "plumbline.store.read.work_budget",
    "budget_spent": "plumbline.store.read.work_budget",
    "VisibleTo": "plumbline.store.read.visibility",
    "field_walk": "plumbline.store.read.walks",
    "job_walk": "plumbline.store.read.walks",
    "upstream_run_walk": "plumbline.store.read.walks",
    "tokens": "plumbline.store.tokens",
    "write": "plumbline.store.write",
    "failed_events": "plumbline.store.write.normalizer",
    "normalization_backlog": "plumbline.store.write.normalizer",
    "NormalizeError": "plumbline.store.write.normalizer",
    "pending_mark": "plumbline.store.write.normalizer",
    "pending_up_to": "plumbline.store.write.normalizer",
    "prune": "plumbline.store.write.prune",
    "StoreWriter": "plumbline.store.write.writer",
    "writer_for": "plumbline.store.write.writer",
    "WriteResult": "plumbline.store.write.writer",
}

__all__ = [
    "existing_fields",
    "DEFAULT_MAX_ANALYSIS_ROWS",
    "at_newest_schema",
    "check_not_newer",
    "check_store_url",
    "create_store_engine",
    "current_revision",
    "dataset_node",
    "dataset_pk",
    "default_db_url",
    "failed_events",
    "field_node",
    "field_walk",
    "gc_paused",
    "head_revision",
    "InvalidArgumentError",
    "iso",
    "job_node",
    "job_pk",
    "job_walk",
    "NodeId",
    "normalization_backlog",
    "NormalizeError",
    "NotFoundError",
    "outbox",
    "pending_mark",
    "pending_up_to",
    "ping",
    "single_writer",
    "sqlite_file",
    "prune",
    "read",
    "ReadError",
    "resolve_node_id",
    "SchemaTooNewError",
    "Store",
    "StoreError",
    "UnsupportedDatabaseURLError",
    "StoreWriter",
    "tokens",
    "upgrade",
    "upstream_run_walk",
    "utc",
    "VisibleTo",
    "write",
    "writer_for",
    "WriteResult",
    "work_budget",
    "budget_spent",
]


def __getattr__(name: str) -> object:
    return load_export(__name__, _EXPORTS, name)
