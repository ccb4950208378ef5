"""plumbline beside the OpenLineage Spark agent (issue 26 §3): the same jobs, both tools, compared.

    .venv/bin/python bench/agent_compare.py                       # both Spark lines, 3 rounds
    .venv/bin/python bench/agent_compare.py --line 3.5 --pairs 5
    .venv/bin/python bench/agent_compare.py --results /tmp/a35.json /tmp/a43.json   # no Spark

For each Spark line (``.venv``: 3.5, ``.venv-spark4``: 4.3) ``bench/agent_job.py`` runs every
scenario of tests/spark/plan_scenarios.py in one local session, once under the agent
(``io.openlineage:openlineage-spark``, the pin of scripts/spark-jars.toml, registered by
``spark.extraListeners``, file transport) and once under plumbline (file transport), then
``--pairs`` interleaved rounds of (neither, agent, plumbline) for the overhead. Printed per
scenario:

- datasets: the inputs and outputs of the run's events, equal or only one side's;
- column edges, read as plumbline's server reads them (an entry of the facet's dataset-wide
  ``dataset`` list is an INDIRECT input of every field of that output): agreed (same output field,
  input dataset and field), of which with other transformation subtypes, only the agent's, only
  plumbline's;
- versions named: the datasets with a ``version`` facet (DatasetVersionDatasetFacet), each side;
- overhead: medians over the rounds of wall time and driver CPU (Python + JVM) with the tool over
  without, each tool.

Then every difference, edge by edge (``--details``: all; default: the first 6 per scenario).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LINES = {"3.5": ROOT / ".venv" / "bin" / "python", "4.3": ROOT / ".venv-spark4" / "bin" / "python"}

Edge = tuple[str, str, str, str]  # output dataset, output field, input dataset, input field


def run_line(line: str, pairs: int, scenarios: list[str]) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix=f"plumbline-agent-{line}-"))
    result = work / "result.json"
    command = [str(LINES[line]), str(ROOT / "bench" / "agent_job.py"), str(work), str(result)]
    command += ["--pairs", str(pairs)]
    for name in scenarios:
        command += ["--scenario", name]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(command, check=True, env=env, cwd=ROOT, stdout=sys.stderr)
    return dict(json.loads(result.read_text()))


def short(name: str, work: str) -> str:
    return name.removeprefix(work).lstrip("/") or name


def datasets(events: list[dict[str, Any]], work: str) -> set[str]:
    found = set()
    for event in events:
        for side in ("inputs", "outputs"):
            for dataset in event.get(side) or []:
                found.add(f"{side[:-1]} {dataset['namespace']}:{short(dataset['name'], work)}")
    return found


def edges(events: list[dict[str, Any]], work: str) -> tuple[dict[Edge, set[str]], int]:
    """Column edges -> their transformations (``TYPE/SUBTYPE``), and how many dataset-wide
    entries the facets held."""
    found: dict[Edge, set[str]] = defaultdict(set)
    dataset_wide = set()
    for event in events:
        for output in event.get("outputs") or []:
            facets = output.get("facets") or {}
            lineage = facets.get("columnLineage") or {}
            target = short(output["name"], work)
            schema = [f["name"] for f in (facets.get("schema") or {}).get("fields") or []]
            fields = lineage.get("fields") or {}
            for field, spec in fields.items():
                for source in spec.get("inputFields") or []:
                    key = (target, field, short(source["name"], work), source["field"])
                    found[key] |= transformations(source)
            wide = lineage.get("dataset") or []
            for source in wide:
                dataset_wide.add((target, short(source["name"], work), source["field"]))
                for field in schema or list(fields):
                    key = (target, field, short(source["name"], work), source["field"])
                    found[key] |= transformations(source)
    return dict(found), len(dataset_wide)


def transformations(source: dict[str, Any]) -> set[str]:
    found = {
        f"{t.get('type')}/{t.get('subtype') or '-'}" for t in source.get("transformations") or []
    }
    return found or {"(none)"}


def versions(events: list[dict[str, Any]], work: str) -> set[str]:
    found = set()
    for event in events:
        for side in ("inputs", "outputs"):
            for dataset in event.get(side) or []:
                version = (dataset.get("facets") or {}).get("version") or {}
                if version.get("datasetVersion") is not None:
                    found.add(f"{short(dataset['name'], work)}@{version['datasetVersion']}")
    return found


def median_ratio(timings: dict[str, list[list[float]]], mode: str, column: int) -> float | None:
    pairs = zip(timings[mode], timings["none"], strict=False)
    ratios = [tool[column] / none[column] for tool, none in pairs if none[column] > 0]
    return statistics.median(ratios) if ratios else None


def fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def compare(result: dict[str, Any], details: int | None) -> dict[str, Any]:
    work = result["work"]
    print(
        f"\nSpark {result['spark']}, OpenLineage agent {result['agent']} (file transport) "
        f"beside plumbline; overhead: medians over {len(next(iter(result['timings'].values()))['none'])} "
        "interleaved rounds, tool / neither"
    )
    header = (
        f"{'scenario':<28}{'datasets':>10}{'agreed':>8}{'(subtype':>9}{'only':>6}{'only':>6}"
        f"{'versions':>10}{'wall':>7}{'wall':>7}{'cpu':>7}{'cpu':>7}"
    )
    print(header)
    print(
        f"{'':<28}{'':>10}{'edges':>8}{'differs)':>9}{'agent':>6}{'plumb':>6}{'agent/pl':>10}"
        f"{'agent':>7}{'plumb':>7}{'agent':>7}{'plumb':>7}"
    )
    differences: list[str] = []
    totals: dict[str, int] = defaultdict(int)
    all_ratios: dict[str, list[float]] = defaultdict(list)
    for name, found in result["scenarios"].items():
        agent, ours = found["agent"], found["plumbline"]
        a_sets, p_sets = datasets(agent, work), datasets(ours, work)
        a_edges, a_wide = edges(agent, work)
        p_edges, p_wide = edges(ours, work)
        agreed = set(a_edges) & set(p_edges)
        subtype = {k for k in agreed if a_edges[k] != p_edges[k]}
        only_a, only_p = set(a_edges) - set(p_edges), set(p_edges) - set(a_edges)
        a_versions, p_versions = versions(agent, work), versions(ours, work)
        timings = result["timings"][name]
        ratios = {
            (mode, column): median_ratio(timings, mode, column)
            for mode in ("agent", "plumbline")
            for column in (0, 1)
        }
        for mode in ("agent", "plumbline"):
            for column, label in ((0, "wall"), (1, "cpu")):
                pairs = zip(timings[mode], timings["none"], strict=False)
                all_ratios[f"{mode} {label}"] += [t[column] / n[column] for t, n in pairs]
        same = "equal" if a_sets == p_sets else f"{len(a_sets - p_sets)}a/{len(p_sets - a_sets)}p"
        print(
            f"{name:<28}{same:>10}{len(agreed):>8}{len(subtype):>9}{len(only_a):>6}"
            f"{len(only_p):>6}{f'{len(a_versions)}/{len(p_versions)}':>10}"
            f"{fmt(ratios['agent', 0]):>7}{fmt(ratios['plumbline', 0]):>7}"
            f"{fmt(ratios['agent', 1]):>7}{fmt(ratios['plumbline', 1]):>7}"
        )
        totals["scenarios"] += 1
        totals["datasets equal"] += a_sets == p_sets
        totals["agreed"] += len(agreed)
        totals["subtype differs"] += len(subtype)
        totals["only agent"] += len(only_a)
        totals["only plumbline"] += len(only_p)
        totals["agent dataset-wide entries"] += a_wide
        totals["plumbline dataset-wide entries"] += p_wide
        lines = []
        for item in sorted(a_sets - p_sets):
            lines.append(f"dataset only agent: {item}")
        for item in sorted(p_sets - a_sets):
            lines.append(f"dataset only plumbline: {item}")
        for key in sorted(subtype):
            lines.append(
                f"subtype: {edge_text(key)}  agent {sorted(a_edges[key])} plumbline "
                f"{sorted(p_edges[key])}"
            )
        for key in sorted(only_a):
            lines.append(f"only agent: {edge_text(key)} {sorted(a_edges[key])}")
        for key in sorted(only_p):
            lines.append(f"only plumbline: {edge_text(key)} {sorted(p_edges[key])}")
        if a_versions or p_versions:
            lines.append(f"versions: agent {sorted(a_versions)} plumbline {sorted(p_versions)}")
        if lines:
            shown = lines if details is None else lines[:details]
            more = len(lines) - len(shown)
            differences.append(
                f"{name}:\n    " + "\n    ".join(shown) + (f"\n    … {more} more" if more else "")
            )
    print(
        "all: " + ", ".join(f"{key} {value}" for key, value in totals.items()) + "; overhead "
        "(median of every scenario and round, tool / neither): "
        + ", ".join(
            f"{key} {statistics.median(values):.2f}" for key, values in all_ratios.items() if values
        )
    )
    print("\ndifferences (dataset paths relative to the job's work folder)")
    print("\n".join(differences) or "none")
    return dict(totals)


def edge_text(edge: Edge) -> str:
    target, field, source, source_field = edge
    return f"{target}.{field} <- {source}.{source_field}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--line", choices=sorted(LINES), action="append", help="default both")
    parser.add_argument("--pairs", type=int, default=3, help="interleaved overhead rounds")
    parser.add_argument("--scenario", action="append", default=[], help="only these")
    parser.add_argument("--results", nargs="+", type=Path, help="agent_job.py results to compare")
    parser.add_argument("--details", type=int, default=6, help="differences shown per scenario")
    parser.add_argument("--all-details", action="store_true", help="every difference")
    args = parser.parse_args(argv)
    details = None if args.all_details else args.details
    if args.results:
        results = [json.loads(path.read_text()) for path in args.results]
    else:
        results = [run_line(line, args.pairs, args.scenario) for line in args.line or sorted(LINES)]
    for result in results:
        compare(result, details)


if __name__ == "__main__":
    main()
