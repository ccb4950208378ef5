"""plumbline beside Data.Rentgen (issue 30: every target there is a ratio to it), one command.

    .venv/bin/python bench/rentgen_compare.py                       # 3,000 and 30,000 events
    .venv/bin/python bench/rentgen_compare.py --sizes 3000 --rounds 3
    .venv/bin/python bench/rentgen_compare.py --rentgen 0.4.8 --rentgen 0.7.2 --mode direct

Both tools get the same synthetic events, ``bench/ingest_scale.py``'s generator (3 inputs + 1
output, 20 fields with column lineage from each input, START and COMPLETE per run, 200 jobs
running again and again): only the run ids differ from that script's, UUIDv7 at the run's start
time instead of UUIDv4, because Data.Rentgen rejects any other run id (it partitions its run,
operation, input, output and column-lineage tables by the time in the id). plumbline accepts both.

Data.Rentgen runs in its own throwaway virtualenv outside the repo
(``~/.cache/plumbline/bench-venvs/rentgen-VERSION``, created on first use: ``pip install
data-rentgen[consumer,server,postgres]==VERSION``; 0.4.8 asks for Python 3.12 and is installed on this
Python 3.11 with ``--ignore-requires-python``, newer releases need a real 3.12, taken from
``--python312`` or pyenv). Each measurement gets a fresh PostgreSQL database on the local server
(``bench/ingest.py``'s ``fresh_database``): Data.Rentgen's is migrated by its own alembic
migrations (``python -m data_rentgen.db.migrations upgrade head``) and given its January 2026
partitions (``python -m data_rentgen.db.scripts.create_partitions``), and its consumer
(``bench/rentgen_consumer.py``, wired by Data.Rentgen's ``broker_factory``) is driven through
FastStream's in-memory Kafka test broker, one ``publish_batch`` per batch of 100. plumbline is
``bench/ingest_scale.py``'s measurement: batches of 100 posted to the real server by
``--clients`` clients until normalized (``--mode direct``: its write path in-process, batches of
100 one after the other, like the consumer).

Rounds are interleaved (plumbline, then each Data.Rentgen version, the order reversed every other
round) on fresh databases; per tool and size the medians of: events per second until normalized
(plumbline) / consumed (Data.Rentgen: the subscriber has committed the last batch), CPU per event
of the process (server or consumer) and of the database's PostgreSQL backends (``/proc``), disk
growth (all tables with indexes and TOAST; plumbline also without its raw events,
``lineage_events``: Data.Rentgen keeps none, Kafka holds them). Then the ratios plumbline /
Data.Rentgen.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from ingest import _load, fresh_database  # noqa: E402
from ingest_scale import (  # noqa: E402
    START,
    BackendCpu,
    EventSource,
    Result,
    direct,
    over_http,
    table_bytes,
)

from plumbline.store.engine import create_store_engine  # noqa: E402

VENVS = Path.home() / ".cache" / "plumbline" / "bench-venvs"
CONSUMER = ROOT / "bench" / "rentgen_consumer.py"
DEFAULT_VERSIONS = ("0.4.8", "0.7.2")
RAW_TABLES = ("lineage_events",)


def uuid7(moment: datetime) -> str:
    """A UUIDv7 (RFC 9562) whose time is ``moment``: 48 bits of milliseconds, version 7, 12 + 62
    random bits."""
    millis = int(moment.timestamp() * 1000)
    value = (millis << 80) | (0x7 << 76) | (random.getrandbits(12) << 64)
    value |= (0b10 << 62) | random.getrandbits(62)
    return str(uuid.UUID(int=value))


class V7EventSource(EventSource):
    """``bench/ingest_scale.py``'s events, with each run's id a UUIDv7 at its start time."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.run_ids = [uuid7(START + timedelta(seconds=2 * run)) for run in range(count // 2)]


@dataclass
class Figures:
    tool: str
    size: int
    rate: float
    process_ms: float
    db_ms: float
    grown: int
    grown_without_raw: int

    @property
    def cpu_ms(self) -> float:
        return self.process_ms + self.db_ms


# -- Data.Rentgen ------------------------------------------------------------------------------


def python312(explicit: str | None) -> str:
    if explicit:
        return explicit
    found = shutil.which("python3.12")
    pyenv = Path.home() / ".pyenv" / "versions"
    if pyenv.is_dir():
        for candidate in sorted(pyenv.glob("3.12*/bin/python3.12"), reverse=True):
            return str(candidate)
    if found:
        return found
    raise SystemExit("Data.Rentgen after 0.4.8 needs Python 3.12: pass --python312")


def rentgen_venv(version: str, py312: str | None) -> Path:
    """Data.Rentgen ``version``'s virtualenv, created and installed on first use."""
    venv = VENVS / f"rentgen-{version}"
    python = venv / "bin" / "python"
    if python.exists():
        check = f"import fastapi, faststream, asyncpg, data_rentgen; assert data_rentgen.__version__ == {version!r}"
        if subprocess.run([python, "-c", check], capture_output=True).returncode == 0:
            return venv
    venv.parent.mkdir(parents=True, exist_ok=True)
    old = version == "0.4.8"  # runs on 3.11 although it asks for 3.12 (issue 30)
    base = sys.executable if old else python312(py312)
    print(f"creating {venv} (Python {base})", flush=True)
    subprocess.run([base, "-m", "venv", "--clear", venv], check=True)
    subprocess.run(
        [
            *(venv / "bin" / "pip", "install", "-q"),
            f"data-rentgen[consumer,server,postgres]=={version}",
            *(("--ignore-requires-python",) if old else ()),
        ],
        check=True,
    )
    return venv


def rentgen_env(db_url: str) -> dict[str, str]:
    # 0.7 insists on a password in the URL; the local server trusts 127.0.0.1 and ignores it
    url = sa.make_url(db_url).set(drivername="postgresql+asyncpg", password="unused")
    return {
        **os.environ,
        "DATA_RENTGEN__DATABASE__URL": url.render_as_string(hide_password=False),
        "DATA_RENTGEN__KAFKA__BOOTSTRAP_SERVERS": '["127.0.0.1:9"]',  # never dialled: test broker
        "DATA_RENTGEN__LOGGING__SETUP": "false",  # the presets need the server extra
        "PYTHONPATH": "",
    }


def rentgen_setup(venv: Path, env: dict[str, str]) -> None:
    """Data.Rentgen's own migrations, then its partitions for the events' month."""
    python = str(venv / "bin" / "python")
    for command in (
        ["-m", "data_rentgen.db.migrations", "upgrade", "head"],
        [
            *("-m", "data_rentgen.db.scripts.create_partitions"),
            *("--start", "2026-01-01", "--end", "2026-02-01"),
        ],
    ):
        done = subprocess.run([python, *command], env=env, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")


def database_bytes(db_url: str) -> dict[str, int]:
    """Every table and materialized view of the database: bytes with indexes and TOAST."""
    engine = sa.create_engine(db_url)
    with engine.connect() as connection:
        rows = connection.execute(
            sa.text(
                "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'm')"
            )
        ).all()
    engine.dispose()
    return {name: int(size) for name, size in rows}


def count_rows(db_url: str, table: str) -> int:
    engine = sa.create_engine(db_url)
    with engine.connect() as connection:
        found = connection.execute(
            sa.select(sa.func.count()).select_from(sa.table(table))
        ).scalar_one()
    engine.dispose()
    return int(found)


def measure_rentgen(version: str, venv: Path, size: int) -> Figures:
    source = V7EventSource(size)
    with fresh_database("postgresql", migrate=False) as db_url:
        env = rentgen_env(db_url)
        rentgen_setup(venv, env)
        empty = database_bytes(db_url)
        cpu = BackendCpu(db_url)
        consumer = subprocess.Popen(
            [str(venv / "bin" / "python"), str(CONSUMER)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=False,
        )
        assert consumer.stdin is not None and consumer.stdout is not None
        try:
            line = consumer.stdout.readline()
            if line.strip() != b"ready":
                raise RuntimeError(f"Data.Rentgen's consumer did not start: {line!r}")
            cpu.start()
            started = time.perf_counter()
            for start in range(0, size, 100):
                batch = source.batch(start)
                consumer.stdin.write(f"{len(batch)}\n{chr(10).join(batch)}\n".encode())
            consumer.stdin.close()
            report = json.loads(consumer.stdout.readline())
            elapsed = time.perf_counter() - started
            db_seconds = cpu.stop() or 0.0
        finally:
            consumer.wait(60)
        if report["malformed"]:
            raise RuntimeError(f"Data.Rentgen rejected {report['malformed']} events as malformed")
        runs = count_rows(db_url, "run")
        assert runs == size // 2, f"Data.Rentgen stored {runs} runs, {size // 2} expected"
        lineage = count_rows(db_url, "column_lineage")
        assert lineage, "Data.Rentgen stored no column lineage"
        after = database_bytes(db_url)
    grown = sum(after.values()) - sum(empty.values())
    return Figures(
        f"rentgen {version}",
        size,
        size / elapsed,
        1000 * report["cpu"] / size,
        1000 * db_seconds / size,
        grown,
        grown,
    )


# -- plumbline ---------------------------------------------------------------------------------


def measure_plumbline(size: int, mode: str, clients: int) -> Figures:
    source = V7EventSource(size)
    result = Result("postgresql", size, mode)
    with fresh_database("postgresql") as db_url:
        engine = create_store_engine(db_url)
        empty = table_bytes(engine)
        engine.dispose()
        if mode == "http":
            over_http(db_url, source, clients, result)
        else:
            direct(db_url, source, result)
        engine = create_store_engine(db_url)
        after = table_bytes(engine)
        engine.dispose()
        runs = count_rows(db_url, "runs")
        if runs != size // 2:
            engine = sa.create_engine(db_url)
            with engine.connect() as connection:
                failed = connection.execute(
                    sa.text(
                        "SELECT count(*), min(error) FROM pending_events "
                        "WHERE failed_at IS NOT NULL"
                    )
                ).one()
            engine.dispose()
            raise AssertionError(
                f"plumbline stored {runs} runs, {size // 2} expected; failed events: {failed[0]}, "
                f"e.g. {failed[1]}"
            )
    grown = {name: after[name] - empty.get(name, 0) for name in after}
    total = sum(grown.values())
    raw = sum(grown.get(name, 0) for name in RAW_TABLES)
    return Figures(
        f"plumbline {mode}",
        size,
        result.rate,
        result.server_ms,
        result.db_ms or 0.0,
        total,
        total - raw,
    )


# -- report ------------------------------------------------------------------------------------


def show(figures: Figures, load: str) -> None:
    print(
        f"  {figures.tool:<18}{figures.size:>8,}{figures.rate:>8.0f} ev/s  CPU/event "
        f"{figures.process_ms:.2f} + db {figures.db_ms:.2f} = {figures.cpu_ms:.2f} ms  "
        f"+{figures.grown / 2**20:.1f} MiB ({figures.grown_without_raw / 2**20:.1f} without raw)"
        f"  load {load} -> {_load()}",
        flush=True,
    )


def medians(found: list[Figures]) -> Figures:
    first = found[0]

    def med(values: list[float]) -> float:
        return statistics.median(values)

    return Figures(
        first.tool,
        first.size,
        med([f.rate for f in found]),
        med([f.process_ms for f in found]),
        med([f.db_ms for f in found]),
        int(med([f.grown for f in found])),
        int(med([f.grown_without_raw for f in found])),
    )


def summary(results: dict[tuple[str, int], list[Figures]], plumbline: str) -> None:
    print(
        f"\nmedians\n{'tool':<20}{'events':>8}{'rounds':>7}{'ev/s':>8}{'proc ms':>9}{'db ms':>8}"
        f"{'CPU ms':>8}{'+MiB':>8}{'-raw MiB':>10}"
    )
    table = {key: medians(found) for key, found in results.items()}
    for (tool, size), m in sorted(table.items(), key=lambda item: (item[0][1], item[0][0])):
        print(
            f"{tool:<20}{size:>8,}{len(results[(tool, size)]):>7}{m.rate:>8.0f}"
            f"{m.process_ms:>9.2f}{m.db_ms:>8.2f}{m.cpu_ms:>8.2f}{m.grown / 2**20:>8.1f}"
            f"{m.grown_without_raw / 2**20:>10.1f}"
        )
    print(
        f"\nratios plumbline / Data.Rentgen (medians)\n{'against':<20}{'events':>8}"
        f"{'ev/s':>8}{'CPU/event':>11}{'(proc':>7}{'db)':>7}{'disk':>7}{'-raw':>7}"
    )
    for (tool, size), theirs in sorted(table.items(), key=lambda item: (item[0][1], item[0][0])):
        ours = table.get((plumbline, size))
        if not tool.startswith("rentgen") or ours is None:
            continue

        def ratio(a: float, b: float) -> str:
            return f"{a / b:.2f}" if b else "-"

        print(
            f"{tool:<20}{size:>8,}{ratio(ours.rate, theirs.rate):>8}"
            f"{ratio(ours.cpu_ms, theirs.cpu_ms):>11}"
            f"{ratio(ours.process_ms, theirs.process_ms):>7}{ratio(ours.db_ms, theirs.db_ms):>7}"
            f"{ratio(ours.grown, theirs.grown):>7}"
            f"{ratio(ours.grown_without_raw, theirs.grown_without_raw):>7}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, action="append", help="default 3000 and 30000")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds per size")
    parser.add_argument(
        "--rentgen",
        action="append",
        help=f"Data.Rentgen release(s) to measure (default {', '.join(DEFAULT_VERSIONS)})",
    )
    parser.add_argument("--mode", choices=("http", "direct"), default="http")
    parser.add_argument("--clients", type=int, default=8, help="plumbline's HTTP clients")
    parser.add_argument("--python312", help="a Python 3.12 for Data.Rentgen after 0.4.8")
    args = parser.parse_args(argv)
    versions = args.rentgen or list(DEFAULT_VERSIONS)
    venvs = {version: rentgen_venv(version, args.python312) for version in versions}
    plumbline = f"plumbline {args.mode}"
    results: dict[tuple[str, int], list[Figures]] = {}
    for size in args.sizes or (3000, 30000):
        print(f"\n{size:,} events, batches of 100", flush=True)
        for round_ in range(args.rounds):
            order: list[str | None] = [None, *versions]  # None: plumbline
            for who in order if round_ % 2 == 0 else reversed(order):
                load = _load()
                if who is None:
                    figures = measure_plumbline(size, args.mode, args.clients)
                else:
                    figures = measure_rentgen(who, venvs[who], size)
                show(figures, load)
                results.setdefault((figures.tool, size), []).append(figures)
    summary(results, plumbline)


if __name__ == "__main__":
    main()
