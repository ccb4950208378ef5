"""Fetch the Spark runtime jars of scripts/spark-jars.toml from Maven Central into a cache.

    python scripts/fetch_jars.py                 every set of every line (what `setup.sh --test` does)
    python scripts/fetch_jars.py --line 3.5      every set of one line
    python scripts/fetch_jars.py --print 3.5 delta [--without SPARK_JARS_DIR]
                                                 fetch one set if missing, print its jars' paths, one a
                                                 line, leaving out artifacts Spark's own jars folder has

A set is resolved by Maven (`dependency:copy-dependencies` over a generated pom, runtime scope) into
`<cache>/<line>/<set>/` in Maven's repository layout (`group/…/artifact/version/artifact-version.jar`,
so each jar's artifact is known); a stamp holding the set's coordinates marks it complete, so a second run, or a
run after the pins changed for another set only, downloads nothing. The cache is
`$PLUMBLINE_JAR_CACHE`, else `$XDG_CACHE_HOME/plumbline/jars` (`~/.cache/plumbline/jars`). Standard
library only: it runs before any virtualenv exists.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from xml.sax.saxutils import escape

PINS = Path(__file__).with_name("spark-jars.toml")
STAMP = ".complete"
ANY_LINE = "any"


class JarError(Exception):
    """A set that cannot be fetched: unknown, or Maven failed."""


def cache_root() -> Path:
    if configured := os.environ.get("PLUMBLINE_JAR_CACHE"):
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "plumbline" / "jars"


def load_pins() -> dict[str, dict[str, list[str]]]:
    """`{line: {set: [coordinates]}}`; the line-independent sets under `any`."""
    document = tomllib.loads(PINS.read_text())
    pins: dict[str, dict[str, list[str]]] = dict(document.get("line", {}))
    pins[ANY_LINE] = dict(document.get(ANY_LINE, {}))
    return pins


def coordinates_of(line: str, name: str) -> list[str]:
    pins = load_pins()
    for table in (pins.get(line, {}), pins[ANY_LINE]):
        if name in table:
            return table[name]
    known = sorted(set(pins.get(line, {})) | set(pins[ANY_LINE]))
    raise JarError(f"no jar set {name!r} for Spark {line} (known: {', '.join(known) or 'none'})")


def set_folder(line: str, name: str) -> Path:
    owner = ANY_LINE if name in load_pins()[ANY_LINE] else line
    return cache_root() / owner / name


def _pom(coordinates: list[str]) -> str:
    dependencies = []
    for coordinate in coordinates:
        group, artifact, version = coordinate.split(":")
        dependencies.append(
            f"<dependency><groupId>{escape(group)}</groupId><artifactId>{escape(artifact)}"
            f"</artifactId><version>{escape(version)}</version></dependency>"
        )
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        "<groupId>plumbline</groupId><artifactId>spark-jars</artifactId><version>0</version>"
        f"<dependencies>{''.join(dependencies)}</dependencies></project>"
    )


def fetch(line: str, name: str) -> list[Path]:
    """The set's jars, fetched into the cache first when it does not hold them yet."""
    coordinates = coordinates_of(line, name)
    folder = set_folder(line, name)
    wanted = "\n".join(coordinates) + "\n"
    stamp = folder / STAMP
    if not (stamp.is_file() and stamp.read_text() == wanted):
        if shutil.which("mvn") is None:
            raise JarError("Maven (mvn) is needed to fetch Spark runtime jars; install it")
        print(f"[jars] fetching {name} for Spark {line}: {', '.join(coordinates)}", file=sys.stderr)
        partial = folder.with_name(folder.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        with tempfile.TemporaryDirectory() as work:
            (Path(work) / "pom.xml").write_text(_pom(coordinates))
            done = subprocess.run(
                ["mvn", "-B", "-q", "-f", str(Path(work) / "pom.xml"),
                 "dependency:copy-dependencies", "-DincludeScope=runtime",
                 "-Dmdep.useRepositoryLayout=true", f"-DoutputDirectory={partial}"],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            errors = [x for x in done.stdout.splitlines() if x.startswith("[ERROR]")]
            raise JarError(f"Maven could not fetch {name} for Spark {line}: {' '.join(errors[:2])}")
        (partial / STAMP).write_text(wanted)
        shutil.rmtree(folder, ignore_errors=True)
        partial.rename(folder)
    return sorted(folder.rglob("*.jar"))


def artifact_of(jar: Path) -> str:
    """The artifact id of a jar in repository layout (`…/artifact/version/artifact-version.jar`)."""
    return jar.parent.parent.name


def without_provided(jars: list[Path], spark_jars: Path) -> list[Path]:
    """The jars whose artifact Spark does not ship already (a second copy of e.g. scala-library on
    the class path, in another version, breaks Spark)."""
    shipped = {x.name for x in spark_jars.glob("*.jar")}

    def provided(jar: Path) -> bool:
        prefix = artifact_of(jar) + "-"
        return any(
            n.startswith(prefix) and n[len(prefix) : len(prefix) + 1].isdigit() for n in shipped
        )

    return [jar for jar in jars if not provided(jar)]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--line", help="one Spark line (e.g. 3.5) instead of all")
    parser.add_argument("--print", nargs=2, metavar=("LINE", "SET"), dest="print_set")
    parser.add_argument(
        "--without",
        type=Path,
        metavar="SPARK_JARS_DIR",
        help="with --print: leave out artifacts this folder of jars has",
    )
    args = parser.parse_args(argv)
    try:
        if args.print_set:
            jars = fetch(*args.print_set)
            for jar in without_provided(jars, args.without) if args.without else jars:
                print(jar)
            return 0
        pins = load_pins()
        lines = [args.line] if args.line else [x for x in pins if x != ANY_LINE]
        for line in lines:
            for name in [*pins.get(line, {}), *pins[ANY_LINE]]:
                fetch(line, name)
    except JarError as error:
        print(f"[jars] {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
