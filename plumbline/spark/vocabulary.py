"""The Catalyst class names the capture knows, in one place.

Plans change between Spark versions (4.0 adds `ResultQueryStage` and `ColumnDefinition`, 4.1
`SaveAsV1TableCommand`...). Every class name the capture matches on is declared here, by simple
name (`plan.Node.name`), grouped by what the capture does with it; a new Spark version's names
are added to the group that treats them. Nothing here imports Spark.
"""

from __future__ import annotations

# -- logical plan leaves ------------------------------------------------------------------------

RDD_RELATION = "LogicalRDD"  # a DataFrame made from an RDD (`rdd()` is that RDD)
V2_RELATION = "DataSourceV2Relation"  # a table of a DataSource V2 catalog
# a micro-batch's DataSource V2 streaming source (Kafka...): `relation().options()` name it
STREAM_RELATIONS = frozenset({"StreamingDataSourceV2ScanRelation", "StreamingDataSourceV2Relation"})

# Leaves whose `output` attributes start lineage: each is a fresh column (of a dataset when the
# leaf reads one, of nothing for in-memory data).
LEAF_RELATIONS = frozenset(
    {
        "LogicalRelation",
        "LogicalRDD",
        "LocalRelation",
        "HiveTableRelation",
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
    {"LogicalRelation", "HiveTableRelation", V2_RELATION, RDD_RELATION, *STREAM_RELATIONS}
)
# A V1 relation that is a JDBC table (the relation's `toString()` starts with it).
JDBC_RELATION = "JDBCRelation"
KAFKA_RELATION = "KafkaRelation"  # spark.read.format("kafka") (the Kafka connector's V1 relation)
KAFKA_PROVIDER = "KafkaSourceProvider"  # df.write.format("kafka")

# -- other logical plan nodes, by how column lineage treats them --------------------------------

# A persistent view, or the temporary view of `CACHE TABLE … AS SELECT`: its child is the view's
# own projection (each column cast to the view's schema) over the view's query.
VIEWS = frozenset({"View"})
PROJECTS = frozenset({"Project"})  # `projectList`: the output, each column computed from its input
# projections below a projection, collapsed by the compact reader into one node that carries its
# output's lineage (`levels` projections; `output`, `bases`, `lineage`: java/PlumblinePlanJson.java)
PROJECT_CHAIN = "ProjectChain"
AGGREGATES = frozenset({"Aggregate"})  # `aggregateExpressions`, grouped by `groupingExpressions`
FILTERS = frozenset({"Filter"})  # `condition` filters the rows
JOINS = frozenset({"Join"})  # `condition` joins two inputs of type `joinType`
# join types whose output is the left side only
LEFT_ONLY_JOIN_TYPES = ("LeftSemi", "LeftAnti")
SORTS = frozenset({"Sort"})  # `order`
WINDOWS = frozenset({"Window"})  # the child's output plus `windowExpressions`
GENERATES = frozenset({"Generate"})  # the child's output plus `generatorOutput` from `generator`
UNIONS = frozenset({"Union"})  # column i of the output is column i of every child
EXPANDS = frozenset({"Expand"})  # `output` column i is column i of every one of `projections`
# set operations whose output attributes are their left child's
LEFT_SET_OPERATIONS = frozenset({"Intersect", "Except"})
CTE_DEFINITIONS = frozenset({"CTERelationDef"})  # a common table expression (`id`)
CTE_REFERENCES = frozenset({"CTERelationRef"})  # a use of one (`cteId`, its own `output`)
WITH_CTES = frozenset({"WithCTE"})  # definitions first, the query that uses them last
# a join with a LATERAL subquery (`right`, a LateralSubquery) that reads the left side's columns
LATERAL_JOINS = frozenset({"LateralJoin"})
# Python UDFs evaluated apart (optimized plans): `udfs` compute `resultAttrs`, one each
PYTHON_EVALS = frozenset({"BatchEvalPython", "ArrowEvalPython"})

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
AGGREGATE_EXPRESSIONS = frozenset({"AggregateExpression"})
ALIASES = frozenset({"Alias"})  # names its child: the same lineage
WINDOW_EXPRESSIONS = frozenset({"WindowExpression"})  # a function, then its window spec
CASE_WHENS = frozenset({"CaseWhen"})  # (condition, value) pairs, then an optional else value
IFS = frozenset({"If"})  # predicate, then the two values
CASTS = frozenset({"Cast", "UpCast"})  # a type conversion of their one child

# -- write commands -----------------------------------------------------------------------------

# DataSource V2 writes: into an existing table (its relation is the `table` field) or creating one
# (its ResolvedIdentifier is the `name` field), with the lifecycle change each makes.
V2_WRITES: dict[str, str | None] = {
    "AppendData": None,
    "OverwriteByExpression": "OVERWRITE",
    "OverwritePartitionsDynamic": "OVERWRITE",
    "CreateTableAsSelect": "CREATE",
    "ReplaceTableAsSelect": "OVERWRITE",
}
# A micro-batch of a streaming query writing its sink (file sinks and foreachBatch: V1; Kafka and
# other V2 sinks); its child is the batch's query.
STREAM_WRITES = frozenset({"WriteToMicroBatchDataSourceV1", "WriteToMicroBatchDataSource"})
# V1 commands and V2 writes whose query writes a dataset.
WRITE_COMMANDS = frozenset(
    {
        "InsertIntoHadoopFsRelationCommand",
        "CreateDataSourceTableAsSelectCommand",
        "SaveIntoDataSourceCommand",
        "InsertIntoDataSourceCommand",
        "InsertIntoDataSourceDirCommand",
        *V2_WRITES,
        *STREAM_WRITES,
    }
)
# Spark 4.1+: `saveAsTable` to the session catalog runs as this command, which runs the write
# (`CreateDataSourceTableAsSelectCommand`, `InsertIntoHadoopFsRelationCommand`...) as nested
# executions: the action is the outermost nested write.
SAVE_AS_TABLE_WRAPPERS = frozenset({"SaveAsV1TableCommand"})
# Write commands that carry a SaveMode (`mode()`).
WRITES_WITH_MODE = frozenset(
    {
        "InsertIntoHadoopFsRelationCommand",
        "CreateDataSourceTableAsSelectCommand",
        "SaveIntoDataSourceCommand",
    }
)

# -- table formats' own commands (Delta Lake) ----------------------------------------------------

# Row-level DML on a table of a format: the table is the `target` plan field (read and written), a
# MERGE's other input the `source` plan field. Delta Lake's `MergeIntoCommand`, `UpdateCommand`,
# `DeleteCommand` (org.apache.spark.sql.delta.commands).
FORMAT_DML = frozenset({"MergeIntoCommand", "UpdateCommand", "DeleteCommand"})
# plan-valued fields of a FORMAT_DML command whose leaves are inputs
DML_PLAN_FIELDS = ("target", "source")
MERGE_CLAUSE_FIELDS = ("matchedClauses", "notMatchedClauses", "notMatchedBySourceClauses")
MERGE_ACTION = "DeltaMergeAction"  # `targetColNameParts` := its one child
MERGE_DELETE_CLAUSES = frozenset(
    {"DeltaMergeIntoMatchedDeleteClause", "DeltaMergeIntoNotMatchedBySourceDeleteClause"}
)
# A format's own V2 write commands (a `table` relation written with the query that is their child),
# with the lifecycle change each makes: Delta runs `INSERT OVERWRITE` / `overwritePartitions()` in
# dynamic partition mode as this command.
FORMAT_V2_WRITES: dict[str, str | None] = {"DeltaDynamicPartitionOverwriteCommand": "OVERWRITE"}
# Maintenance commands: a named run on the table with no data lineage, and the lifecycle change
# each makes (RESTORE replaces the table's content with an older version's).
FORMAT_MAINTENANCE: dict[str, str | None] = {
    "OptimizeTableCommand": None,
    "VacuumTableCommand": None,
    "RestoreTableCommand": "OVERWRITE",
}
# Spark's own row-level writes (3.4+), which Apache Iceberg's MERGE / UPDATE / DELETE run as:
# `originalTable` is the table's relation (read and written), the child the rows written (the table's
# columns first, by name, then metadata columns such as `_file`); `table` wraps the table in a
# `RowLevelOperationTable` (`table()` is the format's table). No lifecycle change.
ROW_LEVEL_WRITES: dict[str, str | None] = {"ReplaceData": None, "WriteDelta": None}
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
PROCEDURE_CALLS = frozenset({"Call"})
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
ICEBERG_ROLLBACKS = frozenset(
    {"RollbackToSnapshotProcedure", "RollbackToTimestampProcedure", "SetCurrentSnapshotProcedure"}
)
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

DDL_COMMANDS = frozenset(
    {
        "CreateDataSourceTableCommand",
        "CreateTableCommand",
        "CreateTable",
        "DropTableCommand",
        "DropTable",
        "TruncateTableCommand",
        "TruncateTable",
        "AlterTableRenameCommand",
        "RenameTable",
        "AlterTableAddColumnsCommand",
        "AddColumns",
    }
)
# Spark 4.0+: the fields of a V2 `CreateTable` that hold its columns (`ColumnDefinition` trees with
# `name` and `dataType`); 3.5's holds a StructType in `tableSchema`.
CREATE_TABLE_COLUMNS = "columns"
CREATE_TABLE_SCHEMA = "tableSchema"
# Commands after which the capture knows a table's whole schema (DDL and CREATE ... AS SELECT).
DEFINING_COMMANDS = DDL_COMMANDS | {"CreateDataSourceTableAsSelectCommand"}

# -- executed (physical) plans ------------------------------------------------------------------

# `nodeName()` prefixes of executed write nodes: V1 commands ("Execute InsertInto...") and V2
# writes (AppendDataExec[V1]...).
WRITE_EXEC_PREFIXES = (
    "Execute ",
    "AppendData",
    "OverwriteByExpression",
    "OverwritePartitionsDynamic",
)
# `nodeName()` prefixes and names of executed scans, and the suffix of adaptive query stages.
SCAN_EXEC_PREFIXES = ("Scan ", "BatchScan ")
# a micro-batch's scan of a DataSource V2 stream (Kafka): its numOutputRows are the rows it read
SCAN_EXECS = frozenset({"InMemoryTableScan", "MicroBatchScan"})
QUERY_STAGE_SUFFIX = "QueryStage"
ADAPTIVE_PLAN = "AdaptiveSparkPlan"
# Spark 4.0+: the final stage of an adaptive plan, wrapping its root (a write's command node).
RESULT_QUERY_STAGE = "ResultQueryStage"
