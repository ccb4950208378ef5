"""Slow uploads against legitimate writers (issue 28 item 6): the share of legitimate
``POST /api/v1/lineage`` requests answered 201 while an attacker opens ``--rate`` connections a
second, each declaring ``Content-Length: 10485000`` and sending 1 byte, for ``--seconds``.

The server is the real one (``python -m plumbline serve``, its own process, default settings, open
mode), started from this checkout and, with ``--before DIR``, from another source tree on a
fresh database each. The attacker connects from 127.0.0.2, the legitimate client (a batch of 20
events every ``--every`` seconds, no retry) from 127.0.0.1, so that in open mode they are two
clients. Printed per tree: legitimate POSTs answered 201 of those sent, their statuses, their
median time, and how the attacker's connections were answered (408 once the body timeout ends
them; none when they are held open).

    .venv/bin/python bench/slow_uploads.py                                  # this checkout
    git archive <commit> | tar -x -C /tmp/plumbline-before                  # an older version
    .venv/bin/python bench/slow_uploads.py --before /tmp/plumbline-before --backend postgresql
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from ingest import fresh_database, make_events, server_process  # noqa: E402

DECLARED = 10485000


def _attack(url: str, rate: float, seconds: float, answers: Counter[str]) -> None:
    """Open ``rate`` slow uploads a second for ``seconds``; then read how each was answered."""
    port = urlsplit(url).port
    head = (
        f"POST /api/v1/lineage HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {DECLARED}\r\n\r\n["
    ).encode()
    opened: list[socket.socket] = []
    started = time.monotonic()
    while (elapsed := time.monotonic() - started) < seconds:
        try:
            sock = socket.create_connection(
                ("127.0.0.1", port), timeout=5, source_address=("127.0.0.2", 0)
            )
            sock.sendall(head)
            opened.append(sock)
        except OSError:
            answers["connect failed"] += 1
        time.sleep(max(0.0, (len(opened) + 1) / rate - elapsed))
    for sock in opened:
        sock.settimeout(0.01)
        try:
            line = sock.recv(64)
            answers[line.split()[1].decode() if line.startswith(b"HTTP/") else "closed"] += 1
        except TimeoutError:
            answers["held open"] += 1
        except OSError:
            answers["reset"] += 1
        sock.close()


def _legit(url: str, every: float, seconds: float) -> list[tuple[int, float]]:
    """A batch of 20 events every ``every`` seconds: (status, seconds) each."""
    results: list[tuple[int, float]] = []
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        events = make_events(20)
        for e in events:
            e["run"]["runId"] = str(uuid.uuid4())
        body = json.dumps(events).encode()
        request = urllib.request.Request(
            f"{url}/api/v1/lineage", body, {"Content-Type": "application/json"}, method="POST"
        )
        sent = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                status = answer.status
        except urllib.error.HTTPError as exc:
            status = exc.code
        except OSError:
            status = 0
        results.append((status, time.monotonic() - sent))
        time.sleep(max(0.0, every - (time.monotonic() - sent)))
    return results


def measure(tree: Path, backend: str, rate: float, seconds: float, every: float) -> str:
    with (
        fresh_database(backend, migrate=False) as db_url,
        server_process(db_url, tree=tree) as (
            url,
            _process,
        ),
    ):
        answers: Counter[str] = Counter()
        attacker = threading.Thread(target=_attack, args=(url, rate, seconds, answers))
        attacker.start()
        time.sleep(1.0)  # the attack is under way
        results = _legit(url, every, seconds - 2.0)
        attacker.join()
    ok = sum(status == 201 for status, _ in results)
    statuses = Counter(status for status, _ in results)
    median = statistics.median(s for _, s in results)
    return (
        f"legitimate POSTs 201: {ok}/{len(results)} ({ok / len(results):.2f}); statuses "
        f"{dict(sorted(statuses.items()))}; median {median:.2f} s; attacker's "
        f"{sum(answers.values())} connections: {dict(answers.most_common())}; "
        f"load {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="another source tree to measure first")
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--rate", type=float, default=20.0, help="slow connections a second")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--every", type=float, default=1.5, help="seconds between legit POSTs")
    args = parser.parse_args()
    trees = [("before", args.before)] if args.before else []
    for name, tree in [*trees, ("this checkout", ROOT)]:
        print(f"{name} ({args.backend}): ", end="", flush=True)
        print(measure(tree, args.backend, args.rate, args.seconds, args.every), flush=True)


if __name__ == "__main__":
    main()
