"""`plumbline run` says in one line, on stderr, that capture is on and where the events go
(issue 27: a newcomer could not tell). A script that starts no Spark session: the line comes first,
before the script runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("options", "line"),
    [
        (["--url", "http://127.0.0.1:5000"],
         "plumbline: lineage capture on: events go to http://127.0.0.1:5000/api/v1/lineage"),
        (["--url", "http://u:secret@127.0.0.1:5000/"],
         "plumbline: lineage capture on: events go to http://127.0.0.1:5000/api/v1/lineage"),
        (["--path", "events.jsonl"],
         "plumbline: lineage capture on: events go to the file {tmp}/events.jsonl"),
        (["--transport", "console"], "plumbline: lineage capture on: events are printed on stderr"),
        ([], "plumbline: lineage capture on, but no --url or --transport given: events are "
             "printed on stderr, not sent anywhere (send them to a server with --url "
             "http://HOST:PORT)"),
    ],
)  # fmt: skip
def test_run_says_capture_is_on_and_where_events_go(
    tmp_path: Path, options: list[str], line: str
) -> None:
    script = tmp_path / "job.py"
    script.write_text("print('the job ran')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-m", "plumbline", "run", *options, str(script)],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "the job ran\n"
    assert done.stderr.splitlines() == [line.replace("{tmp}", str(tmp_path))]


def _run(tmp_path: Path, options: list[str], **environ: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "job.py"
    script.write_text("print('the job ran')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    env.update(environ)
    return subprocess.run(
        [sys.executable, "-m", "plumbline", "run", *options, str(script)],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
    )  # fmt: skip


def test_run_decides_the_transport_as_the_capture_does(tmp_path: Path) -> None:
    """`plumbline run` and the capture share one resolver (spark/settings.resolve): a type named
    in the environment is read the same way (case and spaces), and one the capture would refuse
    is refused before the script runs, not announced as 'printed on stderr' and then dropped."""
    from plumbline.spark.settings import resolve

    env = {"PLUMBLINE_TRANSPORT_TYPE": " File ", "PLUMBLINE_PATH": "events.jsonl"}
    assert resolve({}, {}, env).transport_type == "file"
    done = _run(tmp_path, [], **env)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"plumbline: lineage capture on: events go to the file {tmp_path}/events.jsonl"
    ]
    done = _run(tmp_path, [], PLUMBLINE_TRANSPORT_TYPE="kafka")
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert "transport type must be one of http, file, console: 'kafka'" in done.stderr
    assert "PLUMBLINE_TRANSPORT_TYPE" in done.stderr


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--transport", "http"], "the http transport needs a url (--url URL or PLUMBLINE_URL)"),
        (["--url", "ftp://127.0.0.1/x"], "transport url: "),
        (
            ["--transport", "file"],
            "the file transport needs a path (--path FILE or PLUMBLINE_PATH)",
        ),
    ],
)
def test_run_refuses_a_transport_the_capture_would_refuse(
    tmp_path: Path, options: list[str], message: str
) -> None:
    """Checked by the capture's own TransportConfig, before the script runs."""
    done = _run(tmp_path, options)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""  # the script did not run
    assert message in done.stderr
