"""Every Catalyst class of the Spark lines and table formats plumbline supports, decided.

Issue 31 §4: each concrete logical plan (`LOGICAL`), physical plan (`PHYSICAL`) and expression
(`EXPRESSION`) class in the jars of Spark 3.5 and 4.x, and of the Delta, Iceberg and Paimon runtime
jars, is either handled (the vocabulary's groups: `vocabulary.HANDLED_PLANS`,
`vocabulary.HANDLED_EXPRESSIONS`, event-log operators below), passed through (the lineage walker's
default: a plan node passes its children's columns on, an expression is a DIRECT TRANSFORMATION of
what its children read), or opaque, each with the reason it is. Names are simple class names as
`plan.Node.name` gives them (`MergeRows$Keep`). `tests/spark/test_catalyst_classes.py` lists the
classes from a JVM of each Spark line and fails on any class decided nowhere: a new Spark release
shows its new nodes at once. `vocabulary.decision` answers for one class. Nothing here imports Spark.
"""

from __future__ import annotations

from dataclasses import dataclass

HANDLER, PASS_THROUGH, OPAQUE = "handler", "pass-through", "opaque"


@dataclass(frozen=True)
class Decided:
    """A family of classes the capture treats alike (`treatment`), and why (`reason`)."""

    treatment: str
    reason: str
    names: frozenset[str]


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


LOGICAL: tuple[Decided, ...] = (
    Decided(
        PASS_THROUGH,
        (
            "keeps its child's columns and values: rows limited, sampled, repartitioned, hinted, "
            "renamed (a subquery's alias), observed or given a watermark; lineage passes through"
        ),
        _names(
            """
            CollectMetrics EventTimeWatermark GlobalLimit LimitAll LocalLimit Offset
            OrderAwareCoalesce RebalancePartitions Repartition RepartitionByExpression
            ResolvedHint ReturnAnswer Sample Subquery SubqueryAlias Tail
            UpdateEventTimeWatermarkColumn WriteFiles
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "analysis only: the analyzer resolves or rewrites it (unresolved names, parameters, "
            "pipes, pivots, hints, parsed statements, table references), so it is never in the "
            "analyzed plan the capture walks"
        ),
        _names(
            """
            AlterTableClusterBy CDCNameBased CDCPathBased CallStatement ClusterByPlan
            CurrentNamespace DataFrameDropColumns DeltaReorgTable DescribeDeltaHistory
            GeneralParameterizedQuery InsertIntoDir InsertIntoStatement
            MetricViewPlaceholder NameParameterizedQuery NamedStreamingRelation
            NonGroupingAggregateReference PaimonCallStatement PipeOperator Pivot
            PlanWithUnresolvedIdentifier PosParameterizedQuery RelationChanges
            RelationTimeTravel ResolvedInlineTable SQLFunctionNode SQLTableFunction
            TableChanges TemporaryViewRelation Transpose Unpivot UnresolvedBinBy
            UnresolvedCatalogRelation UnresolvedCteRelationRef UnresolvedDataSource
            UnresolvedDeduplicate UnresolvedEventTimeWatermark UnresolvedExecuteImmediate
            UnresolvedFunctionName UnresolvedHaving UnresolvedHint UnresolvedIdentifier
            UnresolvedInlineTable UnresolvedInsert UnresolvedInsertTarget
            UnresolvedNamespace UnresolvedPathBasedDeltaTable
            UnresolvedPathBasedDeltaTableRelation UnresolvedPathBasedTable
            UnresolvedProcedure UnresolvedQualify UnresolvedRelation
            UnresolvedSubqueryColumnAliases UnresolvedTVFAliases UnresolvedTable
            UnresolvedTableOrView UnresolvedTableValuedFunction UnresolvedTranspose
            UnresolvedView UnresolvedWith V2ChangelogReference V2TableReference
            WithWindowDefinition WriteToStreamStatement
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "a command's catalog object (a table, view, namespace, function or procedure it "
            "names), not data read: the command's handler reads it"
        ),
        _names(
            """
            ResolvedIdentifier ResolvedMetricView ResolvedNamespace
            ResolvedNonPersistentFunc ResolvedPathBasedNonDeltaTable ResolvedPersistentFunc
            ResolvedPersistentView ResolvedProcedure ResolvedTable ResolvedTempView
            ResolvedV2View
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "built by the optimizer, the planner or a format's internals, never in an analyzed "
            "plan (adaptive stages, decorrelated joins, scan builders, a command's result rows)"
        ),
        _names(
            """
            AnalysisHelper$FakeLogicalPlan CommandResult DeleteFromTableWithFilters
            DeltaInvariantChecker DomainJoin DummyExpressionHolder EmptyRelation
            ExpressionHelper$FakeLogicalPlan ExpressionLogicalPlanWrapper FakePlanWithStats
            LogicalQueryStage MultiResult OffsetHolder OrderedJoin ScanBuilderHolder
            SparkExpressionConverter$DummyRelation WindowGroupLimit
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "a stream's source as the query defines it: each micro-batch's plan has the concrete "
            "relation (handled: STREAM_RELATIONS, LogicalRelation)"
        ),
        _names(
            """
            StreamingExecutionRelation StreamingRelation StreamingRelationV2
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "a user function of whole rows (typed Dataset operations and filters, R, a script, a "
            "Python UDTF; pandas and Arrow ones have a handler: vocabulary.PYTHON_PLANS): its "
            "output columns are new attributes the plan does not relate to its input columns, "
            "so their lineage stops here (the completeness facet names it: unhandledNode)"
        ),
        _names(
            """
            AppendColumns AppendColumnsWithObject ArrowEvalPythonUDTF
            AttachDistributedSequence BatchEvalPythonUDTF CoGroup DeserializeToObject
            FlatMapGroupsInR FlatMapGroupsInRWithArrow FlatMapGroupsWithState MapElements
            MapGroups MapPartitions MapPartitionsExternalUDF MapPartitionsInR
            MapPartitionsInRWithArrow ScriptTransformation SerializeFromObject
            TransformWithState TransformWithStateInPySpark TypedFilter
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "rewritten by the analyzer into a row-level write (ReplaceData / WriteDelta, handled) "
            "or into a format's own command (Delta's MergeIntoCommand...); it only names the run "
            "(ROW_LEVEL_OPERATIONS)"
        ),
        _names(
            """
            DeleteFromTable MergeIntoTable UpdateTable
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "a format's write that runs inside a command the capture handles "
            "(SaveIntoDataSourceCommand, CreateTableAsSelect, the DataFrameWriterV2 commands), "
            "which names the dataset"
        ),
        _names(
            """
            CreateDeltaTableCommand WriteIntoDelta WriteIntoPaimonTable
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "a table format's command plumbline has no handler for (Paimon's TRUNCATE, Delta's "
            "clone, convert, reorg, generate): logged once as an unknown format command "
            "(FORMAT_PACKAGES) and captured without column lineage"
        ),
        _names(
            """
            CloneTableCommand ConvertToDeltaCommand DeltaGenerateCommand
            DeltaReorgTableCommand PaimonTruncateTableCommand RowTrackingBackfillCommand
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "writes to Hive-format tables (Spark with Hive support): not captured; plumbline's "
            "Spark tests run without Hive support"
        ),
        _names(
            """
            CreateHiveTableAsSelectCommand InsertIntoHiveDirCommand InsertIntoHiveTable
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "the root of a streaming query or of a continuous / memory sink: each micro-batch's "
            "write (STREAM_WRITES) is what the capture reads; continuous processing is not "
            "captured"
        ),
        _names(
            """
            MemoryPlan WriteToContinuousDataSource WriteToDataSourceV2 WriteToStream
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "not handled yet: its own columns or join keys carry no lineage (LOAD DATA, CREATE "
            "TABLE LIKE, REPLACE TABLE without a query, as-of and nearest-by joins, recursive "
            "CTEs, zip, bin-by, streaming unions, pipelines' CDC flows, Paimon incremental reads)"
        ),
        _names(
            """
            AsOfJoin AutoCdcInto BinBy CreateTableLikeCommand IncrementalQuery LoadData
            LoadDataCommand NearestByJoin PythonWorkerLogs ReplaceTable
            SequentialStreamingUnion UnionLoop UnionLoopRef Zip
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "SQL scripting control flow: each statement of the script runs as its own query, "
            "captured on its own"
        ),
        _names(
            """
            ErrorCondition ExceptionHandler ForStatement IfElseStatement IterateStatement
            LeaveStatement LoopStatement RepeatStatement SearchedCaseStatement
            SimpleCaseStatement SingleStatement WhileStatement
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "answers a question about the catalog or the session (SHOW, DESCRIBE, EXPLAIN, LIST): "
            "reads and writes no dataset"
        ),
        _names(
            """
            DescribeColumn DescribeColumnCommand DescribeDatabaseCommand
            DescribeDeltaDetailCommand DescribeDeltaHistoryCommand DescribeFunction
            DescribeFunctionCommand DescribeNamespace DescribeProcedureCommand
            DescribeQueryCommand DescribeRelation DescribeRelationJsonCommand
            DescribeTableCommand DescribeTablePartition ExplainCommand
            ExternalCommandExecutor FetchCursor ListArchivesCommand ListFilesCommand
            ListJarsCommand NoopCommand ShowCatalogsCommand ShowCollationsCommand
            ShowColumns ShowColumnsCommand ShowCreateTable ShowCreateTableAsSerdeCommand
            ShowCreateTableCommand ShowCurrentNamespaceCommand ShowDeltaTableColumnsCommand
            ShowFunctions ShowFunctionsCommand ShowIcebergViews ShowNamespaces
            ShowNamespacesCommand ShowPartitions ShowPartitionsCommand
            ShowPartitionsJsonCommand ShowProceduresCommand ShowTableExtended
            ShowTablePartition ShowTableProperties ShowTablePropertiesCommand ShowTables
            ShowTablesCommand ShowTablesExtended ShowTablesJsonCommand ShowViews
            ShowViewsCommand StreamingExplainCommand
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "changes the session, its caches, variables, cursors or resources (SET, USE, ADD JAR, "
            "CACHE, REFRESH): no dataset is read or written"
        ),
        _names(
            """
            AddArchivesCommand AddFilesCommand AddJarsCommand CacheTable CacheTableAsSelect
            ClearCacheCommand CloseCursor CreateVariable DeclareCursor DropVariable
            OpenCursor RefreshFunction RefreshFunctionCommand RefreshResource RefreshTable
            RefreshTableCommand ResetCommand SetCatalogAndNamespace SetCatalogCommand
            SetCommand SetNamespaceCollationCommand SetNamespaceCommand SetNamespaceLocation
            SetNamespaceProperties SetVariable UncacheTable
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "defines, alters or drops a view: the view's query is followed when a query reads it "
            "(View, handled)"
        ),
        _names(
            """
            AlterViewAs AlterViewAsCommand AlterViewSchemaBinding
            AlterViewSchemaBindingCommand CreateIcebergView CreateMaterializedViewAsSelect
            CreateMetricView CreateMetricViewCommand CreateTempViewUsing CreateView
            CreateViewCommand DropIcebergView DropTempViewCommand DropView SetViewProperties
            UnsetViewProperties
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "changes a table's or namespace's metadata that plumbline does not record as lineage "
            "(properties, partitions, columns beyond ADD COLUMNS, constraints, locations, "
            "statistics, functions, indexes, branches, tags)"
        ),
        _names(
            """
            AddCheckConstraint AddConstraint AddPartitionField AddPartitions AlterColumn
            AlterColumns AlterDatabasePropertiesCommand AlterDatabaseSetLocationCommand
            AlterTableAddColumnsDeltaCommand AlterTableAddConstraintDeltaCommand
            AlterTableAddPartitionCommand AlterTableChangeColumnCommand
            AlterTableChangeColumnCommentsCommand AlterTableChangeColumnDeltaCommand
            AlterTableClusterByDeltaCommand AlterTableCollation
            AlterTableDropColumnsDeltaCommand AlterTableDropConstraintDeltaCommand
            AlterTableDropFeatureDeltaCommand AlterTableDropPartitionCommand
            AlterTableRenamePartitionCommand AlterTableReplaceColumnsDeltaCommand
            AlterTableSerDePropertiesCommand AlterTableSetLocationCommand
            AlterTableSetLocationDeltaCommand AlterTableSetPropertiesCommand
            AlterTableSetPropertiesDeltaCommand AlterTableUnsetPropertiesCommand
            AlterTableUnsetPropertiesDeltaCommand AnalyzeColumn AnalyzeColumnCommand
            AnalyzePartitionCommand AnalyzeTable AnalyzeTableCommand AnalyzeTables
            AnalyzeTablesCommand CommentOnNamespace CommentOnTable CompoundBody
            CreateDatabaseCommand CreateFlowCommand CreateFunction CreateFunctionCommand
            CreateIndex CreateNamespace CreateOrReplaceBranch CreateOrReplaceTag
            CreateSQLFunctionCommand CreateStreamingTable CreateStreamingTableAsSelect
            CreateStreamingTableAutoCdc CreateTableLike CreateUserDefinedFunction DropBranch
            DropColumns DropConstraint DropDatabaseCommand DropFunction DropFunctionCommand
            DropIdentifierFields DropIndex DropNamespace DropPartitionField DropPartitions
            DropTag InsertOnlyMerge PaimonAnalyzeTableColumnCommand PaimonShowColumnsCommand
            RecoverPartitions RenameColumn RenamePartitions RepairTable RepairTableCommand
            ReplaceColumns ReplacePartitionField SetIdentifierFields SetPathCommand
            SetTableLocation SetTableProperties SetTableSerDeProperties
            SetWriteDistributionAndOrdering TruncatePartition
            UnsetNamespacePropertiesCommand UnsetTableProperties
            """
        ),
    ),
)

PHYSICAL: tuple[Decided, ...] = (
    Decided(
        HANDLER,
        (
            "event-log extraction turns it into the logical node of the same meaning "
            "(plumbline.eventlogs.planinfo: Project, Filter, Aggregate, Join, Sort, Window, "
            "Union, Expand, Generate, a scan's relation, a write command)"
        ),
        _names(
            """
            AppendDataExec AppendDataExecV1 AtomicCreateTableAsSelectExec
            AtomicReplaceTableAsSelectExec BatchScanExec BroadcastHashJoinExec
            BroadcastNestedLoopJoinExec CartesianProductExec CreateTableAsSelectExec
            DataWritingCommandExec ExecutedCommandExec ExpandExec FileSourceScanExec
            FilterExec GenerateExec HashAggregateExec HiveTableScanExec
            InMemoryTableScanExec LocalTableScanExec MicroBatchScanExec
            ObjectHashAggregateExec OverwriteByExpressionExec OverwriteByExpressionExecV1
            OverwritePartitionsDynamicExec ProjectExec RDDScanExec ReplaceTableAsSelectExec
            RowDataSourceScanExec ShuffledHashJoinExec SortAggregateExec SortExec
            SortMergeJoinExec TakeOrderedAndProjectExec UnionExec WindowExec
            """
        ),
    ),
    Decided(
        PASS_THROUGH,
        (
            "changes no column: exchanges, adaptive and codegen wrappers, limits, samples, "
            "subquery and broadcast plumbing, state stores, watermarks; event-log extraction "
            "passes its children through"
        ),
        _names(
            """
            AQEShuffleReadExec AdaptiveSparkPlanExec BroadcastExchangeExec
            BroadcastQueryStageExec CoalesceExec CollectLimitExec CollectMetricsExec
            CollectTailExec ColumnarToRowExec DeltaInvariantCheckerExec
            DeltaOptimizedWriterExec EventTimeWatermarkExec GlobalLimitExec
            GroupPartitionsExec InputAdapter LocalLimitExec OrderAwareCoalesceExec PlanLater
            ProjectedBroadcastValueSubqueryExec PythonWorkerLogsExec ResultQueryStageExec
            ReusedExchangeExec ReusedSubqueryExec RowToColumnarExec SampleExec
            SessionWindowStateStoreRestoreExec SessionWindowStateStoreSaveExec
            ShuffleExchangeExec ShuffleQueryStageExec SkewJoinChildWrapper
            StateStoreRestoreExec StateStoreSaveExec StreamingDeduplicateExec
            StreamingDeduplicateWithinWatermarkExec StreamingGlobalLimitExec
            StreamingLocalLimitExec SubqueryAdaptiveBroadcastExec SubqueryBroadcastExec
            SubqueryExec TableCacheQueryStageExec UpdateEventTimeColumnExec
            WholeStageCodegenExec WindowGroupLimitExec WriteFilesExec package$DebugExec
            """
        ),
    ),
    Decided(
        PASS_THROUGH,
        (
            "between a Dataset's typed query and its rows: passed through to find the query "
            "(OBJECT_WRAPPERS)"
        ),
        _names(
            """
            DeserializeToObjectExec MapPartitionsExec SerializeFromObjectExec
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "never in an executed plan of a query that reads or writes data (EXPLAIN's wrapper, a "
            "command's result rows, an empty relation the optimizer proved)"
        ),
        _names(
            """
            CommandResultExec EmptyRelationExec ExplainOnlySparkPlan MultiResultExec
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "a user function of whole rows (typed Dataset operations, pandas, Arrow, Python UDFs "
            "evaluated apart, R, a script): the log's string does not relate its output columns "
            "to its input"
        ),
        _names(
            """
            AggregateInPandasExec AppendColumnsExec AppendColumnsWithObjectExec
            ArrowAggregatePythonExec ArrowEvalPythonExec ArrowEvalPythonUDTFExec
            ArrowWindowPythonExec AttachDistributedSequenceExec BatchEvalPythonExec
            BatchEvalPythonUDTFExec CoGroupExec ExternalRDDScanExec
            FlatMapCoGroupsInArrowExec FlatMapCoGroupsInPandasExec FlatMapGroupsInArrowExec
            FlatMapGroupsInPandasExec FlatMapGroupsInPandasWithStateExec
            FlatMapGroupsInRExec FlatMapGroupsInRWithArrowExec FlatMapGroupsWithStateExec
            HiveScriptTransformationExec MapElementsExec MapGroupsExec MapInArrowExec
            MapInPandasExec MapPartitionsExternalUDFExec MapPartitionsInRWithArrowExec
            PythonMapInArrowExec SparkScriptTransformationExec TransformWithStateExec
            TransformWithStateInPySparkExec WindowInPandasExec
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "not handled by event-log extraction yet: its columns carry no lineage (stream-stream "
            "and as-of joins, session windows, recursive CTEs, ranges, MERGE's row rewrite)"
        ),
        _names(
            """
            BinByExec MergeRowsExec MergingSessionsExec OneRowRelationExec
            ProjectAggregationBufferExec RangeExec SortMergeAsOfJoinExec
            StatefulStreamlineAggregateExec StreamingSymmetricHashJoinExec UnionLoopExec
            UpdatingSessionsExec
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "a write or scan whose target the log's plan string does not name (row-level writes, "
            "continuous and real-time streams, procedures): live capture reads it through py4j"
        ),
        _names(
            """
            CallExec ContinuousScanExec InsertOnlyMergeExec PaimonCallExec
            RealTimeStreamScanExec ReplaceDataExec StreamingRelationExec WriteDeltaExec
            WriteToContinuousDataSourceExec WriteToDataSourceV2Exec
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "a DataSource V2 catalog command (SHOW, DESCRIBE, CREATE, DROP, ALTER...): event logs "
            "hold no lineage of it (live capture handles the DDL it knows: DDL_COMMANDS)"
        ),
        _names(
            """
            AddCheckConstraintExec AddPartitionExec AddPartitionFieldExec
            AlterNamespaceSetPropertiesExec AlterTableExec AlterV2ViewExec
            AlterV2ViewSchemaBindingExec AlterV2ViewSetPropertiesExec
            AlterV2ViewUnsetPropertiesExec AtomicReplaceTableExec CacheTableAsSelectExec
            CacheTableExec CloseCursorExec CreateIndexExec CreateNamespaceExec
            CreateOrReplaceBranchExec CreateOrReplaceTagExec CreateTableExec
            CreateTableLikeExec CreateV2MetricViewExec CreateV2ViewExec CreateVariableExec
            DeclareCursorExec DeleteFromTableExec DescribeColumnExec DescribeNamespaceExec
            DescribeTableExec DescribeTablePartitionExec DescribeV2ViewColumnExec
            DescribeV2ViewExec DropBranchExec DropIdentifierFieldsExec DropIndexExec
            DropNamespaceExec DropPartitionExec DropPartitionFieldExec DropTableExec
            DropTagExec DropV2ViewExec DropVariableExec DropViewExec FetchCursorExec
            OpenCursorExec RefreshTableExec RenamePartitionExec RenameTableExec
            RenameV2ViewExec ReplacePartitionFieldExec ReplaceTableExec
            SetCatalogAndNamespaceExec SetIdentifierFieldsExec SetVariableExec
            SetWriteDistributionAndOrderingExec ShowColumnsExec ShowCreateTableExec
            ShowCreateV2ViewExec ShowFunctionsExec ShowNamespacesExec ShowPartitionsExec
            ShowTablePartitionExec ShowTablePropertiesExec ShowTablesExec
            ShowTablesExtendedExec ShowV2ViewColumnsExec ShowV2ViewPropertiesExec
            ShowV2ViewsExec ShowViewsExec TruncatePartitionExec TruncateTableExec
            UncacheTableExec
            """
        ),
    ),
)

EXPRESSION: tuple[Decided, ...] = (
    Decided(
        PASS_THROUGH,
        (
            "a function of its children: each input column it reads is DIRECT TRANSFORMATION (the "
            "column lineage facet: the output value is derived from the input value)"
        ),
        _names(
            """
            Abs Acos Acosh Add AddMonths AesDecrypt AesEncrypt ApproxTopKEstimate
            ArrayAggregate ArrayAppend ArrayBinarySearch ArrayCompact ArrayDistinct
            ArrayExcept ArrayFilter ArrayInsert ArrayIntersect ArrayJoin ArrayMax ArrayMin
            ArrayPosition ArrayPrepend ArrayRemove ArrayRepeat ArraySize ArraySort
            ArrayTransform ArrayUnion ArraysZip Ascii Asin Asinh AssertNotNull AssertTrue
            Atan Atan2 Atanh BRound Base32 Base64 Between Bin BinaryPad BinaryPredicate
            BitLength BitmapBitPosition BitmapBucketNumber BitmapCount BitwiseAnd
            BitwiseCount BitwiseGet BitwiseNot BitwiseOr BitwiseXor CallMethodViaReflection
            CastTimestampNTZToLong CatalystToExternalMap Cbrt
            CdcAssertCommitTimestampNotNull Ceil CheckDeltaInvariant CheckInvariant
            CheckOverflow CheckOverflowInSum CheckOverflowInTableInsert
            CheckOverflowInTableWrite Chr Coalesce Collate Collation
            CollationAwareMurmur3Hash CollationAwareXxHash64 CollationKey Concat ConcatWs
            Conv ConvertTimezone Cos Cosh Cot Crc32 CreateArray CreateExternalRow CreateMap
            CreateNamedStruct Csc CsvToStructs Cube CurrentTime DateAdd DateAddInterval
            DateAddYMInterval DateDiff DateFormatClass DateFromUnixDate DateSub DatetimeSub
            DayName DayOfMonth DayOfWeek DayOfYear DecimalAddNoOverflowCheck
            DecimalDivideWithOverflowCheck DecimalSubtractNoOverflowCheck Decode
            DecodeUsingSerializer Divide DivideDTInterval DivideInterval DivideYMInterval
            DropField ElementAt Elt Empty2Null Encode EncodeUsingSerializer EqualNull Exp
            Expm1 ExpressionProxy ExternalMapToCatalyst Extract ExtractANSIIntervalDays
            ExtractANSIIntervalHours ExtractANSIIntervalMinutes ExtractANSIIntervalMonths
            ExtractANSIIntervalSeconds ExtractANSIIntervalYears ExtractIntervalDays
            ExtractIntervalHours ExtractIntervalMinutes ExtractIntervalMonths
            ExtractIntervalSeconds ExtractIntervalYears Factorial FindInSet Flatten Floor
            FormatNumber FormatString FromAvro FromProtobuf FromUTCTimestamp FromUnixTime
            FunctionTableSubqueryArgumentExpression Get GetArrayItem GetArrayStructFields
            GetExternalRowField GetJsonObject GetMapValue GetStructField GetTimestamp
            Greatest GroupingSets Hex HilbertByteArrayIndex HilbertLongIndex HiveHash
            HllSketchEstimate HllUnion Hmac Hour HoursOfTime Hypot ILike InitCap
            InitializeJavaBean IntegralDivide InterleaveBits Invoke IsValidUTF8 JaroWinkler
            JsonObjectKeys JsonToStructs KllSketchGetNBigint KllSketchGetNDouble
            KllSketchGetNFloat KllSketchGetQuantileBigint KllSketchGetQuantileDouble
            KllSketchGetQuantileFloat KllSketchGetRankBigint KllSketchGetRankDouble
            KllSketchGetRankFloat KllSketchMergeBigint KllSketchMergeDouble
            KllSketchMergeFloat KllSketchToStringBigint KllSketchToStringDouble
            KllSketchToStringFloat LambdaFunction LastDay Least Left Length
            LengthOfJsonArray Levenshtein Log Log10 Log1p Log2 Logarithm Lower Luhncheck
            MakeDTInterval MakeDate MakeDecimal MakeInterval MakeTime MakeTimestamp
            MakeTimestampFromDateTime MakeTimestampLTZ MakeTimestampLTZNanos
            MakeTimestampNTZ MakeTimestampNTZNanos MakeValidUTF8 MakeYMInterval MapConcat
            MapContainsKey MapEntries MapFilter MapFromArrays MapFromEntries MapKeys
            MapObjects MapSort MapValues MapZipWith Mask Md5 MicrosToTimestamp
            MillisToTimestamp Minute MinutesOfTime Month MonthName MonthsBetween
            MultiGetJsonObject Multiply MultiplyDTInterval MultiplyInterval
            MultiplyYMInterval Murmur3Hash NaNvl NanosToTimestamp NewInstance NextDay NullIf
            NullIfResult NullIfZero Nvl Nvl2 OctetLength Overlay ParseJson ParseToDate
            ParseToTimestamp ParseUrl Pmod Pow PreciseTimestampConversion PrintToStderr
            Quarter Quote RaiseError Rand RandStr Randn RegExpCount RegExpExtract
            RegExpExtractAll RegExpInStr RegExpReplace RegExpSubStr Remainder Reverse Right
            Rint Rollup Round RoundCeil RoundFloor ST_AsBinary ST_GeogFromWKB ST_GeomFromWKB
            ST_SetSrid ST_Srid ScalarCastHelper SchemaOfAvro SchemaOfCsv SchemaOfJson
            SchemaOfVariant SchemaOfXml Sec Second SecondWithFraction
            SecondWithFractionNanos SecondsOfTime SecondsOfTimeWithFraction
            SecondsToTimestamp Sentences Sequence SessionWindow Sha1 Sha2 ShiftLeft
            ShiftRight ShiftRightUnsigned Shuffle Signum Sin Sinh Size Slice SortArray
            SortPrefix SoundEx SplitPart Sqrt StaticInvoke StringDecode StringInstr
            StringInstrWithOccurrence StringLPad StringLocate StringRPad StringRepeat
            StringReplace StringSpace StringSplit StringSplitSQL StringToMap StringTranslate
            StringTrim StringTrimBoth StringTrimLeft StringTrimRight StructsToCsv
            StructsToJson StructsToXml Substring SubstringIndex Subtract SubtractDates
            SubtractTimes SubtractTimestamps Tan Tanh ThetaDifference ThetaIntersection
            ThetaSketchEstimate ThetaUnion TimeAdd TimeAddInterval TimeBucket TimeDiff
            TimeFromMicros TimeFromMillis TimeFromSeconds TimeToMicros TimeToMillis
            TimeToSeconds TimeTrunc TimeWindow TimestampAdd TimestampAddInterval
            TimestampAddYMInterval TimestampDiff ToAvro ToBinary ToCharacter ToDegrees
            ToJavaArray ToNumber ToPrettyString ToProtobuf ToRadians ToTime ToUTCTimestamp
            ToUnixTimestamp ToVariantObject TransformKeys TransformValues TruncDate
            TruncTimestamp TryAdd TryAesDecrypt TryDivide TryElementAt TryEval
            TryMakeInterval TryMakeTimestamp TryMakeTimestampFromDateTime TryMod TryMultiply
            TryParseUrl TryReflect TrySubtract TryToBinary TryToNumber TryUrlDecode
            TryValidateUTF8 TupleDifferenceDouble TupleDifferenceInteger
            TupleDifferenceThetaDouble TupleDifferenceThetaInteger TupleIntersectionDouble
            TupleIntersectionInteger TupleIntersectionThetaDouble
            TupleIntersectionThetaInteger TupleSketchEstimateDouble
            TupleSketchEstimateInteger TupleSketchSummaryDouble TupleSketchSummaryInteger
            TupleSketchThetaDouble TupleSketchThetaInteger TupleUnionDouble
            TupleUnionInteger TupleUnionThetaDouble TupleUnionThetaInteger TypeOf UnBase32
            UnBase64 UnaryMinus UnaryPositive Unhex Uniform UnixDate UnixMicros UnixMillis
            UnixNanos UnixSeconds UnixTimestamp UnscaledValue UnwrapOption UnwrapUDT
            UnwrapVariantCastError UpdateFields Upper UrlDecode UrlEncode
            ValidateExternalType ValidateUTF8 VariantArrayAppend VariantDelete VariantGet
            VariantInsert VariantSet VariantStripNulls VectorCosineSimilarity
            VectorInnerProduct VectorL2Distance VectorNorm VectorNormalize WeekDay
            WeekOfYear WidthBucket WindowTime With WithField WrapOption XPathDouble
            XPathFloat XPathInt XPathList XPathLong XPathShort XPathString XmlToStructs
            XxHash64 Year YearOfWeek ZeroIfNull ZipWith
            """
        ),
    ),
    Decided(
        PASS_THROUGH,
        (
            "a predicate of its children: DIRECT TRANSFORMATION in a projection; in a Filter, a "
            "Join or a CASE / IF condition the holder's handler makes it INDIRECT FILTER, JOIN or "
            "CONDITIONAL"
        ),
        _names(
            """
            And ArrayContains ArrayExists ArrayForAll ArraysOverlap AtLeastNNonNulls
            Contains EndsWith EqualNullSafe EqualTo GreaterThan GreaterThanOrEqual In InSet
            InSubquery IsNaN IsNotNull IsNull IsValidVariant IsVariantNull LessThan
            LessThanOrEqual Like LikeAll LikeAny Not NotLikeAll NotLikeAny Or RLike
            StartsWith XPathBoolean
            """
        ),
    ),
    Decided(
        PASS_THROUGH,
        (
            "an aggregate function: it sits in an AggregateExpression, whose handler makes each "
            "column it reads DIRECT AGGREGATION"
        ),
        _names(
            """
            AnyValue ApproxCountDistinctForIntervals ApproxTopK ApproxTopKAccumulate
            ApproxTopKCombine ApproximatePercentile Average BitAndAgg BitOrAgg BitXorAgg
            BitmapAndAgg BitmapConstructAgg BitmapOrAgg BloomFilterAggregate BoolAnd BoolOr
            CollectFrequentItems CollectList CollectSet CollectTopK CollectUnion
            ComplexTypedAggregateExpression Corr Count CountIf CountMinSketchAgg CounterDiff
            CounterDiffWithStartTime CovPopulation CovSample
            DeletedRecordCountsHistogramUtils$DeletedRecordCountsHistogramAgg EWM First
            HistogramNumeric HllSketchAgg HllUnionAgg HyperLogLogPlusPlus KllMergeAggBigint
            KllMergeAggDouble KllMergeAggFloat KllSketchAggBigint KllSketchAggDouble
            KllSketchAggFloat Kurtosis Last LastNonNull ListAgg Max MaxBy MaxMinByK Measure
            Median Min MinBy Mode NullIndex PandasCovar PandasKurtosis PandasMode
            PandasProduct PandasSkewness PandasStddev PandasVariance Percentile
            PercentileCont PercentileDisc PivotFirst PrettyPythonUDF Product RegrAvgX
            RegrAvgY RegrCount RegrIntercept RegrR2 RegrReplacement RegrSXX RegrSXY RegrSYY
            RegrSlope SchemaOfVariantAgg SimpleTypedAggregateExpression Skewness StddevPop
            StddevSamp Sum SummaryBuilderImpl$MetricsAggregate ThetaIntersectionAgg
            ThetaSketchAgg ThetaUnionAgg TupleIntersectionAggDouble
            TupleIntersectionAggInteger TupleSketchAggDouble TupleSketchAggInteger
            TupleUnionAggDouble TupleUnionAggInteger V2Aggregator VariancePop VarianceSamp
            VectorAvg VectorSum
            """
        ),
    ),
    Decided(
        PASS_THROUGH,
        (
            "a window function: DIRECT TRANSFORMATION of what it reads (ranking functions read "
            "only the window's order); the WindowExpression handler adds the window's partition "
            "and order as INDIRECT WINDOW"
        ),
        _names(
            """
            CumeDist DenseRank Lag Lead NTile NthValue PercentRank Rank RowNumber
            """
        ),
    ),
    Decided(
        PASS_THROUGH,
        (
            "a window's or a sort's specification: the WindowExpression or Sort handler makes "
            "what it reads INDIRECT WINDOW or SORT"
        ),
        _names(
            """
            CurrentRow SortOrder SpecifiedWindowFrame UnboundedFollowing UnboundedPreceding
            WindowSpecDefinition
            """
        ),
    ),
    Decided(
        PASS_THROUGH,
        (
            "a generator: the Generate handler makes each generated column a DIRECT "
            "TRANSFORMATION of what it reads"
        ),
        _names(
            """
            Collations Explode GeneratorOuter Inline JsonTable JsonTuple PosExplode
            ReplicateRows SQLKeywords Stack Unnest UserDefinedGenerator VariantExplode
            """
        ),
    ),
    Decided(
        PASS_THROUGH,
        (
            "a user-defined function (Scala, Java, Python, Hive): DIRECT TRANSFORMATION of its "
            "arguments (AGGREGATION for a UDAF in an AggregateExpression); its body is not seen"
        ),
        _names(
            """
            HiveGenericUDF HiveGenericUDTF HiveSimpleUDF HiveUDAFFunction PythonUDAF
            PythonUDTF ScalaAggregator ScalaUDAF ScalaUDF
            """
        ),
    ),
    Decided(
        PASS_THROUGH,
        (
            "reads no input column (a literal, the clock, the session, a random or row-position "
            "value, a lambda's variable): contributes no lineage"
        ),
        _names(
            """
            CurrentBatchTimestamp CurrentCatalog CurrentDatabase CurrentDate CurrentPath
            CurrentTimeZone CurrentTimestamp CurrentTimestampNanos CurrentUser EulerNumber
            GenerateIdentityValues InputFileBlockLength InputFileBlockStart InputFileName
            Literal LocalTimestamp LocalTimestampNanos MonotonicallyIncreasingID
            NamedLambdaVariable Now Pi SparkPartitionID SparkVersion Uuid VariableReference
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "analysis only: the analyzer resolves or replaces it, so it is never in the analyzed "
            "plan the capture walks"
        ),
        _names(
            """
            ColumnNodeExpression CursorReference ExpressionWithUnresolvedIdentifier
            ExternalUserDefinedFunction GetColumnByOrdinal GetViewColumnByNameAndOrdinal
            Grouping GroupingID LateralColumnAliasReference LazyExpression MultiAlias
            NamePlaceholder NamedArgumentExpression NamedParameter OuterScopeReference
            PipeExpression PosParameter ResolvedStar SQLFunctionExpression SQLScalarFunction
            SemiStructuredExtract TempResolvedColumn TranspiledPythonUDF
            TranspiledUDFParameter UnresolvedAlias UnresolvedAttribute
            UnresolvedCatalystToExternalMap UnresolvedCollation UnresolvedCursor
            UnresolvedDataFrameStar UnresolvedDeserializer UnresolvedExistsPlanId
            UnresolvedExtractValue UnresolvedFieldName UnresolvedFieldPosition
            UnresolvedFunction UnresolvedGenerator UnresolvedInSubqueryPlanId
            UnresolvedMapObjects UnresolvedNamedLambdaVariable UnresolvedOrdinal
            UnresolvedPartitionSpec UnresolvedPipeAggregateOrdinal
            UnresolvedPolymorphicPythonUDTF UnresolvedRegex UnresolvedScalarSubqueryPlanId
            UnresolvedSeed UnresolvedStar UnresolvedStarExceptOrReplace
            UnresolvedStarWithColumns UnresolvedStarWithColumnsRenames
            UnresolvedTableArgPlanId UnresolvedTableSpec UnresolvedWindowExpression
            UnresolvedWithinGroup UnspecifiedFrame
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "an argument of a DDL or DML command (column definitions, constraints, MERGE clauses' "
            "actions, field positions), read by that command's handler, not a value of a query"
        ),
        _names(
            """
            AlterColumnSpec Assignment CheckConstraint ColumnDefinition
            DefaultValueExpression DeleteAction ForeignKeyConstraint
            GeneratedColumnExpression InsertAction InsertReplaceOn InsertReplaceUsing
            InsertReplaceWhere InsertStarAction MergeRows$Discard MergeRows$Keep
            MergeRows$Split OptionList PrimaryKeyConstraint QualifiedColType
            ResolvedCollation ResolvedFieldName ResolvedFieldPosition ResolvedPartitionSpec
            UniqueConstraint UpdateAction UpdateStarAction
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "only in optimized or executed plans (partitioning, bound references, runtime "
            "filters, shared subexpressions): the capture walks analyzed plans, event-log "
            "extraction parses expression strings"
        ),
        _names(
            """
            BloomFilterMightContain BoundReference CoalescedHashPartitioning
            CoalescedNullAwareHashPartitioning CommonExpressionDef CommonExpressionRef
            DirectShufflePartitionID DistributedSequenceID DynamicPruningExpression
            DynamicPruningSubquery HashPartitioning InSubqueryExec IncrementMetric
            KeyedPartitioning LambdaVariable MultiCommutativeOp NoOp NormalizeNaNAndZero
            NullAwareHashPartitioning PartitionerExpr PartitioningCollection
            RangePartitionId RangePartitioning ScalarSubqueryReference
            ShufflePartitionIdPassThrough
            """
        ),
    ),
    Decided(
        OPAQUE,
        (
            "a partition transform of a table's definition (years, days, bucket...), not a value "
            "of a query"
        ),
        _names(
            """
            ApplyFunctionExpression Bucket Days Hours Months TransformExpression Years
            """
        ),
    ),
)
