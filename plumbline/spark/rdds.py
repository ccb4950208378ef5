"""The files an RDD reads, found through its dependencies (a few py4j calls per RDD).

Hadoop input RDDs (`textFile`, `wholeTextFiles`, `hadoopFile`, `newAPIHadoopFile`…) keep their
input directories in their Hadoop configuration; a DataFrame turned into an RDD scans files
through a `FileScanRDD`, whose partitions list the files (each file's directory is the dataset,
less Hive-style `key=value` partition folders). Nothing here builds events.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from plumbline.spark import jvm
from plumbline.spark import vocabulary as v

log = logging.getLogger(__name__)

_INPUT_DIR = "mapreduce.input.fileinputformat.inputdir"
_MAX_RDDS = 500  # a dependency graph larger than this is read up to here
_MAX_PARTITIONS = 1000
_FILE = re.compile(r"path: (.+?), range: \d+-\d+")
_PARTITION_FOLDER = re.compile(r"/[^/=]+=[^/]*$")


def split_paths(value: str) -> list[str]:
    """Hadoop's comma-separated input paths (a `\\,` is a comma inside one path)."""
    parts = re.split(r"(?<!\\),", value)
    return [p.replace("\\,", ",").strip() for p in parts if p.strip()]


def directory_of(file_path: str) -> str:
    """The dataset folder of one scanned file: its directory without partition folders."""
    folder = file_path.rsplit("/", 1)[0]
    while _PARTITION_FOLDER.search(folder):
        folder = _PARTITION_FOLDER.sub("", folder)
    return folder


def _hadoop_inputs(rdd: Any) -> list[str]:
    conf = rdd.getJobConf() if jvm.simple_name(rdd) == v.OLD_HADOOP_RDD else rdd.getConf()
    value = conf.get(_INPUT_DIR)
    return split_paths(str(value)) if value else []


def _files_text(files: Any) -> str:
    """The `toString()` of every PartitionedFile of a Java array, in one round trip if possible."""
    try:
        return str(jvm._JVM[0].scala.Predef.genericWrapArray(files).mkString("\n"))
    except Exception:
        return "\n".join(str(f.toString()) for f in files)


def _scanned_folders(rdd: Any) -> list[str]:
    partitions = rdd.filePartitions()
    folders: dict[str, None] = {}
    for index in range(min(int(partitions.size()), _MAX_PARTITIONS)):
        for path in _FILE.findall(_files_text(partitions.apply(index).files())):
            folders[directory_of(path)] = None
    return list(folders)


def input_locations(rdd: Any) -> list[tuple[str, str | None]]:
    """(location, file format or None) of every file input below `rdd`, in dependency order."""
    found: dict[str, str | None] = {}
    seen: set[int] = set()
    stack = [rdd]
    while stack and len(seen) < _MAX_RDDS:
        current = stack.pop()
        rdd_id = int(current.id())
        if rdd_id in seen:
            continue
        seen.add(rdd_id)
        name = jvm.simple_name(current)
        try:
            if name in v.HADOOP_INPUT_RDDS:
                for path in _hadoop_inputs(current):
                    found.setdefault(path, None)
                continue
            if name == v.FILE_SCAN_RDD:
                for folder in _scanned_folders(current):
                    found.setdefault(folder, None)
                continue
        except Exception:  # an input RDD of a shape plumbline does not know: no dataset
            log.debug("cannot read the inputs of %s", name, exc_info=True)
            continue
        dependencies = jvm.scala_seq(current.dependencies())
        stack.extend(dep.rdd() for dep in reversed(dependencies))
    return list(found.items())
