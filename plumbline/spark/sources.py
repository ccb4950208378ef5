"""What one source leaf of a plan reads: its datasets, and the input fields of each column.

A leaf may read several datasets: a file read over several paths (every path is an input), a
JDBC read whose SQL joins tables (every table it reads is an input, never the SQL text), or a
DataFrame made from an RDD (the files the RDD reads, found through its dependencies; its columns
come from Python code, so they have no column lineage).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from plumbline.spark import jdbc_query, rdds, streaming
from plumbline.spark.datasets import DatasetId, from_jdbc, from_location, from_table
from plumbline.spark.facts import DatasetFacts
from plumbline.spark.jvm import RelationInfo
from plumbline.spark.lineage import DIRECT, IDENTITY, TRANSFORMATION, Deps

STREAM_FILES = 20  # the files of a file source's micro-batch named in its record (all counted)

log = logging.getLogger(__name__)


@dataclass
class LeafRead:
    """The datasets a leaf reads and how its columns map onto their fields."""

    datasets: list[DatasetFacts]
    # a column's input fields by dataset id; None: the same-named column of every dataset
    column_sources: Callable[[str], list[tuple[DatasetId, str, str]]] | None = None
    opaque: bool = False  # columns computed by code plumbline cannot see (RDDs)

    def deps(self, column: str, key_of: Callable[[DatasetId], str]) -> Deps:
        """Input fields of one output column of the leaf, by dataset key."""
        if self.opaque:
            return {}
        if self.column_sources is None:
            return {(key_of(d.id), column): {(DIRECT, IDENTITY)} for d in self.datasets}
        return {
            (key_of(dataset), source): {(DIRECT, subtype)}
            for dataset, source, subtype in self.column_sources(column)
        }


def relation_read(info: RelationInfo) -> LeafRead | None:
    """A LogicalRelation or HiveTableRelation's datasets (None: not a dataset plumbline names)."""
    if info.table is not None and info.table.location:
        dataset = from_table(info.table.location, info.table.table)
        provider = info.file_format or info.table.provider
        facts = DatasetFacts(dataset, info.schema, provider, info.table, dataset.namespace)
        return LeafRead([_with_format(facts, info)])
    if info.kind == "files" and info.locations:
        found = list(dict.fromkeys(from_location(p) for p in info.locations))
        return LeafRead(
            [
                _with_format(
                    DatasetFacts(d, info.schema, info.file_format, None, d.namespace), info
                )
                for d in found
            ]
        )
    if info.kind == "jdbc" and info.jdbc_url:
        return _jdbc_read(info)
    if info.kind == "kafka" and info.options is not None:
        # a batch read of `subscribe` / `assign` topics (a pattern's matches are not known here)
        found = streaming.kafka_datasets(streaming.kafka_options(info.options), sink=False)
        return LeafRead([DatasetFacts(d, info.schema, None, None, d.namespace) for d in found])
    return None


def _with_format(facts: DatasetFacts, info: RelationInfo) -> DatasetFacts:
    """A table format's read: its format, root path and the version it scans."""
    if info.table_format is not None:
        facts.table_format, facts.version = info.table_format, info.version
        facts.format_location = info.locations[0] if info.locations else None
    if info.stream_files is not None:
        facts.stream_files = info.stream_files[:STREAM_FILES]
        facts.stream_file_count = len(info.stream_files)
    return facts


def _jdbc_read(info: RelationInfo) -> LeafRead | None:
    url = str(info.jdbc_url)
    sql = jdbc_query.query_of(info.jdbc_table, info.jdbc_query)
    if sql is None:
        if not info.jdbc_table:
            return None
        dataset = from_jdbc(url, info.jdbc_table)
        return LeafRead([DatasetFacts(dataset, info.schema, None, None, dataset.namespace)])
    parsed = jdbc_query.parse(url, sql)
    if parsed is None:
        return None
    ids = {table: from_jdbc(url, table) for table in parsed.tables}
    datasets = [DatasetFacts(d, [], None, None, d.namespace) for d in dict.fromkeys(ids.values())]

    def column_sources(column: str) -> list[tuple[DatasetId, str, str]]:
        sources, plain = parsed.sources(column)
        subtype = IDENTITY if plain else TRANSFORMATION
        return [(ids[t], c, subtype) for t, c in sources if t in ids]

    return LeafRead(datasets, column_sources)


def rdd_read(jvm_rdd: Any) -> LeafRead:
    """A DataFrame made from an RDD: the files the RDD reads; no column lineage."""
    found = rdds.input_locations(jvm_rdd)
    datasets = []
    for location, file_format in found:
        dataset = from_location(location)
        datasets.append(DatasetFacts(dataset, [], file_format, None, dataset.namespace))
    return LeafRead(datasets, opaque=True)
