"""Peak memory of ingestion: the server's peak RSS for one maximum (10 MiB) batch and for 4 and 8
such batches posted at once, this checkout beside another (``--before``), on SQLite or PostgreSQL.

The server is the real one (``python -m plumbline serve``, its own process, default settings),
started from each source tree in turn on a fresh database. Its peak RSS, until every event is
normalized (the writer's caches fill then), is read from
``/proc/PID/status`` (``VmHWM``, reset through ``/proc/PID/clear_refs`` before each scenario) and
printed as MiB over the RSS it had before the scenario, and as a multiple of the bytes posted.
The absolute peak (``VmHWM``, base included) is printed too, to compare with the bound
docs/reference.md ("Ingestion memory") states, and the server's CPU seconds (which move far less
with the machine's load than wall time). Clients honour ``503`` + ``Retry-After`` (the
ingestion memory budget's backpressure) and post again until every batch is accepted: the
figures say how many 503s that took and how long. ``--in-turn N`` adds a scenario of the same
N batches posted one after another by one client (what N at once is compared with).
Events are bench/ingest.py's (a Spark action's shape, 20-field schema, column lineage).

    .venv/bin/python bench/ingest_memory.py                         # this checkout only
    git worktree add /tmp/plumbline-before <commit>                 # an older version
    .venv/bin/python bench/ingest_memory.py --before /tmp/plumbline-before --backend postgresql
    .venv/bin/python bench/ingest_memory.py --at-once 1 4 8 --in-turn 8

The load average is printed with every figure: compare versions in one run, not across runs.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from ingest import fresh_database, make_events, server_process, wait_normalized  # noqa: E402

MIB = 1024 * 1024
MAX_BODY = 10 * MIB  # the server's default --max-body-bytes


def max_batch(client: int) -> bytes:
    """A JSON array of events as close to the default body limit as whole events allow. Every
    run's dataset names are its own (``client`` apart), so no two events share a parsed piece:
    the worst case for the parser's memo of pieces."""
    pieces, size = [], 2
    for event in make_events(4000):
        suffix = f"_{client}_{event['run']['runId'][:8]}"
        for dataset in (*event["inputs"], *event["outputs"]):
            dataset["name"] += suffix
        for field in event["outputs"][0]["facets"]["columnLineage"]["fields"].values():
            for source in field["inputFields"]:
                source["name"] += suffix
        piece = json.dumps(event).encode()
        if size + len(piece) + 1 > MAX_BODY:
            break
        pieces.append(piece)
        size += len(piece) + 1
    return b"[" + b",".join(pieces) + b"]"


def _status(pid: int, key: str) -> int:
    """A ``kB`` figure of /proc/PID/status, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def _cpu_seconds(pid: int) -> float:
    """The process's CPU time (user + system) so far: it moves far less with the machine's
    load than wall time (on PostgreSQL, the database's own backends are not counted)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _reset_peak(pid: int) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM := VmRSS


@contextmanager
def server(tree: Path, db_url: str) -> Iterator[tuple[str, int]]:
    """The server of source tree ``tree`` in its own process: (base URL, pid)."""
    with server_process(db_url, tree=tree) as (url, process):
        yield url, process.pid


@dataclass
class Posted:
    """What posting one body took: the 503s answered before it was accepted, and its status."""

    refusals: int = 0
    status: int = 0


def post(url: str, body: bytes, posted: Posted) -> None:
    """POST ``body`` until it is not refused with 503 (waiting Retry-After seconds between)."""
    parts = urllib.parse.urlsplit(url)
    while True:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
        connection.request("POST", "/api/v1/lineage", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        connection.close()
        if response.status != 503:
            posted.status = response.status
            return
        posted.refusals += 1
        time.sleep(float(response.getheader("Retry-After") or "1"))


@dataclass
class Figure:
    peak_mib: float  # peak RSS over the RSS before the scenario
    absolute_mib: float  # peak RSS (VmHWM), the server's base included
    per_byte: float  # that, per byte posted at once
    resident_after_mib: float  # RSS over the start, once the scenario is done
    refusals: int
    seconds: float  # until every batch was accepted
    normalized: float  # until every event was in the lineage tables
    cpu: float  # the server's CPU seconds meanwhile
    load: str


def in_turn(url: str, bodies: list[bytes], results: list[Posted]) -> None:
    """POST ``bodies`` one after another, each once the one before is accepted."""
    for body, posted in zip(bodies, results, strict=True):
        post(url, body, posted)


def scenario(url: str, pid: int, bodies: list[bytes], db_url: str, at_once: bool = True) -> Figure:
    """Post ``bodies`` at once, one client each (else one after another, ``at_once`` False);
    the server's peak RSS meanwhile and until its normalizer has written them into the lineage
    tables (where the writer's caches fill)."""
    time.sleep(1.0)
    _reset_peak(pid)
    before = _status(pid, "VmRSS")
    cpu = _cpu_seconds(pid)
    results = [Posted() for _ in bodies]
    threads = (
        [
            threading.Thread(target=post, args=(url, body, r))
            for body, r in zip(bodies, results, strict=True)
        ]
        if at_once
        else [threading.Thread(target=in_turn, args=(url, bodies, results))]
    )
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.monotonic() - started
    assert all(r.status == 201 for r in results), [r.status for r in results]
    wait_normalized(db_url)
    normalized = time.monotonic() - started
    cpu = _cpu_seconds(pid) - cpu
    highest = _status(pid, "VmHWM")
    peak = highest - before
    time.sleep(2.0)
    after = _status(pid, "VmRSS") - before
    return Figure(
        peak / MIB,
        highest / MIB,
        peak / sum(len(body) for body in bodies),
        after / MIB,
        sum(r.refusals for r in results),
        seconds,
        normalized,
        cpu,
        " ".join(f"{x:.1f}" for x in os.getloadavg()),
    )


SCENARIOS = {1: "1 batch", 4: "4 at once", 8: "8 at once", 16: "16 at once", 32: "32 at once"}


def scenario_names(at_once: list[int], in_turn: int) -> list[str]:
    return [SCENARIOS[n] for n in at_once] + ([f"{in_turn} in turn"] if in_turn else [])


def measure(
    tree: Path, backend: str, bodies: list[bytes], scenarios: list[int], in_turn: int
) -> dict[str, Figure]:
    """Each scenario on its own server (a fresh process: what one left resident is not counted
    in the next)."""
    figures: dict[str, Figure] = {}
    runs = [(SCENARIOS[n], bodies[:1] if n == 1 else bodies[1 : n + 1], True) for n in scenarios]
    if in_turn:
        runs.append((f"{in_turn} in turn", bodies[1 : in_turn + 1], False))
    for name, posted, at_once in runs:
        with fresh_database(backend, migrate=False) as db_url, server(tree, db_url) as (url, pid):
            figures[name] = scenario(url, pid, posted, db_url, at_once)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="another source tree to measure beside")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument(
        "--at-once",
        type=int,
        nargs="+",
        choices=sorted(SCENARIOS),
        default=[1, 4, 8],
        help="which scenarios: batches posted at once (default 1 4 8)",
    )
    parser.add_argument(
        "--in-turn",
        type=int,
        default=0,
        choices=range(33),
        metavar="N",
        help="also post N batches one after another (up to 32; default none)",
    )
    args = parser.parse_args()
    bodies = [max_batch(client) for client in range(1 + max([*args.at_once, args.in_turn]))]
    body = bodies[0]
    print(f"batch: {len(body) / MIB:.2f} MiB, {body.count(b'schemaURL')} events; {args.backend}")
    trees = {"after": ROOT} if args.before is None else {"before": args.before, "after": ROOT}
    results = {
        name: measure(tree, args.backend, bodies, args.at_once, args.in_turn)
        for name, tree in trees.items()
    }
    print(
        f"{'scenario':<10} {'version':<7} {'peak MiB':>9} {'VmHWM':>7} {'x posted':>9} "
        f"{'kept MiB':>9} {'503s':>5} {'seconds':>8} {'normalized':>10} {'cpu s':>6}  load"
    )
    for name in scenario_names(args.at_once, args.in_turn):
        for version, figures in results.items():
            f = figures[name]
            print(
                f"{name:<10} {version:<7} {f.peak_mib:>9.1f} {f.absolute_mib:>7.1f} "
                f"{f.per_byte:>9.1f} {f.resident_after_mib:>9.1f} {f.refusals:>5} "
                f"{f.seconds:>8.1f} {f.normalized:>10.1f} {f.cpu:>6.1f}  {f.load}",
                flush=True,
            )
        if "before" in results:
            ratio = results["after"][name].peak_mib / max(results["before"][name].peak_mib, 0.1)
            print(f"{name:<10} after/before peak: {ratio:.2f}")


if __name__ == "__main__":
    main()
