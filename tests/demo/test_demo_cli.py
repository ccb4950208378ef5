"""`plumbline demo`'s options and its own database, without running Spark."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from plumbline.cli import main
from plumbline.cli.demo import demo_dir, fresh_demo_db_url


def test_help_lists_the_documented_options() -> None:
    result = CliRunner().invoke(main, ["demo", "--help"])
    assert result.exit_code == 0, result.output
    for option in ("--db", "--scale", "--host", "--port", "--no-serve"):
        assert option in result.output


def test_demo_database_lives_in_the_user_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert demo_dir() == tmp_path / "plumbline" / "demo"


def test_demo_database_is_recreated_and_never_the_real_store(tmp_path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        (tmp_path / f"demo.db{suffix}").parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f"demo.db{suffix}").write_text("left over from the last run")
    url = fresh_demo_db_url(tmp_path)
    assert url == f"sqlite:///{tmp_path / 'demo.db'}"
    assert list(tmp_path.iterdir()) == []  # the stale database and its WAL files are gone


def test_scale_must_be_positive() -> None:
    result = CliRunner().invoke(main, ["demo", "--scale", "0", "--no-serve"])
    assert result.exit_code == 2
    assert "Invalid value for '--scale'" in result.output


def test_a_busy_port_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(main, ["demo", "--no-serve", "--port", str(port)])
    assert result.exit_code == 1
    assert f"cannot serve on 127.0.0.1:{port}" in result.output
    assert "--port 0 picks a free port" in result.output
