"""A write cost that stays flat as the store grows (issue 30)

1. ``dataset_versions (dataset_id, created_at, id)`` replaces ``(dataset_id, created_at)``. A run's
   input is linked to the dataset's version as of its read time: the newest version made by then,
   ties by id (``plumbline.store.write.version_as_of``). Without ``id`` in the index
   PostgreSQL read and sorted the dataset's whole history for every input of every run (and joined
   each version to its run): a cost per event that grew with the store. With it, a backward index
   scan stops at the first version that counts.
2. Storage parameters for the rows every run rewrites (PostgreSQL). A run moves its output
   dataset's current version, its job's latest run and its job version's latest run: one UPDATE
   of each such row per run is inevitable, and none changes an indexed column, so PostgreSQL can
   make it heap-only (HOT: no new index entries, the old version pruned in place) when the row's
   page has room. With full pages it could not, and the tables bloated (``datasets``: +21 MiB for
   240 rows after 30,000 events, ``bench/ingest_scale.py``).

   - ``fillfactor``: pages are filled to this share on insert, leaving room for HOT updates;
   - ``datasets.toast_tuple_target``: a dataset's merged facets (about 1 KB compressed for a
     20-field schema with column lineage) are stored out of line once a row passes 256 bytes, so
     that an update which does not change them copies a pointer, not the document.

   Catalog-only: pages already written keep their fill until rewritten. The edge tables have had
   fillfactor 50 since 0002. SQLite has no such settings.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28 02:00:00
"""

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

STORAGE = {
    "datasets": "fillfactor = 50, toast_tuple_target = 256",
    "jobs": "fillfactor = 50",
    "job_versions": "fillfactor = 50",
}


def upgrade() -> None:
    op.create_index(
        "ix_dataset_versions_dataset_id_created_at_id",
        "dataset_versions",
        ["dataset_id", "created_at", "id"],
    )
    op.drop_index("ix_dataset_versions_dataset_id_created_at", table_name="dataset_versions")
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, settings in STORAGE.items():
        op.execute(f"ALTER TABLE {table} SET ({settings})")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table, settings in STORAGE.items():
            names = ", ".join(part.split("=")[0].strip() for part in settings.split(","))
            op.execute(f"ALTER TABLE {table} RESET ({names})")
    op.create_index(
        "ix_dataset_versions_dataset_id_created_at",
        "dataset_versions",
        ["dataset_id", "created_at"],
    )
    op.drop_index("ix_dataset_versions_dataset_id_created_at_id", table_name="dataset_versions")
