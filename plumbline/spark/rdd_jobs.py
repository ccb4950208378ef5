"""RDD actions that write files: inputs through the RDD's dependencies, the output from the call.

PySpark's RDD save methods run Spark jobs that no SQL execution reports, so the SQL listener never
sees them. `install` wraps those methods once (a wrapper that only calls the original when no
capture is enabled for the RDD's SparkContext); each call becomes one run with START before and
COMPLETE or FAIL after it: inputs are the files below the RDD (`rdds.input_locations`, as the
OpenLineage agent finds them through the RDD's dependencies), the output is the path the call
names. The wrapper only takes a timestamp and one py4j reference on the user's thread; the rest
runs on the capture's worker. Actions that write nothing (count, collect) make no events.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from plumbline.spark import events, jvm, rdds
from plumbline.spark.datasets import from_location
from plumbline.spark.facts import ActionFacts, DatasetFacts
from plumbline.spark.runs import AppRun

log = logging.getLogger(__name__)

# PySpark RDD methods that write a dataset, with the file format each writes (None: the output
# format's own, not known here)
SAVE_METHODS: dict[str, str | None] = {
    "saveAsTextFile": "text",
    "saveAsPickleFile": "sequencefile",
    "saveAsSequenceFile": "sequencefile",
    "saveAsHadoopFile": None,
    "saveAsNewAPIHadoopFile": None,
    "saveAsHadoopDataset": None,
    "saveAsNewAPIHadoopDataset": None,
}
# where a Hadoop job configuration (`saveAs…Dataset(conf)`) names its output directory
_OUTPUT_DIR_KEYS = ("mapreduce.output.fileoutputformat.outputdir", "mapred.output.dir")
RDD_JOB = "RDD_JOB"


def output_argument(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """The output path a save call names (a Hadoop configuration's output directory)."""
    if method.endswith("Dataset"):
        conf = kwargs.get("conf", args[0] if args else None)
        if not isinstance(conf, dict):
            return None
        return next((str(conf[k]) for k in _OUTPUT_DIR_KEYS if conf.get(k)), None)
    path = kwargs.get("path", args[0] if args else None)
    return str(path) if path else None


@dataclass
class _RddRun:
    method: str
    rdd: Any  # the JVM RDD
    path: str
    start_ms: float
    run_id: str
    facts: ActionFacts | None = None


class RddJobs:
    """Turns RDD save calls into runs; every method runs on the capture's worker thread."""

    def __init__(
        self,
        context: Any,
        app: AppRun,
        emit: Callable[[dict[str, Any]], None],
        run_facets: Callable[[], dict[str, Any]],
    ) -> None:
        self._context = context
        self._app = app
        self._emit = emit
        self._run_facets = run_facets

    def start(self, method: str, rdd: Any, path: str, when_ms: float) -> _RddRun:
        """Describe the call's inputs and output and send START."""
        run = _RddRun(method, rdd, path, when_ms, events.new_run_id())
        facts = ActionFacts(f"rdd_{events.normalize_name(method)}", job_type=RDD_JOB)
        for location, file_format in rdds.input_locations(rdd):
            dataset = from_location(location)
            facts.inputs.append(DatasetFacts(dataset, [], file_format, None, dataset.namespace))
        location = self._qualified(path)
        output = DatasetFacts(from_location(location), file_format=SAVE_METHODS.get(method))
        output.source_uri = output.id.namespace
        output.local_path = output.id.name if output.id.namespace == "file" else None
        facts.outputs = [output]
        run.facts = facts
        self._send("START", run, when_ms)
        return run

    def end(self, run: _RddRun, error: BaseException | None, when_ms: float) -> None:
        """Send COMPLETE (with what was written, for local files) or FAIL."""
        facts = run.facts
        if facts is None:
            return
        if error is not None:
            facts.error = _error_text(error)
        else:
            output = facts.outputs[0]
            if output.local_path:
                output.stats = _written(output.local_path)
        self._send("FAIL" if error is not None else "COMPLETE", run, when_ms)

    def _qualified(self, path: str) -> str:
        """The path as Hadoop resolves it (scheme of the default file system, absolute)."""
        hadoop = jvm._JVM[0].org.apache.hadoop.fs.Path(path)
        conf = self._context._jsc.hadoopConfiguration()
        return str(hadoop.getFileSystem(conf).makeQualified(hadoop).toString())

    def _send(self, event_type: str, run: _RddRun, when_ms: float) -> None:
        facts = run.facts
        assert facts is not None
        ended = event_type != "START"
        versions = {}
        if event_type == "COMPLETE" and facts.outputs[0].local_path:
            versions[facts.outputs[0].id.key] = run.run_id  # each write makes a version
        inputs, outputs = events.datasets(facts, with_stats=ended, versions=versions)
        run_facets = {**self._run_facets(), **events.completeness_facets(facts)}
        if facts.error is not None:
            run_facets["errorMessage"] = events.error_message(*facts.error)
        self._emit(
            events.run_event(
                event_type,
                when_ms,
                run.run_id,
                self._app.namespace,
                events.action_job_name(self._app.job_name, facts),
                run_facets=run_facets,
                job_facets=events.action_job_facets(facts),
                inputs=inputs,
                outputs=outputs,
            )
        )


def _written(folder: str) -> dict[str, int]:
    """Files and bytes a save wrote to a local folder (its data files, not markers or checksums)."""
    try:
        files = [
            entry
            for entry in os.scandir(folder)
            if entry.is_file() and not entry.name.startswith(("_", "."))
        ]
    except OSError:
        return {}
    return {"fileCount": len(files), "size": sum(f.stat().st_size for f in files)}


def _error_text(error: BaseException) -> tuple[str, str]:
    throwable = getattr(error, "java_exception", None)
    if throwable is not None:
        try:
            return jvm.failure_text(throwable)
        except Exception:
            log.debug("cannot read the Java exception", exc_info=True)
    stack = "".join(traceback.format_exception(error))
    return str(error) or type(error).__name__, stack


# -- the wrappers --------------------------------------------------------------------------------

# (RddJobs, submit) of the capture enabled for a SparkContext, or None
Lookup = Callable[[Any], tuple[RddJobs, Callable[[Callable[[], None]], None]] | None]
_installed: list[Lookup] = []
_inside = threading.local()  # a save method called by another one is not a second run


def install(lookup: Lookup) -> None:
    """Wrap PySpark's RDD save methods (once per process); `lookup(sc)` finds the capture."""
    if _installed:
        _installed[0] = lookup
        return
    from pyspark.rdd import RDD

    _installed.append(lookup)
    for method in SAVE_METHODS:
        original = getattr(RDD, method, None)
        if original is not None:
            setattr(RDD, method, _wrapped(method, original))


def _wrapped(method: str, original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def save(self: Any, *args: Any, **kwargs: Any) -> Any:
        begun = _begin(method, self, args, kwargs)
        if begun is None:
            return original(self, *args, **kwargs)
        jobs, submit, holder = begun
        _inside.active = True
        try:
            result = original(self, *args, **kwargs)
        except BaseException as exc:
            _finish(jobs, submit, holder, exc)
            raise
        finally:
            _inside.active = False
        _finish(jobs, submit, holder, None)
        return result

    return save


def _begin(
    method: str, rdd: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[RddJobs, Callable[[Callable[[], None]], None], list[_RddRun]] | None:
    """Queue the START of a save call's run; None when nothing is captured (never raises)."""
    if getattr(_inside, "active", False) or not _installed:
        return None
    try:
        found = _installed[0](rdd.ctx)
        path = output_argument(method, args, kwargs)
        if found is None or path is None:
            return None
        jobs, submit = found
        jvm_rdd = rdd._jrdd.rdd()
        when = time.time() * 1000
        holder: list[_RddRun] = []
        submit(lambda: holder.append(jobs.start(method, jvm_rdd, path, when)))
        return jobs, submit, holder
    except Exception as exc:
        log.warning("plumbline could not capture %s: %s", method, exc)
        return None


def _finish(
    jobs: RddJobs,
    submit: Callable[[Callable[[], None]], None],
    holder: list[_RddRun],
    error: BaseException | None,
) -> None:
    when = time.time() * 1000
    try:
        submit(lambda: jobs.end(holder[0], error, when) if holder else None)
    except Exception as exc:
        log.warning("plumbline could not capture the end of an RDD save: %s", exc)
