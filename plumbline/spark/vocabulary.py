"""The Catalyst class names the capture knows, in one place.

Plans change between Spark versions (4.0 adds `ResultQueryStage` and `ColumnDefinition`, 4.1
`SaveAsV1TableCommand`...). Every class name the capture matches on is declared here, by simple
name (`plan.Node.name`), grouped by what the capture does with it; a new Spark version's names
are added to the group that treats them. Nothing here imports Spark.
"""

from __future__ import annotations

from dataclasses import dataclass

from plumbline.spark.catalyst_decisions import (
    EXPRESSION,
    HANDLER,
    LOGICAL,
    PASS_THROUGH,
    PHYSICAL,
    Decided,
)

# -- logical plan leaves ------------------------------------------------------------------------

RDD_RELATION = "LogicalRDD"  # a DataFrame made from an RDD (`rdd()` is that RDD)
V2_RELATION = "DataSourceV2Relation"  # a table of a DataSource V2 catalog
# a micro-batch's DataSource V2 streaming source (Kafka...): `relation().options()` name it
STREAM_RELATIONS = frozenset({"StreamingDataSourceV2ScanRelation", "StreamingDataSourceV2Relation"})

# Leaves whose `output` attributes start lineage: each is a fresh column (of a dataset when the
# leaf reads one, of nothing for in-memory data).
LOGICAL_RELATION = "LogicalRelation"  # a V1 relation (files, JDBC, a catalog table's files)
HIVE_TABLE_RELATION = "HiveTableRelation"
LOCAL_RELATION = "LocalRelation"  # in-memory rows
LEAF_RELATIONS = frozenset(
    {
        LOGICAL_RELATION,
        "LogicalRDD",
        LOCAL_RELATION,
        HIVE_TABLE_RELATION,
        "DataSourceV2Relation",
        "DataSourceV2ScanRelation",
        "InMemoryRelation",
        "Range",
        "OneRowRelation",
        "ExternalRDD",
        *STREAM_RELATIONS,
    }
)
# Leaves that read a dataset plumbline can name (files, catalog tables, JDBC, V2 catalogs, the
# files below a DataFrame made from an RDD).
DATASET_RELATIONS = frozenset(
    {LOGICAL_RELATION, HIVE_TABLE_RELATION, V2_RELATION, RDD_RELATION, *STREAM_RELATIONS}
)
# A V1 relation that is a JDBC table (the relation's `toString()` starts with it).
JDBC_RELATION = "JDBCRelation"
KAFKA_RELATION = "KafkaRelation"  # spark.read.format("kafka") (the Kafka connector's V1 relation)
KAFKA_PROVIDER = "KafkaSourceProvider"  # df.write.format("kafka")

# -- other logical plan nodes, by how column lineage treats them --------------------------------

# A persistent view, or the temporary view of `CACHE TABLE … AS SELECT`: its child is the view's
# own projection (each column cast to the view's schema) over the view's query.
VIEWS = frozenset({"View"})
PROJECT = "Project"
PROJECTS = frozenset({PROJECT})  # `projectList`: the output, each column computed from its input
# projections below a projection, collapsed by the compact reader into one node that carries its
# output's lineage (`levels` projections; `output`, `bases`, `lineage`: java/PlumblinePlanJson.java)
PROJECT_CHAIN = "ProjectChain"
AGGREGATE = "Aggregate"
AGGREGATES = frozenset({AGGREGATE})  # `aggregateExpressions`, grouped by `groupingExpressions`
FILTER = "Filter"
FILTERS = frozenset({FILTER})  # `condition` filters the rows
JOIN = "Join"
JOINS = frozenset({JOIN})  # `condition` joins two inputs of type `joinType`
# join types whose output is the left side only
LEFT_ANTI_JOIN = "LeftAnti"
LEFT_ONLY_JOIN_TYPES = ("LeftSemi", LEFT_ANTI_JOIN)
# the sides (0 left, 1 right) whose rows with a null key an equi-join of each type never outputs
INNER_JOIN = "Inner"
NULL_KEYS_DROPPED = {
    INNER_JOIN: (0, 1),
    "LeftSemi": (0, 1),
    LEFT_ANTI_JOIN: (1,),
    "LeftOuter": (1,),
    "RightOuter": (0,),
}
SORT = "Sort"
SORTS = frozenset({SORT})  # `order`
DISTINCTS = frozenset({"Distinct"})  # rows made distinct on every column
# rows made distinct on `keys` (dropDuplicates(subset); a stream's within its watermark)
DEDUPLICATES = frozenset({"Deduplicate", "DeduplicateWithinWatermark"})
WINDOW = "Window"
WINDOWS = frozenset({WINDOW})  # the child's output plus `windowExpressions`
GENERATE = "Generate"
GENERATES = frozenset({GENERATE})  # the child's output plus `generatorOutput` from `generator`
UNION = "Union"
UNIONS = frozenset({UNION})  # column i of the output is column i of every child
EXPAND = "Expand"
EXPANDS = frozenset({EXPAND})  # `output` column i is column i of every one of `projections`
# set operations whose output attributes are their left child's
LEFT_SET_OPERATIONS = frozenset({"Intersect", "Except"})
CTE_DEFINITIONS = frozenset({"CTERelationDef"})  # a common table expression (`id`)
CTE_REFERENCES = frozenset({"CTERelationRef"})  # a use of one (`cteId`, its own `output`)
WITH_CTES = frozenset({"WithCTE"})  # definitions first, the query that uses them last
# a join with a LATERAL subquery (`right`, a LateralSubquery) that reads the left side's columns
LATERAL_JOINS = frozenset({"LateralJoin"})
# Python UDFs evaluated apart (optimized plans): `udfs` compute `resultAttrs`, one each
PYTHON_EVALS = frozenset({"BatchEvalPython", "ArrowEvalPython"})
PYTHON_UDF = "PythonUDF"  # one of their `udfs`: a function of its arguments
PYTHON_UDFS = frozenset({PYTHON_UDF})  # Python code: its inputs assumed from its arguments
# Python code over whole rows (mapInPandas, applyInPandas...): its `output` columns come from code
# column lineage cannot look into (the completeness facet names them: issue 31 §2)
PYTHON_PLANS = frozenset(
    {
        "MapInPandas",
        "MapInArrow",
        "PythonMapInArrow",
        "FlatMapGroupsInPandas",
        "FlatMapGroupsInArrow",
        "FlatMapCoGroupsInPandas",
        "FlatMapCoGroupsInArrow",
        "FlatMapGroupsInPandasWithState",
        "TransformWithStateInPandas",
    }
)
# leaves made from an RDD: their columns come from code (`rdd` in the completeness facet)
RDD_RELATIONS = frozenset({RDD_RELATION, "ExternalRDD"})
# plan nodes that pass their child's columns on unchanged: no handler, and no loss of lineage (a
# node of no handler outside this set is named in the completeness facet as `unhandledNode`)
PASS_THROUGH_PLANS = frozenset().union(
    *(decided.names for decided in LOGICAL if decided.treatment == PASS_THROUGH)
)  # catalyst_decisions.py: each family with its reason
# an executed scan of cached data (event logs: `InMemoryTableScan [name#2]`): its `output`
# columns, of the cached plan under it (by expression id, else by name when the cache served
# another query whose columns have other ids)
CACHED_SCAN = "InMemoryTableScan"
CACHED_SCANS = frozenset({CACHED_SCAN})

# -- expressions --------------------------------------------------------------------------------

# References to an attribute defined elsewhere (by expression id).
ATTRIBUTE_REFERENCE = "AttributeReference"
ATTRIBUTES = frozenset({ATTRIBUTE_REFERENCE, "PrettyAttribute"})
SCALAR_SUBQUERY = "ScalarSubquery"  # its plan's first output column is its value
# A correlated subquery's reference to an attribute of the outer query (its field `e`).
OUTER_REFERENCE = "OuterReference"
# Expressions that hold a whole plan in their `plan` field.
SUBQUERY_EXPRESSIONS = frozenset({SCALAR_SUBQUERY, "Exists", "ListQuery", "LateralSubquery"})
# Wrappers of aggregate functions (sum, count...).
AGGREGATE_EXPRESSION = "AggregateExpression"
AGGREGATE_EXPRESSIONS = frozenset({AGGREGATE_EXPRESSION})
ALIAS = "Alias"
ALIASES = frozenset({ALIAS})  # names its child: the same lineage
WINDOW_EXPRESSION = "WindowExpression"
WINDOW_EXPRESSIONS = frozenset({WINDOW_EXPRESSION})  # a function, then its window spec
CASE_WHEN = "CaseWhen"
CASE_WHENS = frozenset({CASE_WHEN})  # (condition, value) pairs, then an optional else value
IF = "If"
IFS = frozenset({IF})  # predicate, then the two values
CAST = "Cast"
CASTS = frozenset({CAST, "UpCast"})  # a type conversion of their one child
# Tags the analyzer or optimizer puts on a value without changing it (a Scala UDF's argument known
# not null...): the value is taken as is, DIRECT IDENTITY as an Alias is
IDENTITY_WRAPPERS = frozenset(
    {"KnownNotNull", "KnownNullable", "KnownFloatingPointNormalized", "KnownNotContainsNull"}
)
LITERAL = "Literal"
# Nodes event-log extraction makes of expression strings it does not split further (the walker
# treats them as any expression: their children are what they read): an operator over its
# operands, an expression over every attribute it mentions.
PARSED_OPERATOR = "Operator"
PARSED_EXPRESSION = "Expression"

# -- output commands: what each command that writes or changes a dataset is, and who reads it ----


@dataclass(frozen=True)
class OutputCommand:
    """One command that writes or changes a dataset, and the two handlers that read it.

    `kind` says what the capture does around the handler (one of the kinds below); `live` names
    the handler of live capture (`plumbline.spark.outputs.LIVE_OUTPUTS`: the analyzed plan, py4j),
    `log` the handler of event-log extraction (`plumbline.eventlogs.outputs.LOG_OUTPUTS`: the
    `sparkPlanInfo` of a log), or None with the reason in `no_log` when a log cannot name what it
    writes. `lifecycle` is the change the command makes when the command alone decides it (V2
    writes, format commands; a DDL command read from a log); `mode`: the command carries a
    SaveMode (`mode()`).
    """

    kind: str
    live: str
    log: str | None = None
    no_log: str = ""
    lifecycle: str | None = None
    mode: bool = False


class Kind:
    """What the capture does around an output command's handler."""

    WRITE = "write"  # a query written (V1 commands): origin SQL, metrics
    V2_WRITE = (
        "v2_write"  # a query written to a DataSource V2 table: its lifecycle is the command's
    )
    STREAM_WRITE = "stream_write"  # a micro-batch writing its sink
    DDL = "ddl"  # a table created, dropped, truncated, renamed or altered (see ddl.py)
    FORMAT_DML = "format_dml"  # a table format's row-level MERGE / UPDATE / DELETE
    FORMAT_WRITE = "format_write"  # a table format's own V2 write command
    MAINTENANCE = "maintenance"  # a format's maintenance: a run on the table, no data lineage
    ROW_LEVEL_WRITE = "row_level_write"  # Spark's row-level rewrite of a table (Iceberg's DML)
    PROCEDURE = "procedure"  # a stored procedure (`CALL`): Iceberg's maintenance


_NOT_RUN = "event-log extraction of this DDL command is not built (docs/reference.md)"
_SINK = "a micro-batch's sink is read by the streaming capture, not from a log"
_JVM = "the log's plan string does not name the table (live capture reads it through py4j)"

V1_STREAM_WRITE = "WriteToMicroBatchDataSourceV1"  # a micro-batch writing a V1 sink

OUTPUT_COMMANDS: dict[str, OutputCommand] = {
    # V1 writes
    "InsertIntoHadoopFsRelationCommand": OutputCommand(
        Kind.WRITE, "insert_files", "insert_files", mode=True
    ),
    "CreateDataSourceTableAsSelectCommand": OutputCommand(
        Kind.WRITE, "create_table_as_select", "create_table_as_select", mode=True
    ),
    "SaveIntoDataSourceCommand": OutputCommand(
        Kind.WRITE, "save_into_data_source", "save_into_data_source", mode=True
    ),
    "InsertIntoDataSourceCommand": OutputCommand(
        Kind.WRITE, "insert_into_data_source", no_log=_JVM
    ),
    "InsertIntoDataSourceDirCommand": OutputCommand(Kind.WRITE, "insert_directory", no_log=_JVM),
    # DataSource V2 writes: into an existing table (its relation is the `table` field) or creating
    # one (its ResolvedIdentifier is the `name` field)
    "AppendData": OutputCommand(Kind.V2_WRITE, "v2_write", "v2_write"),
    "OverwriteByExpression": OutputCommand(
        Kind.V2_WRITE, "v2_write", "v2_write", lifecycle="OVERWRITE"
    ),
    "OverwritePartitionsDynamic": OutputCommand(
        Kind.V2_WRITE, "v2_write", "v2_write", lifecycle="OVERWRITE"
    ),
    "CreateTableAsSelect": OutputCommand(
        Kind.V2_WRITE, "v2_create_as_select", "v2_create_as_select", lifecycle="CREATE"
    ),
    "ReplaceTableAsSelect": OutputCommand(
        Kind.V2_WRITE, "v2_create_as_select", "v2_create_as_select", lifecycle="OVERWRITE"
    ),
    # a micro-batch of a streaming query writing its sink (file sinks and foreachBatch: V1; Kafka
    # and other V2 sinks); its child is the batch's query
    V1_STREAM_WRITE: OutputCommand(Kind.STREAM_WRITE, "stream_sink", no_log=_SINK),
    "WriteToMicroBatchDataSource": OutputCommand(Kind.STREAM_WRITE, "stream_sink", no_log=_SINK),
    # DDL (ddl.py); V2 commands have no `...Command` suffix
    "CreateDataSourceTableCommand": OutputCommand(Kind.DDL, "ddl_create", no_log=_NOT_RUN),
    "CreateTableCommand": OutputCommand(Kind.DDL, "ddl_create", no_log=_NOT_RUN),
    "CreateTable": OutputCommand(Kind.DDL, "ddl_v2_create", no_log=_NOT_RUN),
    "DropTableCommand": OutputCommand(Kind.DDL, "ddl_drop", no_log=_NOT_RUN),
    "DropTable": OutputCommand(Kind.DDL, "ddl_v2_drop", no_log=_NOT_RUN),
    "TruncateTableCommand": OutputCommand(Kind.DDL, "ddl_truncate", no_log=_NOT_RUN),
    "TruncateTable": OutputCommand(
        Kind.DDL, "ddl_v2_truncate", "v2_truncate", lifecycle="TRUNCATE"
    ),
    "AlterTableRenameCommand": OutputCommand(Kind.DDL, "ddl_rename", no_log=_NOT_RUN),
    "RenameTable": OutputCommand(Kind.DDL, "ddl_v2_rename", no_log=_NOT_RUN),
    "AlterTableAddColumnsCommand": OutputCommand(Kind.DDL, "ddl_add_columns", no_log=_NOT_RUN),
    "AddColumns": OutputCommand(Kind.DDL, "ddl_v2_add_columns", no_log=_NOT_RUN),
    # Delta Lake's row-level DML (org.apache.spark.sql.delta.commands): the table is the `target`
    # plan field (read and written), a MERGE's other input the `source` plan field
    "MergeIntoCommand": OutputCommand(Kind.FORMAT_DML, "merge", no_log=_JVM),
    "UpdateCommand": OutputCommand(Kind.FORMAT_DML, "update", no_log=_JVM),
    "DeleteCommand": OutputCommand(Kind.FORMAT_DML, "delete", no_log=_JVM),
    # Apache Paimon's (org.apache.paimon.spark.commands): the table is the `relation` (UPDATE,
    # DELETE) or `targetTable` (MERGE) plan field, a MERGE's other input `sourceTable`
    "MergeIntoPaimonTable": OutputCommand(Kind.FORMAT_DML, "merge", no_log=_JVM),
    "UpdatePaimonTableCommand": OutputCommand(Kind.FORMAT_DML, "update", no_log=_JVM),
    "DeleteFromPaimonTableCommand": OutputCommand(Kind.FORMAT_DML, "delete", no_log=_JVM),
    # a format's own V2 write commands (a `table` relation written with the query that is their
    # child): Delta runs `INSERT OVERWRITE` / `overwritePartitions()` in dynamic partition mode so
    "DeltaDynamicPartitionOverwriteCommand": OutputCommand(
        Kind.FORMAT_WRITE, "format_v2_write", no_log=_JVM, lifecycle="OVERWRITE"
    ),
    # … and Paimon runs `overwritePartitions()` / dynamic `INSERT OVERWRITE` so
    "PaimonDynamicPartitionOverwriteCommand": OutputCommand(
        Kind.FORMAT_WRITE, "format_v2_write", no_log=_JVM, lifecycle="OVERWRITE"
    ),
    # maintenance: a named run on the table with no data lineage (RESTORE replaces the table's
    # content with an older version's)
    "OptimizeTableCommand": OutputCommand(Kind.MAINTENANCE, "delta_maintenance", no_log=_JVM),
    "VacuumTableCommand": OutputCommand(Kind.MAINTENANCE, "delta_maintenance", no_log=_JVM),
    "RestoreTableCommand": OutputCommand(
        Kind.MAINTENANCE, "delta_restore", no_log=_JVM, lifecycle="OVERWRITE"
    ),
    # Spark's own row-level writes (3.4+), which Apache Iceberg's MERGE / UPDATE / DELETE run as
    # (see ROW_LEVEL_TABLE below); the run is named after the statement (ROW_LEVEL_OPERATIONS)
    "ReplaceData": OutputCommand(Kind.ROW_LEVEL_WRITE, "row_level_write", no_log=_JVM),
    "WriteDelta": OutputCommand(Kind.ROW_LEVEL_WRITE, "row_level_write", no_log=_JVM),
    # stored procedures: the plan is a `Call` whose `procedure` is the procedure object (Iceberg's
    # on Spark 3.5, Spark's own `ResolvedProcedure` on 4.x); ICEBERG_PROCEDURES below
    "Call": OutputCommand(Kind.PROCEDURE, "procedure_call", no_log=_JVM),
    "PaimonCallCommand": OutputCommand(Kind.PROCEDURE, "paimon_procedure", no_log=_JVM),
}


def commands_of(*kinds: str) -> frozenset[str]:
    """The output commands of the given kinds."""
    return frozenset(name for name, c in OUTPUT_COMMANDS.items() if c.kind in kinds)


# the groups other modules match on, derived from the table
V2_WRITES: dict[str, str | None] = {
    name: c.lifecycle for name, c in OUTPUT_COMMANDS.items() if c.kind == Kind.V2_WRITE
}
STREAM_WRITES = commands_of(Kind.STREAM_WRITE)
# V1 commands and V2 writes whose query writes a dataset.
WRITE_COMMANDS = commands_of(Kind.WRITE, Kind.V2_WRITE, Kind.STREAM_WRITE)
# Write commands that carry a SaveMode (`mode()`).
WRITES_WITH_MODE = frozenset(name for name, c in OUTPUT_COMMANDS.items() if c.mode)
FORMAT_DML = commands_of(Kind.FORMAT_DML)
FORMAT_V2_WRITES: dict[str, str | None] = {
    name: c.lifecycle for name, c in OUTPUT_COMMANDS.items() if c.kind == Kind.FORMAT_WRITE
}
FORMAT_MAINTENANCE: dict[str, str | None] = {
    name: c.lifecycle for name, c in OUTPUT_COMMANDS.items() if c.kind == Kind.MAINTENANCE
}
DDL_COMMANDS = commands_of(Kind.DDL)
# V2 DDL commands an event log's plan names (by the command's name, as its operator's node name)
LOGGED_DDL = frozenset(name for name, c in OUTPUT_COMMANDS.items() if c.kind == Kind.DDL and c.log)
# Spark 4.1+: `saveAsTable` to the session catalog runs as this command, which runs the write
# (`CreateDataSourceTableAsSelectCommand`, `InsertIntoHadoopFsRelationCommand`...) as nested
# executions: the action is the outermost nested write.
SAVE_AS_TABLE_WRAPPERS = frozenset({"SaveAsV1TableCommand"})

# -- table formats' own commands (Delta Lake) ----------------------------------------------------

# plan-valued fields of a FORMAT_DML command whose leaves are inputs (Delta's `target` / `source`,
# Paimon's `relation` (UPDATE / DELETE) and `targetTable` / `sourceTable` (MERGE))
DML_PLAN_FIELDS = ("target", "source", "relation", "targetTable", "sourceTable")
# the field holding the table a FORMAT_DML command writes, where it is not `target`; a MERGE's
# source and condition where they are not `source` / `condition`
DML_TARGET_FIELDS = {
    "MergeIntoPaimonTable": "targetTable",
    "UpdatePaimonTableCommand": "relation",
    "DeleteFromPaimonTableCommand": "relation",
}
MERGE_SOURCE_FIELDS = ("source", "sourceTable")
MERGE_CONDITION_FIELDS = ("condition", "mergeCondition")
# Delta's clause lists, then Spark's own (`MergeAction`s: what Paimon's MERGE holds)
MERGE_CLAUSE_FIELDS = (
    "matchedClauses",
    "notMatchedClauses",
    "notMatchedBySourceClauses",
    "matchedActions",
    "notMatchedActions",
    "notMatchedBySourceActions",
)
MERGE_ACTION = "DeltaMergeAction"  # `targetColNameParts` := its one child
DELTA_ADD_FILE = "AddFile"  # a Delta commit's action adding a data file (its `stats`: null counts)
ASSIGNMENT = "Assignment"  # Spark's: its children are the target column and the value
MERGE_DELETE_CLAUSES = frozenset(
    {
        "DeltaMergeIntoMatchedDeleteClause",
        "DeltaMergeIntoNotMatchedBySourceDeleteClause",
        "DeleteAction",
    }
)
# Spark's own row-level writes (3.4+), which Apache Iceberg's MERGE / UPDATE / DELETE run as:
# `originalTable` is the table's relation (read and written), the child the rows written (the table's
# columns first, by name, then metadata columns such as `_file`); `table` wraps the table in a
# `RowLevelOperationTable` (`table()` is the format's table). No lifecycle change.
ROW_LEVEL_WRITES: dict[str, str | None] = {
    name: c.lifecycle for name, c in OUTPUT_COMMANDS.items() if c.kind == Kind.ROW_LEVEL_WRITE
}
ROW_LEVEL_TABLE = "RowLevelOperationTable"
# the statement a row-level write runs (`table.table().operation().command()`): its run's name
ROW_LEVEL_OPERATIONS = {
    "MERGE": "MergeIntoTable",
    "UPDATE": "UpdateTable",
    "DELETE": "DeleteFromTable",
}
# A MERGE's rows (the child of a row-level write): `output` column i of every `Keep` instruction of
# `matchedInstructions` / `notMatchedInstructions` / `notMatchedBySourceInstructions` is its child
# i + 1 (child 0 is the instruction's condition); `Split` (merge-on-read UPDATE) has two such lists
# one after the other; `Discard` (a DELETE clause) only a condition.
MERGE_ROWS = frozenset({"MergeRows"})
MERGE_ROWS_INSTRUCTIONS = (
    "matchedInstructions",
    "notMatchedInstructions",
    "notMatchedBySourceInstructions",
)
MERGE_ROWS_KEEP = frozenset({"MergeRows$Keep", "Keep"})
MERGE_ROWS_SPLIT = frozenset({"MergeRows$Split", "Split"})
MERGE_ROWS_DISCARD = frozenset({"MergeRows$Discard", "Discard"})
# Apache Iceberg: the DataSource V2 table class of its Spark catalogs (`table()` is the Iceberg
# table, `snapshotId()` / `branch()` what a time-travel or branch read names), and the catalogs.
ICEBERG_V2_TABLE = "SparkTable"
ICEBERG_CATALOGS = (
    "org.apache.iceberg.spark.SparkCatalog",
    "org.apache.iceberg.spark.SparkSessionCatalog",
)
# the metadata columns an Iceberg relation adds to its output for row-level commands (not the
# table's columns: left out of its schema)
ICEBERG_METADATA_COLUMNS = frozenset(
    {
        "_file",
        "_pos",
        "_spec_id",
        "_partition",
        "_deleted",
        "_row_id",
        "_last_updated_sequence_number",
    }
)
# Stored procedures (`CALL catalog.system.name(...)`): the plan is a `Call` whose `procedure` is
# the procedure object (Iceberg's on Spark 3.5, Spark's own `ResolvedProcedure` on 4.x).
PROCEDURE_CALLS = commands_of(Kind.PROCEDURE)
# Iceberg's maintenance procedures (by class): a named run on the table they name, no data lineage,
# with the lifecycle change each makes; a rollback's input is the table at the snapshot it restores.
ICEBERG_PROCEDURES: dict[str, str | None] = {
    "RewriteDataFilesProcedure": None,
    "RewriteManifestsProcedure": None,
    "RewritePositionDeleteFilesProcedure": None,
    "ExpireSnapshotsProcedure": None,
    "RemoveOrphanFilesProcedure": None,
    "RollbackToSnapshotProcedure": "OVERWRITE",
    "RollbackToTimestampProcedure": "OVERWRITE",
    "SetCurrentSnapshotProcedure": "OVERWRITE",
}
ICEBERG_BASE_PROCEDURE = "BaseProcedure"  # the class holding a procedure's `tableCatalog`
ICEBERG_ROLLBACKS = frozenset(
    {"RollbackToSnapshotProcedure", "RollbackToTimestampProcedure", "SetCurrentSnapshotProcedure"}
)
# Apache Paimon: the DataSource V2 table class of its Spark catalogs (`table()` is the Paimon table;
# Iceberg's has the same simple name) and the catalogs (paimon.py).
PAIMON_V2_TABLE = "org.apache.paimon.spark.SparkTable"
PAIMON_CATALOGS = (
    "org.apache.paimon.spark.SparkCatalog",
    "org.apache.paimon.spark.SparkGenericCatalog",
)
# Paimon's maintenance procedures (`CALL catalog.sys.name(...)`, a `PaimonCallCommand`; by class):
# a named run on the table they name, no data lineage, with the lifecycle change each makes; a
# rollback's input is the table at the snapshot it restores.
PAIMON_PROCEDURES: dict[str, str | None] = {
    "CompactProcedure": None,
    "ExpireSnapshotsProcedure": None,
    "ExpirePartitionsProcedure": None,
    "RemoveOrphanFilesProcedure": None,
    "RollbackProcedure": "OVERWRITE",
}
PAIMON_ROLLBACKS = frozenset({"RollbackProcedure"})
# Java packages of table formats: a command from one of them that plumbline does not know is
# logged once and captured like a plain V2 write where it can be.
FORMAT_PACKAGES = {
    "org.apache.spark.sql.delta.": "delta",
    "io.delta.": "delta",
    "com.databricks.sql.transaction.tahoe.": "delta",
    "org.apache.iceberg.": "iceberg",
    "org.apache.spark.sql.execution.datasources.v2.Iceberg": "iceberg",
    "org.apache.paimon.": "paimon",
}
# Delta Lake's file indexes of a LogicalRelation (`relation.location()`): they know the snapshot
# version the read scans (see formats.py)
DELTA_FILE_INDEX_PREFIXES = ("Tahoe", "PreparedDeltaFileIndex", "DeltaFileIndex")
DELTA_V2_TABLE = "DeltaTableV2"
DELTA_DATA_SOURCE = "DeltaDataSource"

# -- DDL ----------------------------------------------------------------------------------------

# Spark 4.0+: the fields of a V2 `CreateTable` that hold its columns (`ColumnDefinition` trees with
# `name` and `dataType`); 3.5's holds a StructType in `tableSchema`.
CREATE_TABLE_COLUMNS = "columns"
CREATE_TABLE_SCHEMA = "tableSchema"
# Commands after which the capture knows a table's whole schema (DDL and CREATE ... AS SELECT).
DEFINING_COMMANDS = DDL_COMMANDS | {"CreateDataSourceTableAsSelectCommand"}

# -- the catalog's events (ExternalCatalogWithListener posts them as it changes tables) ----------

CREATE_TABLE_EVENT = "CreateTableEvent"
DROP_TABLE_EVENT = "DropTableEvent"
RENAME_TABLE_EVENT = "RenameTableEvent"
CATALOG_EVENTS = frozenset({CREATE_TABLE_EVENT, DROP_TABLE_EVENT, RENAME_TABLE_EVENT})

# -- RDDs ------------------------------------------------------------------------------------------

# RDD classes that read Hadoop input formats (their configuration names the input paths); the
# old API's keeps it in a JobConf (`getJobConf()`)
OLD_HADOOP_RDD = "HadoopRDD"
HADOOP_INPUT_RDDS = frozenset({OLD_HADOOP_RDD, "NewHadoopRDD", "WholeTextFileRDD", "BinaryFileRDD"})
FILE_SCAN_RDD = "FileScanRDD"
# a HadoopFsRelation's `toString()` when its format has no short name (a format's own FileFormat)
UNNAMED_FILE_FORMAT = "HadoopFiles"
JDBC_TABLE_CATALOG = "JDBCTableCatalog"  # Spark's V2 catalog of a JDBC database's tables

# -- streaming --------------------------------------------------------------------------------------

STREAM_EXECUTION = "IncrementalExecution"  # the QueryExecution of one micro-batch
KAFKA_TABLE = "KafkaTable"  # the Kafka connector's table (`KafkaSourceProvider.KafkaTable`)
KAFKA_PREFIX = "Kafka"  # how the Kafka source's name starts (`KafkaV2`, `KafkaSource`...)
SCAN_RELATION_SUFFIX = "ScanRelation"  # a streaming V2 scan relation, whose relation has options

# -- executed (physical) plans ------------------------------------------------------------------

# `nodeName()` prefixes of executed write nodes: V1 commands ("Execute InsertInto...") and V2
# writes (AppendDataExec[V1]...).
V1_WRITE_EXEC_PREFIX = "Execute "  # V1 write commands run as `Execute <command>`
WRITE_EXEC_PREFIXES = (
    V1_WRITE_EXEC_PREFIX,
    "AppendData",
    "OverwriteByExpression",
    "OverwritePartitionsDynamic",
)
# `nodeName()` prefixes and names of executed scans, and the suffix of adaptive query stages.
SCAN_EXEC_PREFIXES = ("Scan ", "BatchScan ")
V2_BATCH_SCAN = "BatchScan"  # `BatchScan catalog.db.tbl[...]`: a V2 table's scan, by name
# a micro-batch's scan of a DataSource V2 stream (Kafka): its numOutputRows are the rows it read
SCAN_EXECS = frozenset({CACHED_SCAN, "MicroBatchScan"})
QUERY_STAGE_SUFFIX = "QueryStage"
ADAPTIVE_PLAN = "AdaptiveSparkPlan"
# Spark 4.0+: the final stage of an adaptive plan, wrapping its root (a write's command node).
RESULT_QUERY_STAGE = "ResultQueryStage"

# -- executed plans in event logs (`sparkPlanInfo`: `nodeName`, `simpleString`) ------------------

# V2 writes' operators: the command's name, `Atomic` before it (a staging catalog's CTAS), and
# `Exec` / `ExecV1` after it
V2_EXEC_PREFIX = "Atomic"
V2_EXEC_SUFFIXES = ("ExecV1", "Exec")
V2_WRITE_EXECS = (
    *V2_WRITES,
    *(V2_EXEC_PREFIX + name for name in ("CreateTableAsSelect", "ReplaceTableAsSelect")),
)
SORT_AGGREGATE = "SortAggregate"  # sorts its rows by its keys (`ASCENDING`) first
AGGREGATE_EXECS = frozenset({"HashAggregate", SORT_AGGREGATE, "ObjectHashAggregate"})
SORT_MERGE_JOIN = "SortMergeJoin"  # sorts both sides by their keys (`ASCENDING`) first
ASCENDING = "ASC NULLS FIRST"  # the order the planner sorts by for a window or a merge join
JOIN_EXECS = frozenset(
    {
        SORT_MERGE_JOIN,
        "BroadcastHashJoin",
        "ShuffledHashJoin",
        "BroadcastNestedLoopJoin",
        "CartesianProduct",
    }
)
# joins on key equality (`[left keys], [right keys], JoinType, ...`)
EQUI_JOIN_EXECS = frozenset({SORT_MERGE_JOIN, "BroadcastHashJoin", "ShuffledHashJoin"})
SORT_EXECS = frozenset({SORT, "TakeOrderedAndProject"})
# a subquery an operator's expression runs: a child of that operator in a logged plan
SUBQUERY_EXECS = frozenset({"Subquery", "ReusedSubquery"})
# Operators named like their logical node (Project, Filter, Window, Union, Expand, Generate) need
# no name of their own. Scans of in-memory rows, by name and by prefix:
LOCAL_SCAN_EXECS = frozenset({"LocalTableScan", "Scan OneRowRelation"})
LOCAL_SCAN_PREFIXES = ("Scan ExistingRDD",)
FILE_SCAN_STRING = "FileScan "  # how a file scan's `simpleString` starts
# operators between a Dataset's typed query and its rows, passed through to find the query
OBJECT_WRAPPERS = frozenset({"DeserializeToObject", "SerializeFromObject", "MapPartitions"})
# SaveMode names, as a V1 write's plan string gives them
ERROR_IF_EXISTS = "ErrorIfExists"
SAVE_MODES = frozenset({"Overwrite", "Append", ERROR_IF_EXISTS, "Ignore"})

# -- every Catalyst class, decided (issue 31 §4; catalyst_decisions.py lists the rest) -------------

# plan nodes with a handler: lineage.PLAN_HANDLERS, the output commands and their wrappers
HANDLED_PLANS = frozenset().union(
    LEAF_RELATIONS, VIEWS, PROJECTS, {PROJECT_CHAIN}, AGGREGATES, FILTERS, JOINS, SORTS, WINDOWS,
    GENERATES, UNIONS, EXPANDS, LEFT_SET_OPERATIONS, CTE_DEFINITIONS, CTE_REFERENCES, WITH_CTES,
    LATERAL_JOINS, PYTHON_EVALS, PYTHON_PLANS, DISTINCTS, DEDUPLICATES, MERGE_ROWS, CACHED_SCANS,
    OUTPUT_COMMANDS, SAVE_AS_TABLE_WRAPPERS,
)  # fmt: skip
# expressions with a handler: lineage.EXPRESSION_HANDLERS
HANDLED_EXPRESSIONS = frozenset().union(
    ATTRIBUTES, {OUTER_REFERENCE}, SUBQUERY_EXPRESSIONS, ALIASES, CASTS, IDENTITY_WRAPPERS,
    PYTHON_UDFS, AGGREGATE_EXPRESSIONS, WINDOW_EXPRESSIONS, CASE_WHENS, IFS,
)  # fmt: skip
_HANDLED = {
    "logical": Decided(
        HANDLER, "a handler of its own (lineage.PLAN_HANDLERS, OUTPUT_COMMANDS)", HANDLED_PLANS
    ),
    "expression": Decided(
        HANDLER,
        "a handler of its own (lineage.EXPRESSION_HANDLERS), per the column lineage facet",
        HANDLED_EXPRESSIONS,
    ),
}
DECISIONS: dict[str, tuple[Decided, ...]] = {
    "logical": (_HANDLED["logical"], *LOGICAL),
    "physical": PHYSICAL,
    "expression": (_HANDLED["expression"], *EXPRESSION),
}


def decision(kind: str, name: str) -> Decided | None:
    """How the capture treats the Catalyst class `name` (a simple name, `plan.Node.name`) of
    `kind` (logical, physical, expression); None when it is decided nowhere."""
    for decided in DECISIONS[kind]:
        if name in decided.names:
            return decided
    return None
