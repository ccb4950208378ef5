"""`--since` and `--state`: logs not to read again are skipped before any Spark job starts."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from plumbline.cli import main


def _folder(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "local-1").write_text('{"Event":"SparkListenerLogStart","Spark Version":"3.5.8"}\n')
    return logs


def _extract(*arguments: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["extract-eventlogs", *arguments])
    return result.exit_code, result.output


def test_a_log_recorded_unchanged_is_not_read_again(tmp_path: Path) -> None:
    logs = _folder(tmp_path)
    stat = (logs / "local-1").stat()
    state = tmp_path / "state.json"
    record = {"size": stat.st_size, "mtime": stat.st_mtime}
    state.write_text(json.dumps({"version": 1, "logs": {str(logs / "local-1"): record}}))
    code, output = _extract(str(logs), "--out", str(tmp_path / "out"), "--state", str(state))
    assert code == 0, output
    assert "skipped: " in output and "already read" in output


def test_a_log_changed_before_since_is_not_read(tmp_path: Path) -> None:
    logs = _folder(tmp_path)
    os.utime(logs / "local-1", (1_000_000_000, 1_000_000_000))  # 2001
    code, output = _extract(str(logs), "--out", str(tmp_path / "out"), "--since", "2020-01-01")
    assert code == 0, output
    assert "last changed before --since" in output


def test_bad_since_and_state_are_one_line_errors(tmp_path: Path) -> None:
    logs = _folder(tmp_path)
    code, output = _extract(str(logs), "--out", str(tmp_path / "o"), "--since", "yesterday")
    assert code == 2 and "--since" in output and "expected an ISO-8601 date or time" in output
    state = tmp_path / "state.json"
    state.write_text("[1, 2]")
    code, output = _extract(str(logs), "--out", str(tmp_path / "o"), "--state", str(state))
    assert code == 2 and "not a state file of extract-eventlogs" in output
