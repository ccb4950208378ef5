"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-21 21:01:17.564416
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "api_tokens",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("token_hash", sa.String(length=128), nullable=False),
        sa.Column("scope", sa.String(length=16), nullable=False),
        sa.Column(
            "namespaces",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
        sa.UniqueConstraint("name", name=op.f("uq_api_tokens_name")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_tokens_token_hash")),
    )
    op.create_table(
        "lineage_events",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("event_type", sa.String(length=16), nullable=True),
        sa.Column("event_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("run_uuid", sa.String(length=36), nullable=True),
        sa.Column("job_namespace", sa.String(length=1024), nullable=True),
        sa.Column("job_name", sa.String(length=2048), nullable=True),
        sa.Column("producer", sa.Text(), nullable=True),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column(
            "payload",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("token_name", sa.String(length=255), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lineage_events")),
        sa.UniqueConstraint("digest", name=op.f("uq_lineage_events_digest")),
    )
    with op.batch_alter_table("lineage_events", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_lineage_events_event_time"), ["event_time"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_lineage_events_received_at"), ["received_at"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_lineage_events_run_uuid"), ["run_uuid"], unique=False)

    op.create_table(
        "namespaces",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("name", sa.String(length=1024), nullable=False),
        sa.Column("owner_name", sa.String(length=255), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("is_hidden", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_namespaces")),
        sa.UniqueConstraint("name", name=op.f("uq_namespaces_name")),
    )
    op.create_table(
        "outbox",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("target", sa.String(length=2048), nullable=False),
        sa.Column("run_uuid", sa.String(length=36), nullable=True),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), server_default="0", nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_outbox_run_uuid"), ["run_uuid"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_outbox_target_status_next_attempt_at"),
            ["target", "status", "next_attempt_at"],
            unique=False,
        )

    op.create_table(
        "sources",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("name", sa.String(length=1024), nullable=False),
        sa.Column("type", sa.String(length=64), server_default="POSTGRESQL", nullable=False),
        sa.Column("connection_url", sa.Text(), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sources")),
        sa.UniqueConstraint("name", name=op.f("uq_sources_name")),
    )
    op.create_table(
        "tags",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tags")),
        sa.UniqueConstraint("name", name=op.f("uq_tags_name")),
    )
    op.create_table(
        "datasets",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column(
            "namespace_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("source_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("name", sa.String(length=2048), nullable=False),
        sa.Column("physical_name", sa.String(length=2048), nullable=False),
        sa.Column("type", sa.String(length=32), server_default="DB_TABLE", nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column(
            "facets",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column(
            "current_version_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=True,
        ),
        sa.Column(
            "current_schema_version_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=True,
        ),
        sa.Column("stable_id", sa.String(length=255), nullable=True),
        sa.Column("last_modified_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("is_hidden", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["namespace_id"],
            ["namespaces.id"],
            name=op.f("fk_datasets_namespace_id_namespaces"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["source_id"],
            ["sources.id"],
            name=op.f("fk_datasets_source_id_sources"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_datasets")),
        sa.UniqueConstraint("namespace_id", "name", name=op.f("uq_datasets_namespace_id_name")),
        sa.UniqueConstraint("uuid", name=op.f("uq_datasets_uuid")),
    )
    with op.batch_alter_table("datasets", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_datasets_stable_id"), ["stable_id"], unique=False)

    op.create_table(
        "jobs",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column(
            "namespace_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("name", sa.String(length=2048), nullable=False),
        sa.Column("type", sa.String(length=32), server_default="BATCH", nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("location", sa.Text(), nullable=True),
        sa.Column(
            "facets",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column(
            "parent_job_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True
        ),
        sa.Column(
            "current_version_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=True,
        ),
        sa.Column("latest_run_uuid", sa.String(length=36), nullable=True),
        sa.Column("is_hidden", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["namespace_id"],
            ["namespaces.id"],
            name=op.f("fk_jobs_namespace_id_namespaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
        sa.UniqueConstraint("namespace_id", "name", name=op.f("uq_jobs_namespace_id_name")),
        sa.UniqueConstraint("uuid", name=op.f("uq_jobs_uuid")),
    )
    op.create_table(
        "dataset_fields",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column(
            "dataset_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("name", sa.String(length=1024), nullable=False),
        sa.Column("type", sa.String(length=255), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["dataset_id"],
            ["datasets.id"],
            name=op.f("fk_dataset_fields_dataset_id_datasets"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dataset_fields")),
        sa.UniqueConstraint("dataset_id", "name", name=op.f("uq_dataset_fields_dataset_id_name")),
    )
    op.create_table(
        "dataset_symlinks",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column(
            "dataset_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("namespace", sa.String(length=1024), nullable=False),
        sa.Column("name", sa.String(length=2048), nullable=False),
        sa.Column("type", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["dataset_id"],
            ["datasets.id"],
            name=op.f("fk_dataset_symlinks_dataset_id_datasets"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dataset_symlinks")),
        sa.UniqueConstraint("namespace", "name", name=op.f("uq_dataset_symlinks_namespace_name")),
    )
    with op.batch_alter_table("dataset_symlinks", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_dataset_symlinks_dataset_id"), ["dataset_id"], unique=False
        )

    op.create_table(
        "dataset_tags",
        sa.Column(
            "dataset_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("tag_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("tagged_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["dataset_id"],
            ["datasets.id"],
            name=op.f("fk_dataset_tags_dataset_id_datasets"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tag_id"], ["tags.id"], name=op.f("fk_dataset_tags_tag_id_tags"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("dataset_id", "tag_id", name=op.f("pk_dataset_tags")),
    )
    op.create_table(
        "job_dataset_edges",
        sa.Column("job_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column(
            "dataset_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("direction", sa.String(length=6), nullable=False),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("run_count", sa.BigInteger(), server_default="1", nullable=False),
        sa.ForeignKeyConstraint(
            ["dataset_id"],
            ["datasets.id"],
            name=op.f("fk_job_dataset_edges_dataset_id_datasets"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["job_id"],
            ["jobs.id"],
            name=op.f("fk_job_dataset_edges_job_id_jobs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "job_id", "dataset_id", "direction", name=op.f("pk_job_dataset_edges")
        ),
    )
    with op.batch_alter_table("job_dataset_edges", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_job_dataset_edges_dataset_id_direction_job_id"),
            ["dataset_id", "direction", "job_id"],
            unique=False,
        )

    op.create_table(
        "job_tags",
        sa.Column("job_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("tag_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("tagged_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"], ["jobs.id"], name=op.f("fk_job_tags_job_id_jobs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["tag_id"], ["tags.id"], name=op.f("fk_job_tags_tag_id_tags"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("job_id", "tag_id", name=op.f("pk_job_tags")),
    )
    op.create_table(
        "job_versions",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("job_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("version", sa.String(length=64), nullable=False),
        sa.Column("location", sa.Text(), nullable=True),
        sa.Column(
            "inputs",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column(
            "outputs",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("latest_run_uuid", sa.String(length=36), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"], ["jobs.id"], name=op.f("fk_job_versions_job_id_jobs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_job_versions")),
        sa.UniqueConstraint("job_id", "version", name=op.f("uq_job_versions_job_id_version")),
        sa.UniqueConstraint("uuid", name=op.f("uq_job_versions_uuid")),
    )
    op.create_table(
        "schema_versions",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column(
            "dataset_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column(
            "fields",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["dataset_id"],
            ["datasets.id"],
            name=op.f("fk_schema_versions_dataset_id_datasets"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_schema_versions")),
        sa.UniqueConstraint(
            "dataset_id", "fingerprint", name=op.f("uq_schema_versions_dataset_id_fingerprint")
        ),
    )
    op.create_table(
        "column_dataset_edges",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column(
            "output_dataset_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=False,
        ),
        sa.Column(
            "input_field_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("transformation_type", sa.String(length=16), server_default="", nullable=False),
        sa.Column(
            "transformation_subtype", sa.String(length=32), server_default="", nullable=False
        ),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("masking", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_count", sa.BigInteger(), server_default="1", nullable=False),
        sa.ForeignKeyConstraint(
            ["input_field_id"],
            ["dataset_fields.id"],
            name=op.f("fk_column_dataset_edges_input_field_id_dataset_fields"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["output_dataset_id"],
            ["datasets.id"],
            name=op.f("fk_column_dataset_edges_output_dataset_id_datasets"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_column_dataset_edges")),
        sa.UniqueConstraint(
            "output_dataset_id",
            "input_field_id",
            "transformation_type",
            "transformation_subtype",
            name=op.f(
                "uq_column_dataset_edges_output_dataset_id_input_field_id_transformation_type_transformation_subtype"
            ),
        ),
    )
    with op.batch_alter_table("column_dataset_edges", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_column_dataset_edges_input_field_id"), ["input_field_id"], unique=False
        )

    op.create_table(
        "column_lineage_edges",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column(
            "output_field_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column(
            "input_field_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("transformation_type", sa.String(length=16), server_default="", nullable=False),
        sa.Column(
            "transformation_subtype", sa.String(length=32), server_default="", nullable=False
        ),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("masking", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_count", sa.BigInteger(), server_default="1", nullable=False),
        sa.ForeignKeyConstraint(
            ["input_field_id"],
            ["dataset_fields.id"],
            name=op.f("fk_column_lineage_edges_input_field_id_dataset_fields"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["output_field_id"],
            ["dataset_fields.id"],
            name=op.f("fk_column_lineage_edges_output_field_id_dataset_fields"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_column_lineage_edges")),
        sa.UniqueConstraint(
            "output_field_id",
            "input_field_id",
            "transformation_type",
            "transformation_subtype",
            name=op.f(
                "uq_column_lineage_edges_output_field_id_input_field_id_transformation_type_transformation_subtype"
            ),
        ),
    )
    with op.batch_alter_table("column_lineage_edges", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_column_lineage_edges_input_field_id"), ["input_field_id"], unique=False
        )

    op.create_table(
        "dataset_field_tags",
        sa.Column("field_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("tag_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("tagged_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["field_id"],
            ["dataset_fields.id"],
            name=op.f("fk_dataset_field_tags_field_id_dataset_fields"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tag_id"],
            ["tags.id"],
            name=op.f("fk_dataset_field_tags_tag_id_tags"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("field_id", "tag_id", name=op.f("pk_dataset_field_tags")),
    )
    op.create_table(
        "dataset_versions",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column(
            "dataset_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("version", sa.String(length=255), nullable=False),
        sa.Column("run_uuid", sa.String(length=36), nullable=True),
        sa.Column(
            "schema_version_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True
        ),
        sa.Column("lifecycle_state", sa.String(length=32), nullable=True),
        sa.Column(
            "facets",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["dataset_id"],
            ["datasets.id"],
            name=op.f("fk_dataset_versions_dataset_id_datasets"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["schema_version_id"],
            ["schema_versions.id"],
            name=op.f("fk_dataset_versions_schema_version_id_schema_versions"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dataset_versions")),
        sa.UniqueConstraint(
            "dataset_id", "version", name=op.f("uq_dataset_versions_dataset_id_version")
        ),
        sa.UniqueConstraint("uuid", name=op.f("uq_dataset_versions_uuid")),
    )
    with op.batch_alter_table("dataset_versions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_dataset_versions_run_uuid"), ["run_uuid"], unique=False
        )

    op.create_table(
        "runs",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("job_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column(
            "job_version_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True
        ),
        sa.Column("parent_run_uuid", sa.String(length=36), nullable=True),
        sa.Column("current_state", sa.String(length=16), nullable=True),
        sa.Column("nominal_start_time", sa.DateTime(timezone=True), nullable=True),
        sa.Column("nominal_end_time", sa.DateTime(timezone=True), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("error_stack", sa.Text(), nullable=True),
        sa.Column("error_language", sa.String(length=64), nullable=True),
        sa.Column(
            "facets",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column(
            "job_facets",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"], ["jobs.id"], name=op.f("fk_runs_job_id_jobs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["job_version_id"],
            ["job_versions.id"],
            name=op.f("fk_runs_job_version_id_job_versions"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
        sa.UniqueConstraint("uuid", name=op.f("uq_runs_uuid")),
    )
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_runs_job_id_created_at"), ["job_id", "created_at"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_runs_parent_run_uuid"), ["parent_run_uuid"], unique=False
        )

    op.create_table(
        "run_io",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("run_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column(
            "dataset_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column(
            "dataset_version_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=True,
        ),
        sa.Column("direction", sa.String(length=6), nullable=False),
        sa.Column(
            "facets",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("row_count", sa.BigInteger(), nullable=True),
        sa.Column("byte_count", sa.BigInteger(), nullable=True),
        sa.Column("file_count", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["dataset_id"],
            ["datasets.id"],
            name=op.f("fk_run_io_dataset_id_datasets"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["dataset_version_id"],
            ["dataset_versions.id"],
            name=op.f("fk_run_io_dataset_version_id_dataset_versions"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_run_io_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run_io")),
        sa.UniqueConstraint(
            "run_id", "dataset_id", "direction", name=op.f("uq_run_io_run_id_dataset_id_direction")
        ),
    )
    with op.batch_alter_table("run_io", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_run_io_dataset_id_direction"), ["dataset_id", "direction"], unique=False
        )

    op.create_table(
        "run_states",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("run_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("transitioned_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_run_states_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run_states")),
        sa.UniqueConstraint(
            "run_id",
            "state",
            "transitioned_at",
            name=op.f("uq_run_states_run_id_state_transitioned_at"),
        ),
    )


def downgrade() -> None:

    op.drop_table("run_states")
    with op.batch_alter_table("run_io", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_run_io_dataset_id_direction"))

    op.drop_table("run_io")
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_runs_parent_run_uuid"))
        batch_op.drop_index(batch_op.f("ix_runs_job_id_created_at"))

    op.drop_table("runs")
    with op.batch_alter_table("dataset_versions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_dataset_versions_run_uuid"))

    op.drop_table("dataset_versions")
    op.drop_table("dataset_field_tags")
    with op.batch_alter_table("column_lineage_edges", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_column_lineage_edges_input_field_id"))

    op.drop_table("column_lineage_edges")
    with op.batch_alter_table("column_dataset_edges", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_column_dataset_edges_input_field_id"))

    op.drop_table("column_dataset_edges")
    op.drop_table("schema_versions")
    op.drop_table("job_versions")
    op.drop_table("job_tags")
    with op.batch_alter_table("job_dataset_edges", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_job_dataset_edges_dataset_id_direction_job_id"))

    op.drop_table("job_dataset_edges")
    op.drop_table("dataset_tags")
    with op.batch_alter_table("dataset_symlinks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_dataset_symlinks_dataset_id"))

    op.drop_table("dataset_symlinks")
    op.drop_table("dataset_fields")
    op.drop_table("jobs")
    with op.batch_alter_table("datasets", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_datasets_stable_id"))

    op.drop_table("datasets")
    op.drop_table("tags")
    op.drop_table("sources")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbox_target_status_next_attempt_at"))
        batch_op.drop_index(batch_op.f("ix_outbox_run_uuid"))

    op.drop_table("outbox")
    op.drop_table("namespaces")
    with op.batch_alter_table("lineage_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lineage_events_run_uuid"))
        batch_op.drop_index(batch_op.f("ix_lineage_events_received_at"))
        batch_op.drop_index(batch_op.f("ix_lineage_events_event_time"))

    op.drop_table("lineage_events")
    op.drop_table("api_tokens")
