"""One Spark session running tests/spark/plan_scenarios.py's scenarios under the OpenLineage Spark
agent and under plumbline, for ``bench/agent_compare.py`` (which runs this file with each Spark
line's Python) and tests/spark/test_agent_events.py.

    python bench/agent_job.py WORKDIR RESULT_JSON [--pairs 3] [--scenario NAME ...]

The session starts with the agent as a user deploys it: its jar (``runtime_jars("openlineage")``,
scripts/spark-jars.toml's pin for this line) in ``spark.jars``, ``spark.extraListeners=
io.openlineage.spark.agent.OpenLineageSparkListener``, the file transport. The listener instance
Spark created is then detached from and re-attached to the listener bus
(``SparkContext.removeSparkListener`` / ``addSparkListener``), so that one session runs each job
with the agent only, with plumbline only (``plumbline.spark.enable``, file transport) and with
neither, and the three are measured in the same JVM.

1. Events: each scenario once with the agent, then once with plumbline, writing the same output
   (the scenarios overwrite it); each tool's events of that run (its file's new lines once the
   listener bus is empty, or plumbline's queue flushed) are kept per scenario.
2. Overhead: ``--pairs`` rounds; in each, every scenario runs with neither, the agent and plumbline,
   in an order that rotates from round to round; wall time and driver CPU (this Python process and
   the JVM's, from ``/proc``) until the tool's events are written.

RESULT_JSON: ``{"spark": version, "agent": version, "scenarios": {name: {"agent": [events],
"plumbline": [events]}}, "timings": {name: {mode: [[wall, cpu], ...]}}}``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "spark"))

from plan_scenarios import SCENARIOS, make_sources  # noqa: E402
from runtime_jars import runtime_jar_paths, runtime_jars  # noqa: E402

from plumbline.spark import enable  # noqa: E402

AGENT_LISTENER = "io.openlineage.spark.agent.OpenLineageSparkListener"
NAMESPACE = "bench"
MODES = ("none", "agent", "plumbline")


def agent_conf(events: Path) -> dict[str, str]:
    """The agent's settings: its jar, its listener, the file transport into ``events``."""
    return {
        "spark.jars": runtime_jars("openlineage"),
        "spark.extraListeners": AGENT_LISTENER,
        "spark.openlineage.transport.type": "file",
        "spark.openlineage.transport.location": str(events),
        "spark.openlineage.namespace": NAMESPACE,
    }


def agent_version() -> str:
    jar = runtime_jar_paths("openlineage")[0]
    return jar.stem.rsplit("-", 1)[-1]


def session(work: Path, events: Path) -> Any:
    from pyspark.sql import SparkSession

    # Python UDFs run in workers of this interpreter (Spark 4's default is the first python3 on
    # PATH, which lacks the venv's pyarrow)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("agentCompare")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", str(work / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={work}")
    )
    for key, value in agent_conf(events).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


class Agent:
    """The agent's listener instance in this session, attached or not, and its events file."""

    def __init__(self, spark: Any, events: Path) -> None:
        self.context = spark.sparkContext._jsc.sc()
        self.bus = self.context.listenerBus()
        listeners = self.bus.listeners()
        found = [listeners.get(i) for i in range(listeners.size())]
        found = [x for x in found if x.getClass().getName() == AGENT_LISTENER]
        if len(found) != 1:
            raise RuntimeError(f"the agent's listener is not registered ({len(found)} found)")
        self.listener = found[0]
        self.attached = True
        self.events = events

    def attach(self, on: bool) -> None:
        if on and not self.attached:
            self.context.addSparkListener(self.listener)
        elif not on and self.attached:
            self.context.removeSparkListener(self.listener)
        self.attached = on

    def drain(self) -> None:
        """Until every event posted so far reached the listeners (the agent writes its file
        from the listener bus's thread)."""
        self.bus.waitUntilEmpty()

    def lines(self) -> int:
        if not self.events.exists():
            return 0
        with self.events.open("rb") as handle:
            return sum(1 for _ in handle)

    def since(self, start: int) -> list[dict[str, Any]]:
        if not self.events.exists():
            return []
        with self.events.open() as handle:
            return [json.loads(line) for number, line in enumerate(handle) if number >= start]


class Cpu:
    """CPU seconds of this Python process and the driver JVM (local mode: executors included)."""

    def __init__(self, spark: Any) -> None:
        jvm = spark.sparkContext._jvm
        self.pid = int(jvm.java.lang.ProcessHandle.current().pid())
        self.tick = os.sysconf("SC_CLK_TCK")

    def __call__(self) -> float:
        stat = Path(f"/proc/{self.pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2 :].split()
        return time.process_time() + (int(fields[11]) + int(fields[12])) / self.tick


def run_once(spark: Any, scenario: Any, out: str, mode: str, agent: Agent, work: Path) -> Any:
    """Run ``scenario`` under ``mode``; returns (wall, cpu seconds, events of this run)."""
    agent.attach(mode == "agent")
    agent.drain()
    handle = None
    first = agent.lines()
    plumbline_events = work / "plumbline.jsonl"
    plumbline_events.unlink(missing_ok=True)
    if mode == "plumbline":
        handle = enable(spark, transport="file", path=str(plumbline_events), namespace=NAMESPACE)
        assert handle is not None
    cpu = Cpu(spark)
    cpu_before = cpu()
    started = time.perf_counter()
    scenario.run(spark, out)
    if handle is not None:
        handle.flush(timeout=60)
    else:
        agent.drain()
    wall = time.perf_counter() - started
    used = cpu() - cpu_before
    events: list[dict[str, Any]] = []
    if handle is not None:
        handle.disable(timeout=60)
        if plumbline_events.exists():
            events = [json.loads(x) for x in plumbline_events.read_text().splitlines() if x]
    elif mode == "agent":
        events = agent.since(first)
    return wall, used, events


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("result", type=Path)
    parser.add_argument("--pairs", type=int, default=3, help="overhead rounds (0: events only)")
    parser.add_argument("--scenario", action="append", help="only these scenarios")
    args = parser.parse_args(argv)
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    spark = session(work, work / "agent.jsonl")
    import pyspark

    agent = Agent(spark, work / "agent.jsonl")
    make_sources(spark, work)
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    result: dict[str, Any] = {
        "spark": pyspark.__version__,
        "agent": agent_version(),
        "work": str(work),
        "scenarios": {},
        "timings": {s.name: {mode: [] for mode in MODES} for s in chosen},
    }
    for scenario in chosen:
        out = str(work / "out" / scenario.name)
        found = {}
        for mode in ("agent", "plumbline"):
            found[mode] = run_once(spark, scenario, out, mode, agent, work)[2]
        result["scenarios"][scenario.name] = found
        print(f"{scenario.name}: agent {len(found['agent'])}, plumbline {len(found['plumbline'])}")
    for round_ in range(args.pairs):
        for index, scenario in enumerate(chosen):
            shift = (round_ + index) % len(MODES)
            for mode in MODES[shift:] + MODES[:shift]:
                wall, used, _ = run_once(
                    spark, scenario, str(work / "out" / scenario.name), mode, agent, work
                )
                result["timings"][scenario.name][mode].append([wall, used])
        print(f"overhead round {round_ + 1} of {args.pairs} done", flush=True)
    agent.attach(True)
    spark.stop()
    args.result.write_text(json.dumps(result))


if __name__ == "__main__":
    main()
