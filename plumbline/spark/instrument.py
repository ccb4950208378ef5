"""Capture for scripts that were not changed: hook session creation, then run the script."""

from __future__ import annotations

import logging
import os
import runpy
import sys
import traceback
from typing import Any

from plumbline.spark import capture, settings

log = logging.getLogger(__name__)

_options: dict[str, Any] = {}
_installed = False


def install(**options: Any) -> None:
    """Enable capture (with `options` as enable()'s arguments) on every session getOrCreate returns."""
    global _installed
    _options.clear()
    _options.update({k: v for k, v in options.items() if v is not None})
    if _installed:
        return
    from pyspark.sql import SparkSession

    original = SparkSession.Builder.getOrCreate

    def get_or_create(self: Any) -> Any:
        _record_namespace(self)
        session = original(self)
        capture.enable(session, **_options)
        return session

    get_or_create.__doc__ = original.__doc__
    SparkSession.Builder.getOrCreate = get_or_create  # type: ignore[method-assign]
    _installed = True


def _record_namespace(builder: Any) -> None:
    """Put the capture's namespace in the session's Spark conf (``spark.plumbline.namespace``),
    so that the event log's environment carries it and event-log extraction names the jobs as
    live capture did. ``--namespace`` wins over the script's conf (as it does for the capture);
    ``PLUMBLINE_NAMESPACE`` only fills it in when the script sets none."""
    try:
        conf = getattr(builder, "_options", None) or {}
        namespace = settings.namespace_to_record(_options.get("namespace"), conf)
        if namespace is not None:
            builder.config(settings.NAMESPACE_KEY, namespace)
    except Exception as exc:  # never break the user's job
        log.warning("plumbline could not record the namespace in the Spark conf: %s", exc)


def run_script(script: str, args: list[str], **options: Any) -> int:
    """Run `script` as `__main__` with `args` and capture on; returns the script's exit code."""
    install(**options)
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))  # as `python SCRIPT` does
    code = 0
    error: BaseException | str | None = None
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
        if code != 0:
            reason = "" if isinstance(exc.code, int) else f": {exc.code}"
            error = f"the script exited with status {code}{reason}"
    except BaseException as exc:
        traceback.print_exc()
        code, error = 1, exc
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
    for handle in list(capture._handles.values()):
        handle.disable(failed=code != 0, error=error)
    return code
