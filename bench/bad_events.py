"""Rejected events' cost (issue 28 item 1): one valid event followed by N ``{}`` elements posted
to the real server, this checkout beside another (``--before``), on SQLite or PostgreSQL.

For each N (default 100,000 and 1,000,000: a 0.3 and a 3 MB body) it prints the status, the
seconds until the answer, the answer's size, the server's peak RSS over its RSS before the
request (``VmHWM`` reset through ``/proc/PID/clear_refs``), the absolute peak (to compare with
the documented bound, docs/reference.md "Ingestion memory") and the RSS kept afterwards. Each
version and size runs on a fresh server process and database.

    .venv/bin/python bench/bad_events.py
    git worktree add /tmp/plumbline-before <commit>
    .venv/bin/python bench/bad_events.py --before /tmp/plumbline-before --sizes 100000 1000000

The load average is printed with every figure: compare versions in one run, not across runs.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from ingest import fresh_database, make_events  # noqa: E402
from ingest_memory import MIB, _reset_peak, _status, server  # noqa: E402


def body(junk: int) -> bytes:
    """One valid event, then ``junk`` empty objects."""
    valid = json.dumps(make_events(2)[1]).encode()
    return b"[" + valid + b",{}" * junk + b"]"


@dataclass
class Figure:
    status: int
    seconds: float
    answer_bytes: int
    peak_mib: float
    absolute_mib: float
    kept_mib: float
    load: str


def post(url: str, content: bytes) -> tuple[int, int]:
    """(status, answer bytes) of one POST."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=1200)
    connection.request("POST", "/api/v1/lineage", content, {"Content-Type": "application/json"})
    response = connection.getresponse()
    answer = response.read()
    connection.close()
    return response.status, len(answer)


def measure(tree: Path, backend: str, content: bytes) -> Figure:
    with fresh_database(backend, migrate=False) as db_url, server(tree, db_url) as (url, pid):
        time.sleep(1.0)
        _reset_peak(pid)
        before = _status(pid, "VmRSS")
        started = time.monotonic()
        status, size = post(url, content)
        seconds = time.monotonic() - started
        highest = _status(pid, "VmHWM")
        time.sleep(2.0)
        kept = _status(pid, "VmRSS") - before
        return Figure(
            status,
            seconds,
            size,
            (highest - before) / MIB,
            highest / MIB,
            kept / MIB,
            " ".join(f"{x:.1f}" for x in os.getloadavg()),
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="another source tree to measure beside")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    args = parser.parse_args()
    trees = {"after": ROOT} if args.before is None else {"before": args.before, "after": ROOT}
    print(
        f"{'junk':>9} {'body MB':>8} {'version':<7} {'status':>6} {'seconds':>8} "
        f"{'answer':>11} {'peak MiB':>9} {'VmHWM':>7} {'kept MiB':>9}  load"
    )
    for junk in args.sizes:
        content = body(junk)
        for version, tree in trees.items():
            f = measure(tree, args.backend, content)
            print(
                f"{junk:>9,} {len(content) / 1e6:>8.1f} {version:<7} {f.status:>6} "
                f"{f.seconds:>8.1f} {f.answer_bytes:>11,} {f.peak_mib:>9.1f} "
                f"{f.absolute_mib:>7.1f} {f.kept_mib:>9.1f}  {f.load}",
                flush=True,
            )


if __name__ == "__main__":
    main()
