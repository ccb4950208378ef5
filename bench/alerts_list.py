"""``GET /api/v1/alerts`` with 100,000 alerts stored (issue 19: answers in <= 50 ms), on SQLite and
PostgreSQL, over HTTP to the real server (``python -m plumbline serve``, its own process).

The alerts are written by the store's own insert (plumbline.store.write.alerts), spread over 7
kinds, 20 namespaces and 30 days, a tenth acknowledged. Each query is asked ``--repeats`` times
after one warm-up; the median and 95th percentile of the wall time per answer are printed, with
the load average (a shared machine: compare figures taken at the same load).

    .venv/bin/python bench/alerts_list.py
    .venv/bin/python bench/alerts_list.py --alerts 20000 --backend sqlite
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import urllib.parse
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from ingest import fresh_database, server  # noqa: E402

from plumbline.store.engine import create_store_engine  # noqa: E402
from plumbline.store.schema import alerts  # noqa: E402
from plumbline.store.write.alert_rules import KINDS  # noqa: E402
from plumbline.store.write.alerts import NewAlert, insert_alerts  # noqa: E402

QUERIES = {
    "newest 100": {},
    "one kind": {"kind": "schema-drift"},
    "one namespace": {"namespace": "ns_07"},
    "unacknowledged, 3 kinds (plumbline check)": {
        "kind": "schema-drift,stopped-edge,failure-after-success",
        "acknowledged": "false",
        "limit": "10000",
    },
    "since a day ago": {"since": "DAY"},
}


# a blast radius as detection stores it: 5 nodes downstream
RADIUS = {
    "datasets": 3,
    "jobs": 2,
    "fields": 0,
    "nodes": [
        {"id": f"dataset:ns_00:down_{i}", "type": "DATASET", "distance": i} for i in range(5)
    ],
    "truncated": False,
    "error": None,
}


def fill(db_url: str, count: int) -> datetime:
    """``count`` alerts; the time the newest was seen."""
    engine = create_store_engine(db_url)
    now = datetime.now(UTC)
    with engine.begin() as conn:
        for start in range(0, count, 1000):
            found = [
                NewAlert(
                    kind=KINDS[i % len(KINDS)],
                    namespace=f"ns_{i % 20:02d}",
                    subject=f"dataset:ns_{i % 20:02d}:table_{i % 977}",
                    occurrence=str(i),
                    run_uuid=None,
                    details={"n": i},
                )
                for i in range(start, min(count, start + 1000))
            ]
            seen = now - timedelta(days=30) * (1 - start / count)
            insert_alerts(conn, found, seen)
        conn.execute(alerts.update().values(blast_radius=RADIUS))
        conn.execute(alerts.update().where(alerts.c.id % 10 == 0).values(acknowledged_at=now))
    if engine.dialect.name == "postgresql":  # as autovacuum would after the fill's updates
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM ANALYZE alerts")
    engine.dispose()
    return now


def timed(url: str, params: dict[str, str], repeats: int) -> list[float]:
    query = urllib.parse.urlencode(params)
    times = []
    for _ in range(repeats + 1):
        started = time.perf_counter()
        with urllib.request.urlopen(f"{url}/api/v1/alerts?{query}", timeout=60) as answer:
            answer.read()
            assert answer.status == 200
        times.append(1000 * (time.perf_counter() - started))
    return times[1:]  # the first warms the caches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--alerts", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), action="append")
    args = parser.parse_args()
    for backend in args.backend or ("sqlite", "postgresql"):
        with fresh_database(backend) as db_url:
            now = fill(db_url, args.alerts)
            with server(db_url) as url:
                load = "/".join(f"{v:.1f}" for v in os.getloadavg())
                print(f"{backend}, {args.alerts} alerts stored (load {load}):")
                for name, params in QUERIES.items():
                    if params.get("since") == "DAY":
                        params = {"since": (now - timedelta(days=1)).isoformat()}
                    ms = sorted(timed(url, params, args.repeats))
                    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
                    print(
                        f"  {name:<45} median {statistics.median(ms):6.1f} ms   p95 {p95:6.1f} ms"
                    )


if __name__ == "__main__":
    main()
