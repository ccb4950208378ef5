"""scripts/fetch_jars.py: pinned Spark runtime jars from Maven Central into a cache, fetched once."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

import pytest
from runtime_jars import FETCH, ROOT, runtime_jar_paths, spark_jars_folder, spark_line

pytestmark = pytest.mark.spark  # reads the running pyspark's line and jars folder


def _sets_of_this_line() -> list[str]:
    pins = tomllib.loads((ROOT / "scripts" / "spark-jars.toml").read_text())
    return sorted(pins["line"].get(spark_line(), {}))


@pytest.mark.parametrize("name", _sets_of_this_line())
def test_a_set_comes_without_what_spark_ships(name: str) -> None:
    jars = runtime_jar_paths(name)
    assert jars and all(x.is_file() and x.suffix == ".jar" for x in jars)
    shipped = {x.name for x in spark_jars_folder().glob("*.jar")}
    assert not {x.name for x in jars} & shipped
    # a second scala-library or Hadoop client beside Spark's own breaks the session
    assert not [x for x in jars if x.name.startswith(("scala-library-", "hadoop-client-"))]


def test_a_second_fetch_runs_no_maven() -> None:
    runtime_jar_paths("openlineage")  # in the cache now (setup or first use fetched it)
    done = subprocess.run(
        [sys.executable, str(FETCH), "--print", spark_line(), "openlineage"],
        capture_output=True, text=True, check=False,
        env={**os.environ, "PATH": ""},  # no mvn to run
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(".jar")


def test_an_unknown_set_is_one_clear_line() -> None:
    done = subprocess.run(
        [sys.executable, str(FETCH), "--print", spark_line(), "no-such-set"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.startswith("[jars] no jar set 'no-such-set' for Spark ")
    assert "Traceback" not in done.stderr
