"""What event-log extraction (`plumbline.eventlogs`) may use of the capture, and nothing more.

An event log holds what a live capture sees, in another form: physical plans as strings instead of
analyzed plans through py4j. Its extraction reuses the capture's pure-Python parts, all of them
named here (`tests/eventlogs/test_surface.py` fails on an import of another `plumbline.spark`
module from `plumbline.eventlogs`):

- the vocabulary (`vocabulary`: the class names, the output command table with each command's
  event-log handler) and the plan trees the walker reads (`Node`);
- column lineage (`column_lineage`, `LineageWalker`, `output_names`, the transformation names,
  `TRUNCATED` for a list Spark's string cut short);
- the description of an action (`ActionFacts`, `DatasetFacts`, `TableInfo`), the dataset naming
  rules (`DatasetId`, `from_location`, `from_table`, `from_jdbc`), `redact_text`, and the merge of
  an action's nested executions (`merge_executions`);
- OpenLineage events as live capture builds them (`events`: job names, run ids, facets);
- which Spark properties a run reports (`PROPERTIES_KEY`, `captured_properties`).

Nothing here touches the JVM: event logs are read without Spark.
"""

from __future__ import annotations

from plumbline.spark import events, vocabulary
from plumbline.spark.datasets import DatasetId, from_jdbc, from_location, from_table, redact_text
from plumbline.spark.facts import ActionFacts, DatasetFacts
from plumbline.spark.jvm import TableInfo
from plumbline.spark.lineage import (
    DIRECT,
    IDENTITY,
    TRUNCATED,
    Deps,
    LineageWalker,
    column_lineage,
    output_names,
)
from plumbline.spark.plan import Node
from plumbline.spark.runs import merge_executions
from plumbline.spark.settings import PROPERTIES_KEY, captured_properties
from plumbline.spark.vocabulary import CREATE_TABLE_EVENT, OUTPUT_COMMANDS, Kind

__all__ = [
    "CREATE_TABLE_EVENT",
    "DIRECT",
    "IDENTITY",
    "OUTPUT_COMMANDS",
    "PROPERTIES_KEY",
    "TRUNCATED",
    "ActionFacts",
    "DatasetFacts",
    "DatasetId",
    "Deps",
    "Kind",
    "LineageWalker",
    "Node",
    "TableInfo",
    "captured_properties",
    "column_lineage",
    "events",
    "from_jdbc",
    "from_location",
    "from_table",
    "merge_executions",
    "output_names",
    "redact_text",
    "vocabulary",
]
