"""The concrete Catalyst classes of this Spark line's jars, listed from a JVM (issue 31 §4).

Run as a script (`python catalyst_classes.py OUT`), it starts a JVM through pyspark's gateway (no
Spark session), puts the Delta, Iceberg and Paimon runtime jars pinned for the line on a class loader
over Spark's, compiles `CatalystClasses.java` with Janino and writes every concrete (not abstract,
not an interface, not anonymous) LogicalPlan, SparkPlan and Expression class of those jars and of
Spark's own to OUT as JSON. `catalyst_classes()` runs it once per jar set and keeps the answer in
~/.cache/plumbline (the listing loads some 40,000 classes: tens of seconds).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from runtime_jars import ROOT, runtime_jar_paths, spark_jars_folder  # noqa: E402

FORMATS = ("delta", "iceberg", "paimon")
# entries loaded from Spark's own jars and from each format's (a format jar also holds shaded
# libraries: only its Spark integration can hold Catalyst classes)
SPARK_PREFIXES = ("org/apache/spark/",)
FORMAT_PREFIXES = {
    "delta": ("org/apache/spark/sql/delta/", "io/delta/"),
    "iceberg": ("org/apache/iceberg/spark/", "org/apache/spark/sql/"),
    "paimon": ("org/apache/paimon/spark/", "org/apache/spark/sql/"),
}
# Spark's jars that do not depend on spark-catalyst cannot hold a Catalyst class
NO_CATALYST = (
    "spark-core", "spark-common-utils", "spark-kvstore", "spark-launcher", "spark-network-",
    "spark-tags", "spark-unsafe", "spark-sketch", "spark-yarn", "spark-mesos", "spark-kubernetes",
    "spark-graphx", "spark-streaming", "spark-mllib-local", "spark-variant",
)  # fmt: skip
# the Spark traits each listed class is checked against (what a rule of the vocabulary may name)
TRAITS = (
    "org.apache.spark.sql.catalyst.plans.logical.Command",
    "org.apache.spark.sql.execution.command.RunnableCommand",
    "org.apache.spark.sql.execution.command.DataWritingCommand",
    "org.apache.spark.sql.catalyst.plans.logical.V2WriteCommand",
    "org.apache.spark.sql.catalyst.plans.logical.ParsedStatement",
    "org.apache.spark.sql.catalyst.plans.logical.ObjectProducer",
    "org.apache.spark.sql.catalyst.plans.logical.ObjectConsumer",
    "org.apache.spark.sql.catalyst.plans.logical.LeafNode",
    "org.apache.spark.sql.catalyst.plans.logical.UnaryNode",
    "org.apache.spark.sql.catalyst.plans.logical.BinaryNode",
    "org.apache.spark.sql.catalyst.plans.logical.RepartitionOperation",
    "org.apache.spark.sql.execution.command.LeafRunnableCommand",
    "org.apache.spark.sql.execution.exchange.Exchange",
    "org.apache.spark.sql.execution.adaptive.QueryStageExec",
    "org.apache.spark.sql.execution.datasources.v2.V2CommandExec",
    "org.apache.spark.sql.execution.datasources.v2.V2TableWriteExec",
    "org.apache.spark.sql.execution.aggregate.BaseAggregateExec",
    "org.apache.spark.sql.execution.joins.BaseJoinExec",
    "org.apache.spark.sql.execution.DataSourceScanExec",
    "org.apache.spark.sql.execution.LeafExecNode",
    "org.apache.spark.sql.execution.ObjectProducerExec",
    "org.apache.spark.sql.execution.ObjectConsumerExec",
    "org.apache.spark.sql.execution.python.EvalPythonExec",
    "org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction",
    "org.apache.spark.sql.catalyst.expressions.WindowFunction",
    "org.apache.spark.sql.catalyst.expressions.Generator",
    "org.apache.spark.sql.catalyst.expressions.Unevaluable",
    "org.apache.spark.sql.catalyst.expressions.RuntimeReplaceable",
    "org.apache.spark.sql.catalyst.expressions.Predicate",
    "org.apache.spark.sql.catalyst.expressions.Attribute",
    "org.apache.spark.sql.catalyst.expressions.NamedExpression",
    "org.apache.spark.sql.catalyst.expressions.SubqueryExpression",
    "org.apache.spark.sql.catalyst.expressions.LeafExpression",
    "org.apache.spark.sql.catalyst.expressions.TaggingExpression",
    "org.apache.spark.sql.catalyst.expressions.ExecSubqueryExpression",
    "org.apache.spark.sql.catalyst.expressions.NamedArgumentExpression",
    "org.apache.spark.sql.catalyst.analysis.UnresolvedLeafNode",
    "org.apache.spark.sql.catalyst.expressions.UserDefinedExpression",
)
CACHE = Path.home() / ".cache" / "plumbline" / "catalyst-classes"


def format_jars() -> dict[str, list[Path]]:
    """The runtime jars of each table format pinned for this line (a format with none is absent)."""
    found: dict[str, list[Path]] = {}
    for name in FORMATS:
        try:
            found[name] = runtime_jar_paths(name)
        except LookupError:
            continue
    return found


def spark_jars() -> list[Path]:
    return sorted(
        p for p in spark_jars_folder().glob("spark-*.jar") if not p.name.startswith(NO_CATALYST)
    )


def _key() -> str:
    import pyspark

    jars = [*spark_jars(), *(p for ps in format_jars().values() for p in ps)]
    text = "\n".join([pyspark.__version__, *(f"{p.name}:{p.stat().st_size}" for p in jars)])
    return f"{pyspark.__version__}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def catalyst_classes() -> list[dict[str, Any]]:
    """Every concrete Catalyst class of this line's jars: `kind` (logical, physical, expression),
    `name` (the Java name), `jar` (Spark's or the format's), `traits` (of TRAITS)."""
    cached = CACHE / f"{_key()}.json"
    if not cached.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, __file__, str(partial)],
            capture_output=True, text=True, timeout=900, env=env, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        partial.replace(cached)
    found: list[dict[str, Any]] = json.loads(cached.read_text())
    return found


def _list(out: Path) -> None:
    from pyspark.java_gateway import launch_gateway

    gateway = launch_gateway()
    jvm = gateway.jvm
    formats = format_jars()
    extra = [p for ps in formats.values() for p in ps]
    urls = gateway.new_array(jvm.java.net.URL, len(extra))
    for i, path in enumerate(extra):
        urls[i] = jvm.java.io.File(str(path)).toURI().toURL()
    spark_loader = (
        jvm.org.apache.spark.sql.catalyst.trees.TreeNode._java_lang_class.getClassLoader()
    )
    loader = jvm.java.net.URLClassLoader(urls, spark_loader)
    compiler = jvm.org.codehaus.janino.SimpleCompiler()
    compiler.setParentClassLoader(spark_loader)
    compiler.cook((HERE / "CatalystClasses.java").read_text(encoding="utf-8"))
    lister = compiler.getClassLoader().loadClass("CatalystClasses").newInstance()
    rows: list[dict[str, Any]] = []
    sets = [("spark", spark_jars(), SPARK_PREFIXES)]
    sets += [(name, jars, FORMAT_PREFIXES[name]) for name, jars in formats.items()]
    for source, jars, prefixes in sets:
        text = lister.list(
            "\n".join(str(p) for p in jars), "\n".join(prefixes), "\n".join(TRAITS), loader
        )
        for line in text.splitlines():
            kind, name, jar, traits = line.split("\t")
            rows.append({
                "kind": kind, "name": name, "source": source, "jar": Path(jar).name,
                "traits": sorted(t.rsplit(".", 1)[-1] for t in traits.split(",") if t),
            })  # fmt: skip
    out.write_text(json.dumps(rows, indent=0))
    gateway.shutdown()


if __name__ == "__main__":
    _list(Path(sys.argv[1]))
