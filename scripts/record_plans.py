"""Record the plans of the Spark test scenarios as JSON fixtures for the lineage walker's tests.

    .venv/bin/python scripts/record_plans.py [--out tests/golden/plans] [SCENARIO ...]

Runs every scenario of tests/spark/plan_scenarios.py on a local SparkSession (the installed
PySpark's version), takes the write command each one executed, and writes
`<out>/<major.minor>/<scenario>.json`: its analyzed and optimized plans in `plan.Node`'s JSON
form, and the input fields each column of each relation leaf reads (found the way live capture
finds them, through py4j), keyed by the leaf's path in the plan; and `eventLog`, the SQL events
Spark's event log holds for the write's execution and its nested ones (what event-log extraction
reads: `sparkPlanInfo`, `physicalPlanDescription`). `--event-log-only` adds or replaces
`eventLog` in the documents already recorded, leaving their plans as they are. Run it again with another Spark version installed
to add that version's folder; the tests read every version folder present.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "spark")]

from plan_scenarios import SCENARIOS, make_sources  # noqa: E402

from plumbline.spark import jvm  # noqa: E402
from plumbline.spark.extract import _Extraction  # noqa: E402
from plumbline.spark.listener import CaptureWorker, SqlExecutionListener, register  # noqa: E402
from plumbline.spark.vocabulary import DATASET_RELATIONS, WRITE_COMMANDS  # noqa: E402

FORMAT = 1  # the fixtures' layout; bump it when the layout changes


def path_text(path: jvm.Path) -> str:
    """A leaf's path as text: `c0/s1/q0` (child 0, then subquery plan 1, then the query field)."""
    return "/".join(f"{kind}{index}" for kind, index in path)


class _Optimized:
    """A QueryExecution whose `analyzed()` is its optimized plan (to resolve its leaves too)."""

    def __init__(self, qe: Any) -> None:
        self._qe = qe

    def analyzed(self) -> Any:
        return self._qe.optimizedPlan()


class Recorder:
    """Keeps the QueryExecution of every root execution that ran a write command."""

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self.worker = CaptureWorker()
        self.writes: list[tuple[int, Any]] = []  # (execution id, QueryExecution)
        self._lock = threading.Lock()
        context = spark.sparkContext
        jvm.bind_jvm(context._jvm)
        self._listener = SqlExecutionListener(context._jvm, self._started, self._ended, self.worker)
        from pyspark.java_gateway import ensure_callback_server_started

        ensure_callback_server_started(context._gateway)  # type: ignore[no-untyped-call]
        register(context, self._listener)
        self._roots: dict[int, int] = {}

    def _started(self, execution_id: int, root_id: int, qe: Any, when: float) -> None:
        self._roots[execution_id] = root_id

    def _ended(self, execution_id: int, qe: Any, error: Any, when: float) -> None:
        if self._roots.pop(execution_id, execution_id) != execution_id or qe is None:
            return
        if str(qe.analyzed().nodeName()) in WRITE_COMMANDS:
            with self._lock:
                self.writes.append((execution_id, qe))

    def settle(self) -> None:
        self.spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(60_000)
        self.worker.drain(60)


def _label(key: str, workdir: Path) -> str:
    """A dataset key as the fixtures name it: a path under `workdir` relative to it."""
    namespace, name = key.split("\x00", 1)
    if namespace == "file" and Path(name).is_relative_to(workdir):
        return str(Path(name).relative_to(workdir))
    return f"{namespace}:{name}"


def _plan(session: Any, qe: Any, workdir: Path) -> dict[str, Any]:
    """A plan in `Node`'s JSON form, with the input fields of each column of its source leaves."""
    extraction = _Extraction(session, qe, collapse=False)  # the plan node for node
    extraction.read_inputs()
    sources: dict[str, dict[str, dict[str, str]]] = {}
    for leaf, path in jvm.leaf_paths(extraction.root, DATASET_RELATIONS):
        columns = {}
        for attribute in leaf.trees("output"):
            column = str(attribute.fields.get("name"))
            deps = extraction.walker.source_of(leaf, column)
            columns[column] = {
                f"{_label(key, workdir)}.{field}": ", ".join(sorted(f"{t} {s}" for t, s in how))
                for (key, field), how in sorted(deps.items())
            }
        if any(columns.values()):
            sources[path_text(path)] = columns
    return {"plan": extraction.root.to_json(), "sources": sources}


_SQL_EVENTS = (
    "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart",
    "org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate",
    "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd",
)


def _logged(logs: Path, root_id: int) -> list[dict[str, Any]]:
    """The SQL events of the execution `root_id` and its nested ones, from the event log."""
    found: list[dict[str, Any]] = []
    roots: dict[int, int] = {}
    for path in sorted(logs.iterdir()):
        for line in path.read_text().splitlines():
            if not any(kind in line[:200] for kind in _SQL_EVENTS):
                continue
            event = json.loads(line)
            execution = int(event["executionId"])
            if event["Event"] == _SQL_EVENTS[0]:
                roots[execution] = int(event.get("rootExecutionId", execution))
            if roots.get(execution) == root_id:
                found.append(event)
    return found


def record(
    spark: Any, names: list[str], out: Path, scratch: Path, *, event_log_only: bool = False
) -> list[Path]:
    """Run the scenarios `names` (all when empty) and write their fixtures under `out`.

    `scratch` holds the session's warehouse, event log and the scenarios' data; its path is
    replaced by `/plans` in the fixtures.
    """
    unknown = set(names) - {s.name for s in SCENARIOS}
    if unknown:
        raise SystemExit(f"no such scenario: {', '.join(sorted(unknown))}")
    version = ".".join(str(spark.version).split(".")[:2])
    folder = out / version
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    workdir = scratch / "data"
    make_sources(spark, workdir)
    recorder = Recorder(spark)
    session = spark._jsparkSession
    for scenario in SCENARIOS:
        if names and scenario.name not in names:
            continue
        recorder.settle()
        recorder.writes.clear()
        scenario.run(spark, str(workdir / scenario.name))
        recorder.settle()
        if not recorder.writes:
            raise SystemExit(f"scenario {scenario.name} ran no write command")
        execution_id, qe = recorder.writes[-1]
        target = folder / f"{scenario.name}.json"
        if event_log_only:
            document = json.loads(target.read_text())
        else:
            document = {
                "format": FORMAT,
                "spark": str(spark.version),
                "scenario": scenario.name,
                "description": scenario.description,
                "analyzed": _plan(session, qe, workdir),
                "optimized": _plan(session, _Optimized(qe), workdir),
            }
        document["eventLog"] = _logged(scratch / "eventlog", execution_id)
        text = json.dumps(document, indent=1)
        text = text.replace(str(scratch), "/plans")  # no temporary paths in the fixtures
        target.write_text(text + "\n")
        written.append(target)
        shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
        print(f"{shown}: {len(text) // 1024} KiB")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "golden" / "plans")
    parser.add_argument("scenarios", nargs="*", help="scenario names (default: all)")
    parser.add_argument(
        "--event-log-only", action="store_true", help="add the event log's part only"
    )
    args = parser.parse_args()
    from pyspark.sql import SparkSession

    # Python UDF scenarios run workers: they need this interpreter (its pyarrow), not python3.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    with tempfile.TemporaryDirectory(prefix="plumbline-plans-") as tmp:
        scratch = Path(tmp).resolve()
        (scratch / "eventlog").mkdir()  # Spark's event log folder must exist
        spark = (
            SparkSession.builder.master("local[2]")
            .appName("plumbline_record_plans")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.sql.warehouse.dir", str(scratch / "warehouse"))
            .config("spark.eventLog.enabled", "true")
            .config("spark.eventLog.dir", str(scratch / "eventlog"))
            .config("spark.eventLog.rolling.enabled", "false")  # Spark 4: one file,
            .config("spark.eventLog.compress", "false")  # not compressed
            .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={scratch}")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        try:
            out = args.out.resolve()
            record(spark, args.scenarios, out, scratch, event_log_only=args.event_log_only)
        finally:
            spark.stop()


if __name__ == "__main__":
    main()
