"""Spark runtime jars for the running Spark line, from the cache of scripts/fetch_jars.py.

`runtime_jars("delta")` is the value for `spark.jars` (comma-separated paths): the set pinned in
scripts/spark-jars.toml for this pyspark's line, fetched once by `scripts/setup.sh --test` (or here,
on first use), less what Spark's own jars folder has.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FETCH = ROOT / "scripts" / "fetch_jars.py"


def spark_line() -> str:
    """The running pyspark's line as scripts/spark-jars.toml names it (`3.5`, `4.3`)."""
    import pyspark

    return ".".join(pyspark.__version__.split(".")[:2])


def spark_jars_folder() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def runtime_jar_paths(name: str, line: str | None = None) -> list[Path]:
    """The jars of set `name` for `line` (default: the running one); a set the line has no pin for
    raises LookupError with the script's message."""
    done = subprocess.run(
        [sys.executable, str(FETCH), "--print", line or spark_line(), name,
         "--without", str(spark_jars_folder())],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise LookupError(done.stderr.strip())
    return [Path(x) for x in done.stdout.splitlines()]


def runtime_jars(name: str, line: str | None = None) -> str:
    """`spark.jars`'s value for set `name`."""
    return ",".join(str(x) for x in runtime_jar_paths(name, line))
