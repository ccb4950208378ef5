"""The lineage SQL tables in Spark SQL: ``lineage_tables(spark, source)`` registers them in a
Spark database (``plumbline`` by default), so that ``spark.sql("SELECT … FROM
plumbline.table_lineage")`` works, next to the pipelines.

``source`` is either a folder written by ``plumbline export`` (any path Spark reads: local, HDFS,
an object store) or a plumbline PostgreSQL store, read through Spark's JDBC source (its views
``plumbline_<table>``; the PostgreSQL JDBC driver must be on Spark's class path). Tables over
files are external: dropping them never deletes the files. No SQL text is built from ``source``:
the tables are created through Spark's catalog API.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from plumbline.lineage_tables import HISTORY, TABLES, view_name
from plumbline.spark.errors import SettingsError

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_POSTGRES = ("postgresql:", "postgresql+psycopg:", "postgres:", "jdbc:postgresql:")
_FORMATS = {
    "parquet": ("parquet", {}),
    "jsonl": ("json", {}),
    "csv": ("csv", {"header": "true", "inferSchema": "true"}),
}


def jdbc_options(url: str) -> dict[str, str]:
    """Spark JDBC options (``url``, ``user``, ``password``, ``driver``) for a PostgreSQL URL as
    plumbline takes it (``postgresql+psycopg://user:password@host:port/db``) or a JDBC URL."""
    if url.startswith("jdbc:"):
        return {"url": url, "driver": "org.postgresql.Driver"}
    parts = urlsplit(url)
    if not parts.hostname or not parts.path.strip("/"):
        raise SettingsError(f"{_redacted(url)}: expected postgresql://USER@HOST:PORT/DATABASE")
    options = {
        "url": f"jdbc:postgresql://{parts.hostname}:{parts.port or 5432}/{parts.path.strip('/')}",
        "driver": "org.postgresql.Driver",
    }
    if parts.username:
        options["user"] = unquote(parts.username)
    if parts.password:
        options["password"] = unquote(parts.password)
    return options


def _redacted(url: str) -> str:
    return re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", url)


def lineage_tables(
    spark: Any,
    source: str | Path,
    *,
    database: str = "plumbline",
    file_format: str = "parquet",
) -> list[str]:
    """Register every lineage table over ``source`` in ``database`` (created if missing; tables
    of the same names there are replaced). Returns the qualified table names."""
    if not _IDENTIFIER.fullmatch(database):
        raise SettingsError(f"{database!r} is not a Spark database name (letters, digits, _)")
    text = str(source)
    jdbc = text.startswith(_POSTGRES)
    if not jdbc and file_format not in _FORMATS:
        raise SettingsError(f"unknown format {file_format!r}: one of {', '.join(_FORMATS)}")
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {database}")
    names = []
    for table in TABLES:
        name = f"{database}.{table}"
        spark.sql(f"DROP TABLE IF EXISTS {name}")
        if jdbc:
            options = jdbc_options(text)
            spark.catalog.createTable(name, source="jdbc", dbtable=view_name(table), **options)
        else:
            kind, options = _FORMATS[file_format]
            location = text.rstrip("/") + "/" + table
            if _missing(location):  # a table the export had no rows for: empty, typed
                spark.catalog.createTable(
                    name, path=location, source=kind, schema=_schema(table), **options
                )
                names.append(name)
                continue
            spark.catalog.createTable(name, path=location, source=kind, **options)
            if table in HISTORY:
                spark.catalog.recoverPartitions(name)
        names.append(name)
    return names


def _spark_type(kind: str) -> Any:
    """The Spark SQL type of a lineage-table column kind (JSON is kept as its text)."""
    from pyspark.sql import types

    spark_types = {
        "string": types.StringType,
        "int": types.LongType,
        "timestamp": types.TimestampType,
        "date": types.DateType,
        "json": types.StringType,
    }
    return spark_types[kind]()


def _missing(location: str) -> bool:
    """Whether a local export folder has no folder for a table (the export writes none for a
    table without rows, such as ``stream_batch_lineage`` of a store with no streams)."""
    parts = urlsplit(location)
    if parts.scheme not in ("", "file"):
        return False  # a remote store: Spark finds out
    return not Path(unquote(parts.path) if parts.scheme else location).exists()


def _schema(table: str) -> Any:
    """The Spark schema of a lineage table, from :data:`plumbline.lineage_tables.TABLES`."""
    from pyspark.sql import types

    return types.StructType(
        [types.StructField(name, _spark_type(kind)) for name, kind in TABLES[table]]
    )
