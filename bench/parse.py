"""CPU per event of decoding + validating ingest bodies: the old path next to ``parse_body``.

Old path: ``json.loads`` of the body, then ``parse_event`` per event (what ingestion did before).
New path: ``parse_body`` (msgspec split, pieces validated apart and remembered by their bytes).
Events are bench/ingest.py's ``make_events`` (11 KiB RunEvents of a layered graph of 200 jobs),
sent as batch bodies of 100 events and as single-event bodies.

- cold: the piece cache is emptied before each body (what a first run of every job costs);
- warm: the cache holds an earlier pass over other runs of the same jobs (new run ids and times,
  the same job and dataset bytes): the steady state of a pipeline that runs again and again.

Figures are process CPU time (``time.process_time``) per event, the median of ``--repeats`` runs.

    .venv/bin/python bench/parse.py
    .venv/bin/python bench/parse.py --events 4000 --repeats 7
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from ingest import make_events  # noqa: E402

from plumbline.openlineage import EventValidationError, parse_body, parse_event  # noqa: E402
from plumbline.openlineage.decode import decode_json, split_batch  # noqa: E402
from plumbline.openlineage.fast import CACHE  # noqa: E402

BATCH = 100


def old_path(body: bytes) -> int:
    documents, _ = split_batch(decode_json(body))
    for document in documents:
        parse_event(document)
    return len(documents)


def new_path(body: bytes) -> int:
    parsed = parse_body(body)
    for outcome in parsed.outcomes:
        if isinstance(outcome, EventValidationError):
            raise outcome
    return len(parsed.outcomes)


def new_path_cold(body: bytes) -> int:
    CACHE.clear()
    return new_path(body)


def bodies(events: list[dict], batched: bool) -> list[bytes]:
    if batched:
        return [json.dumps(events[i : i + BATCH]).encode() for i in range(0, len(events), BATCH)]
    return [json.dumps(event).encode() for event in events]


def per_event_ms(run: Callable[[bytes], int], payloads: list[bytes], repeats: int) -> float:
    """Median over ``repeats`` of the CPU milliseconds per event of ``run`` over ``payloads``."""
    figures = []
    for _ in range(repeats):
        start = time.process_time()
        count = sum(run(body) for body in payloads)
        figures.append((time.process_time() - start) * 1000 / count)
    return statistics.median(figures)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=2000, help="events per measurement")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    warmup, measured = make_events(args.events), make_events(args.events)
    size = statistics.mean(len(json.dumps(e)) for e in measured)
    print(f"{args.events} events of {size / 1024:.1f} KiB on average, median of {args.repeats}")
    print(
        f"{'body':<14}{'old ms/event':>14}{'new cold':>12}{'new warm':>12}{'old/cold':>10}{'old/warm':>10}"
    )
    for batched in (True, False):
        payloads = bodies(measured, batched)
        old = per_event_ms(old_path, payloads, args.repeats)
        cold = per_event_ms(new_path_cold, payloads, args.repeats)
        CACHE.clear()
        for body in bodies(warmup, batched):
            new_path(body)
        warm = per_event_ms(new_path, payloads, args.repeats)
        label = f"batch of {BATCH}" if batched else "single"
        print(
            f"{label:<14}{old:>14.3f}{cold:>12.3f}{warm:>12.3f}{old / cold:>10.1f}{old / warm:>10.1f}"
        )
    print(f"cache after the warm pass: {len(CACHE)} pieces, {CACHE.size / 2**20:.1f} MiB counted")
    print()
    print("DatasetEvents and JobEvents (the slow path: parse_event on the decoded event), per body")
    print(f"{'body':<22}{'walk ms/event':>15}{'bytes first':>13}{'walk/bytes':>12}")
    for kind, converted in (("DatasetEvent", dataset_events), ("JobEvent", job_events)):
        for batched in (True, False):
            payloads = bodies(converted(measured), batched)
            walked = per_event_ms(slow_walk, payloads, args.repeats)
            checked = per_event_ms(new_path, payloads, args.repeats)
            label = f"{kind} {'x' + str(BATCH) if batched else 'single'}"
            print(f"{label:<22}{walked:>15.3f}{checked:>13.3f}{walked / checked:>12.2f}")
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def dataset_events(events: list[dict]) -> list[dict]:
    """Each RunEvent's output as a DatasetEvent (schema and column lineage facets)."""
    return [
        {
            "eventTime": e["eventTime"],
            "producer": e["producer"],
            "schemaURL": e["schemaURL"].replace("RunEvent", "DatasetEvent"),
            "dataset": e["outputs"][0],
        }
        for e in events
    ]


def job_events(events: list[dict]) -> list[dict]:
    """Each RunEvent as a JobEvent: its job, inputs and outputs, no run."""
    return [
        {
            "eventTime": e["eventTime"],
            "producer": e["producer"],
            "schemaURL": e["schemaURL"].replace("RunEvent", "JobEvent"),
            "job": e["job"],
            "inputs": e["inputs"],
            "outputs": e["outputs"],
        }
        for e in events
    ]


def slow_walk(body: bytes) -> int:
    """The slow path as it was: each decoded event walked for the limits (no bytes given)."""
    documents, _ = split_batch(decode_json(body))
    for document in documents:
        parse_event(document)
    return len(documents)


if __name__ == "__main__":
    main()
