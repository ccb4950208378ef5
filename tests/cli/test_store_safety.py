"""Safe defaults (issue 27): only `serve` and `db upgrade` create a store, each saying so in one
line first; every other command refuses a database that holds no plumbline store (a missing
SQLite file, a PostgreSQL database never migrated) in one line, exit 2, and creates nothing.
The CLI through subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

REFUSING = [
    ["token", "list"],
    ["token", "create", "--name", "ci", "--scope", "read"],
    ["token", "revoke", "ci"],
    ["db", "prune", "--older-than", "30d"],
    ["db", "renormalize"],
    ["export", "--out", "{tmp}/out", "--quiet"],
]


def _plumbline(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PLUMBLINE_DB"}
    return subprocess.run(
        [sys.executable, "-m", "plumbline", *args], capture_output=True, text=True, env=env,
        timeout=120,
    )  # fmt: skip


def _tables(url: str) -> list[str]:
    engine = sa.create_engine(url)
    try:
        return sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()


@pytest.mark.parametrize("command", REFUSING, ids=[" ".join(c[:2]) for c in REFUSING])
def test_a_mistyped_sqlite_path_is_refused_and_nothing_is_made(
    tmp_path: Path, command: list[str]
) -> None:
    db = tmp_path / "nonexistent" / "tok.db"
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    done = _plumbline(*args, "--db", f"sqlite:///{db}")
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"Error: no plumbline store at {db} (no such file): `plumbline db upgrade --db URL` or"
        " `plumbline serve --db URL` creates one"
    ]
    assert not db.parent.exists() and not (tmp_path / "out").exists()


@pytest.mark.postgres
@pytest.mark.parametrize(
    "command", REFUSING[:1] + REFUSING[3:], ids=["token", "prune", "renormalize", "export"]
)
def test_a_postgresql_database_never_migrated_is_refused(
    pg_url: str, tmp_path: Path, command: list[str]
) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    done = _plumbline(*args, "--db", pg_url)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("Error: ") and "holds no plumbline store (never migrated)" in line
    assert _tables(pg_url) == []  # not migrated behind the user's back


def test_db_upgrade_says_it_creates_a_store(tmp_path: Path) -> None:
    db = tmp_path / "new" / "store.db"
    made = _plumbline("db", "upgrade", "--db", f"sqlite:///{db}")
    assert made.returncode == 0, made.stderr
    assert made.stderr == f"plumbline: creating a new store at {db} (and the folder {db.parent})\n"
    again = _plumbline("db", "upgrade", "--db", f"sqlite:///{db}")
    assert again.returncode == 0 and again.stderr == ""  # an existing store: nothing said
    listed = _plumbline("token", "list", "--db", f"sqlite:///{db}")
    assert listed.returncode == 0, listed.stderr


@pytest.mark.postgres
def test_db_upgrade_says_it_creates_a_store_in_postgresql(pg_url: str) -> None:
    made = _plumbline("db", "upgrade", "--db", pg_url)
    assert made.returncode == 0, made.stderr
    (line,) = made.stderr.splitlines()
    assert line.startswith("plumbline: creating a new store in postgresql+psycopg://")
    assert "alembic_version" in _tables(pg_url)
    assert _plumbline("db", "upgrade", "--db", pg_url).stderr == ""


def test_serve_says_it_creates_a_store(tmp_path: Path) -> None:
    db = tmp_path / "data" / "store.db"
    env = {k: v for k, v in os.environ.items() if k != "PLUMBLINE_DB"}
    server = subprocess.Popen(
        [sys.executable, "-m", "plumbline", "serve", "--db", f"sqlite:///{db}", "--port", "0",
         "--no-access-log"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        assert server.stdout is not None and server.stderr is not None
        assert server.stdout.readline().startswith("plumbline serving on http://")
        assert server.stderr.readline() == (
            f"plumbline: creating a new store at {db} (and the folder {db.parent})\n"
        )
        assert db.is_file()
    finally:
        server.terminate()
        server.wait(30)


def test_export_to_a_folder_it_cannot_make_is_one_plain_line(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    assert _plumbline("db", "upgrade", "--db", f"sqlite:///{db}").returncode == 0
    done = _plumbline("export", "--db", f"sqlite:///{db}", "--out", "/proc/nope", "--quiet")
    assert done.returncode == 1
    assert (
        done.stderr == "Error: cannot write the export to /proc/nope: No such file or directory\n"
    )
