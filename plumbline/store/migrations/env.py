"""Alembic environment: runs against the engine handed in by plumbline.store.migrate."""

from alembic import context

from plumbline.store.schema import metadata

engine = context.config.attributes["engine"]

with engine.begin() as connection:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    context.run_migrations()
