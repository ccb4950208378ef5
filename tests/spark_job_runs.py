"""The format and stream suites run one Spark job in a subprocess and read the events it captured:
the runner and the readers of those events they share."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from runtime_jars import ROOT, runtime_jar_paths


def needs_jars(jar_set: str, missing: str) -> None:
    """Skip the calling fixture when this Spark line has no `jar_set` pinned (`missing` says what)."""
    try:
        runtime_jar_paths(jar_set)
    except LookupError as exc:
        pytest.skip(f"{missing}: {exc}")


def run_job(job: Path, work: Path, *args: str) -> tuple[list[dict[str, Any]], str]:
    """Run `job WORK EVENTS ARGS…` on this interpreter; its events and its stderr."""
    events = work / "events.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, str(job), str(work), str(events), *args],
        capture_output=True, text=True, timeout=900, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    lines = events.read_text().splitlines()
    return [json.loads(line) for line in lines if line], done.stderr


def dataset_version(dataset: dict[str, Any]) -> str | None:
    return dataset["facets"].get("version", {}).get("datasetVersion")


def lifecycle(dataset: dict[str, Any]) -> str | None:
    return dataset["facets"].get("lifecycleStateChange", {}).get("lifecycleStateChange")


def lineage_by_tail(dataset: dict[str, Any]) -> dict[str, dict[str, set[str]]]:
    """{output field: {"<input name tail>.<field>": {"DIRECT:IDENTITY", ...}}}, plus "*" for the
    dataset-wide dependencies."""
    facet = dataset["facets"].get("columnLineage")
    if facet is None:
        return {}

    def edges(fields: list[dict[str, Any]]) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for f in fields:
            key = f"{f['name'].rsplit('/', 1)[-1]}.{f['field']}"
            found.setdefault(key, set()).update(
                f"{t['type']}:{t['subtype']}" for t in f["transformations"]
            )
        return found

    result = {k: edges(v["inputFields"]) for k, v in facet["fields"].items()}
    if facet.get("dataset"):
        result["*"] = edges(facet["dataset"])
    return result
