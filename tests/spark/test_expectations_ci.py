"""The CI recipe of docs/reference.md ("Expectations and baselines"), exactly as a pipeline step
runs it, with a real Spark job on the Spark line of this interpreter (issue 31 §1):

1. run the job on sample data with capture to a file (`plumbline run --transport file`);
2. ingest the file into a server (`plumbline replay`);
3. `plumbline check --expect expectations.toml`: exit 0 when the lineage holds, 1 (one line per
   broken expectation) when it does not.

The job runs once (a subprocess, ~1 min on a loaded machine); each store backend replays it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
JOB = Path(__file__).with_name("ci_orders_job.py")
WRITER = "ci_orders.execute_insert_into_hadoop_fs_relation_command"

EXPECTATIONS = """\
namespace = "file"

[[reach]]
from = "{data}/orders.csv"
to = "{out}/revenue"

[[reach]]
from = {{ dataset = "{data}/orders.csv", column = "amount" }}
to = {{ dataset = "{out}/orders_clean", column = "amount_eur" }}
transformation = "DIRECT/TRANSFORMATION"

[[reach]]
from = {{ dataset = "{data}/orders.csv", column = "amount" }}
to = {{ dataset = "{out}/revenue", column = "revenue" }}

[[never_reach]]  # the jobs' namespace holds no dataset: nothing reaches it
from = {{ dataset = "{data}/orders.csv", column = "email" }}
namespace = "ci"

[[job]]
job = {{ namespace = "ci", name = "{writer}.orders_clean" }}
reads = ["{data}/orders.csv"]
writes = ["{out}/orders_clean"]

[[fresh]]
dataset = "{out}/revenue"
within = "1h"
"""

# what the pipeline must not do: e-mail addresses reach the revenue table, amounts reach it as
# they are (the first is broken: revenue has no email; the second: it is an aggregation)
BROKEN = """\
namespace = "file"

[[reach]]
from = {{ dataset = "{data}/orders.csv", column = "email" }}
to = {{ dataset = "{out}/revenue", column = "revenue" }}

[[reach]]
from = {{ dataset = "{data}/orders.csv", column = "amount" }}
to = {{ dataset = "{out}/revenue", column = "revenue" }}
transformation = "DIRECT/IDENTITY"
"""


def _plumbline(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    return subprocess.run(
        [sys.executable, "-m", "plumbline", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Step 1: the job on sample data, captured to a file."""
    work = tmp_path_factory.mktemp("ci")
    data, out = work / "data", work / "out"
    data.mkdir()
    (data / "orders.csv").write_text(
        "id,email,amount,country\n1,a@example.org,10.5,FR\n2,b@example.org,3.0,DE\n"
    )
    events = work / "events.jsonl"
    result = _plumbline(
        "run", "--transport", "file", "--path", str(events), "--namespace", "ci",
        str(JOB), str(data), str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return {"work": work, "data": data, "out": out, "events": events}


def test_the_ci_recipe_checks_a_real_job(captured: dict[str, Path], live_server: Any) -> None:
    replayed = _plumbline("replay", str(captured["events"]), "--url", live_server.url)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    names = {"data": captured["data"], "out": captured["out"], "writer": WRITER}
    holding = captured["work"] / "expectations.toml"
    holding.write_text(EXPECTATIONS.format(**names))
    check = _plumbline("check", "--expect", str(holding), "--url", live_server.url)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "ok: 7 of 7 expectation(s) hold" in check.stdout

    broken = captured["work"] / "broken.toml"
    broken.write_text(BROKEN.format(**names))
    check = _plumbline("check", "--expect", str(broken), "--url", live_server.url)
    assert check.returncode == 1, check.stdout + check.stderr
    lines = check.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("BROKEN reach: expected datasetField:file:")
    assert "seen no path" in lines[0]
    assert "seen reached, but by no path of DIRECT/IDENTITY hops" in lines[1]
    assert "DIRECT/AGGREGATION" in lines[1]  # what the last hop is
    junit = _plumbline(
        "check", "--expect", str(broken), "--url", live_server.url, "--format", "junit"
    )
    assert junit.returncode == 1
    assert 'failures="2"' in junit.stdout
