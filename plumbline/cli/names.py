"""Job names as the CLI prints them: the short name first, as the web UI does (names.js).

Spark actions' jobs are named ``<app>.<command>.<output>`` (``my_app.execute_insert_into_hadoop_
fs_relation_command.clean_readings``): the output part tells them apart, the rest is context kept
in brackets so the whole id can still be copied."""

from __future__ import annotations


def job_short(name: str) -> str:
    """The output part of ``<app>.<command>.<output>``; other names whole."""
    parts = name.split(".")
    return parts[-1] if len(parts) >= 3 else name


def job_label(namespace: str, name: str) -> str:
    """``clean_readings (default:my_app.execute_…_command.clean_readings)``, or ``NS:NAME`` for
    a name that is already short."""
    short = job_short(name)
    whole = f"{namespace}:{name}"
    return whole if short == name else f"{short} ({whole})"
