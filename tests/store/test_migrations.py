"""The Alembic migrations build exactly the schema the code declares, on both backends."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from store_summary import counts, ingest, load_golden

from plumbline.store.engine import create_store_engine
from plumbline.store.errors import SchemaTooNewError
from plumbline.store.migrate import check_not_newer, current_revision, head_revision, upgrade
from plumbline.store.revision import at_newest_schema, newest_revision
from plumbline.store.schema import metadata


def test_migrated_schema_matches_declared_schema(engine: sa.Engine) -> None:
    assert current_revision(engine) == head_revision()
    with engine.connect() as connection:
        context = MigrationContext.configure(connection)
        differences = compare_metadata(context, metadata)
    assert differences == []


def test_upgrade_is_idempotent(engine: sa.Engine) -> None:
    assert upgrade(engine) == head_revision()
    assert upgrade(engine) == head_revision()


def test_newer_schema_is_refused(engine: sa.Engine) -> None:
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '9999_future'"))
    with pytest.raises(SchemaTooNewError, match="9999_future"):
        check_not_newer(engine)
    with pytest.raises(SchemaTooNewError):
        upgrade(engine)


@pytest.mark.postgres
def test_empty_postgres_database_is_migrated(pg_url: str) -> None:
    engine = create_store_engine(pg_url)
    assert current_revision(engine) is None
    assert upgrade(engine) == head_revision()
    assert "lineage_events" in sa.inspect(engine).get_table_names()
    engine.dispose()


def test_edge_tables_leave_room_for_updates_on_postgres(pg_engine: sa.Engine) -> None:
    """Revision 0002: the edge tables' pages keep free space (HOT updates of counters)."""
    with pg_engine.connect() as connection:
        options = dict(
            connection.execute(
                sa.text("SELECT relname, reloptions FROM pg_class WHERE relname = ANY(:names)"),
                {"names": ["column_lineage_edges", "column_dataset_edges", "job_dataset_edges"]},
            ).all()
        )
    assert options == {
        name: ["fillfactor=50"]
        for name in ("column_lineage_edges", "column_dataset_edges", "job_dataset_edges")
    }


def test_rows_every_run_rewrites_leave_room_for_hot_updates_on_postgres(
    pg_engine: sa.Engine,
) -> None:
    """Revision 0017: datasets, jobs and job versions keep free space in their pages, and a
    dataset's facets go out of line, so that a run's update of them can be heap-only."""
    names = ["datasets", "jobs", "job_versions"]
    with pg_engine.connect() as connection:
        options = dict(
            connection.execute(
                sa.text("SELECT relname, reloptions FROM pg_class WHERE relname = ANY(:names)"),
                {"names": names},
            ).all()
        )
    assert options == {
        "datasets": ["fillfactor=50", "toast_tuple_target=256"],
        "jobs": ["fillfactor=50"],
        "job_versions": ["fillfactor=50"],
    }


def test_raw_events_are_compressed_with_lz4_on_postgres(pg_engine: sa.Engine) -> None:
    """Revision 0002: raw event payloads use lz4 where the server has it."""
    with pg_engine.connect() as connection:
        supported = connection.execute(
            sa.text("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
        ).scalar_one()
        method = connection.execute(
            sa.text(
                "SELECT attcompression FROM pg_attribute"
                " WHERE attrelid = 'lineage_events'::regclass AND attname = 'payload'"
            )
        ).scalar_one()
    assert method == ("l" if "lz4" in supported else "")


def test_downgrade_to_first_revision_and_upgrade_again(db_url: str) -> None:
    """A database at revision 0001 (before the edge fillfactor) upgrades to the head cleanly."""
    from alembic import command

    from plumbline.store.migrate import _alembic_config

    engine = create_store_engine(db_url)
    config = _alembic_config(engine)
    command.downgrade(config, "0001")
    assert current_revision(engine) == "0001"
    assert upgrade(engine) == head_revision()
    assert current_revision(engine) == head_revision() != "0001"
    engine.dispose()


def test_down_and_up_again_keeps_every_row(db_url: str) -> None:
    """Migrations change columns in place: no table rebuild (which on SQLite would cascade-delete
    the rows that reference a rebuilt table) loses stored lineage going down or up."""
    from alembic import command

    from plumbline.store.migrate import _alembic_config

    engine = create_store_engine(db_url)
    ingest(engine, load_golden("shop_pipeline.json"))
    before = counts(engine)
    assert before["column_lineage_edges"] > 0 and before["dataset_fields"] > 0
    command.downgrade(_alembic_config(engine), "0002")
    with engine.connect() as connection:
        after_down = {
            table: connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()  # noqa: S608
            for table in before
        }
    assert after_down == before
    upgrade(engine)
    assert counts(engine) == before
    engine.dispose()


def test_raw_events_keep_their_canonical_text(db_url: str) -> None:
    """Revision 0007: the payload is kept as the text stored (PostgreSQL ``json``, not ``jsonb``,
    which would reorder keys), so each raw event hashes to its digest."""
    engine = create_store_engine(db_url)
    ingest(engine, load_golden("shop_pipeline.json"))
    with engine.connect() as connection:
        rows = connection.execute(
            sa.text("SELECT CAST(payload AS TEXT), digest FROM lineage_events")
        ).all()
        if engine.dialect.name == "postgresql":
            column_type = connection.execute(
                sa.text(
                    "SELECT data_type FROM information_schema.columns"
                    " WHERE table_name = 'lineage_events' AND column_name = 'payload'"
                )
            ).scalar_one()
            assert column_type == "json"
    engine.dispose()
    assert rows
    assert all(hashlib.sha256(text.encode()).hexdigest() == digest for text, digest in rows)


def test_fields_named_by_a_stored_schema_are_marked_in_schema(db_url: str) -> None:
    """Revision 0015 on a store written before it: the fields a stored schema named (nested ones
    dotted) are ``in_schema``, those only column lineage named are not."""
    from alembic import command

    from plumbline.store.migrate import _alembic_config
    from plumbline.store.schema import dataset_fields

    producer = "https://example.com/p"
    schema = {
        "_producer": producer,
        "_schemaURL": "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json",
        "fields": [{"name": "id", "type": "int"}, {"name": "s", "fields": [{"name": "x"}]}],
    }
    lineage = {
        "_producer": producer,
        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json",
        "fields": {"id": {"inputFields": [{"namespace": "lake", "name": "raw", "field": "k"}]}},
    }
    event = {
        "eventType": "COMPLETE",
        "eventTime": "2026-01-01T00:00:00Z",
        "run": {"runId": "00000000-0000-4000-8000-000000000015"},
        "job": {"namespace": "shop", "name": "load"},
        "inputs": [{"namespace": "lake", "name": "raw"}],
        "outputs": [
            {
                "namespace": "lake",
                "name": "clean",
                "facets": {"schema": schema, "columnLineage": lineage},
            }
        ],
        "producer": producer,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }
    engine = create_store_engine(db_url)
    ingest(engine, [event])
    query = sa.select(dataset_fields.c.name, dataset_fields.c.in_schema).order_by("name")
    with engine.connect() as connection:
        written = [tuple(row) for row in connection.execute(query)]
    expected = [("id", True), ("k", False), ("s", True), ("s.x", True)]
    assert written == expected
    command.downgrade(_alembic_config(engine), "0014")  # the store as it was before 0015
    upgrade(engine)
    with engine.connect() as connection:
        assert [tuple(row) for row in connection.execute(query)] == expected
    engine.dispose()


def test_the_newest_revision_is_known_without_alembic(engine: sa.Engine) -> None:
    """The commands' start-up check (``at_newest_schema``) reads the head from the migration
    files' text: it names the head alembic finds, and tells a store at it from one that is not."""
    assert newest_revision() == head_revision()
    assert at_newest_schema(engine)
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '0001'"))
    assert not at_newest_schema(engine)
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '9999_future'"))
    assert not at_newest_schema(engine)


def test_an_empty_database_is_not_at_the_newest_schema(tmp_path: Path) -> None:
    engine = create_store_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    assert not at_newest_schema(engine)
    engine.dispose()
