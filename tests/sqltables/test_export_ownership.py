"""`plumbline export --out` owns its folder through its state file (issue 28 item 8): a non-empty
folder without it is refused, a symbolic link under it is refused (a linked subfolder took the
files out of the target), and only files the state lists are replaced or deleted (a foreign
``part-N.parquet`` beside the export's survives a full export). Both backends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from scenario import build
from sqlalchemy.engine import Engine

from plumbline.cli import main
from plumbline.export import ExportError, export_tables
from plumbline.store import Store

STATE = "_plumbline_export.json"


@pytest.fixture
def built(engine: Engine) -> Engine:
    build(engine)
    return engine


def test_a_symlinked_subfolder_is_refused(built: Engine, tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    export_tables(Store(built), out)
    elsewhere.mkdir()
    for child in (out / "jobs").iterdir():
        child.unlink()
    (out / "jobs").rmdir()
    (out / "jobs").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ExportError, match="symbolic link"):
        export_tables(Store(built), out, full=True)
    assert list(elsewhere.iterdir()) == []  # nothing written through the link


def test_a_symlinked_subfolder_in_a_new_folder_is_refused(built: Engine, tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "runs").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ExportError, match="symbolic link|not empty"):
        export_tables(Store(built), out)
    assert list(elsewhere.iterdir()) == []


def test_a_foreign_part_file_is_neither_deleted_nor_replaced(built: Engine, tmp_path: Path) -> None:
    tmp_path = tmp_path / "out"
    export_tables(Store(built), tmp_path)
    listed = json.loads((tmp_path / STATE).read_text())["files"]
    assert "jobs/part-0.parquet" in listed and all((tmp_path / f).is_file() for f in listed)
    foreign = tmp_path / "jobs" / "part-9.parquet"
    foreign.write_bytes(b"someone else's")
    day = tmp_path / "runs" / "event_date=1999-01-01"
    day.mkdir()
    (day / "part-0.parquet").write_bytes(b"someone else's day")
    export_tables(Store(built), tmp_path, full=True)  # --full sweeps what it no longer produces
    export_tables(Store(built), tmp_path)
    assert foreign.read_bytes() == b"someone else's"
    assert (day / "part-0.parquet").read_bytes() == b"someone else's day"
    assert "jobs/part-9.parquet" not in json.loads((tmp_path / STATE).read_text())["files"]


def test_a_file_the_export_did_not_write_is_not_overwritten(built: Engine, tmp_path: Path) -> None:
    tmp_path = tmp_path / "out"
    export_tables(Store(built), tmp_path)
    state = json.loads((tmp_path / STATE).read_text())
    state["files"].remove("jobs/part-0.parquet")  # as if another program had put it there
    (tmp_path / STATE).write_text(json.dumps(state))
    (tmp_path / "jobs" / "part-0.parquet").write_bytes(b"theirs")
    with pytest.raises(ExportError, match="not written by plumbline export"):
        export_tables(Store(built), tmp_path, full=True)
    assert (tmp_path / "jobs" / "part-0.parquet").read_bytes() == b"theirs"


def test_a_non_empty_folder_without_the_state_file_is_refused(
    built: Engine, db_url: str, tmp_path: Path
) -> None:
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ExportError, match="not a plumbline export folder"):
        export_tables(Store(built), tmp_path)
    with pytest.raises(ExportError, match="not a plumbline export folder"):
        export_tables(Store(built), tmp_path, full=True)
    done = CliRunner().invoke(main, ["export", "--db", db_url, "--out", str(tmp_path), "--quiet"])
    assert done.exit_code != 0 and "not a plumbline export folder" in done.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
