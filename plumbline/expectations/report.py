"""Expectation outcomes (the ``/expectations/check`` answer's ``outcomes``) as CI systems read
them: one line per failed rule, or a JUnit XML report (one test case per rule)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from xml.etree import ElementTree as ET

FAILED = ("broken", "unknown")


def line(outcome: dict[str, Any], run: str | None = None) -> str:
    """``BROKEN reach "label": expected …; seen …; last shown by run …`` on one line."""
    label = f" {outcome['name']!r}" if outcome.get("name") else ""
    shown = f"; last shown by run {run}" if run else ""
    path = [p or "?" for p in outcome.get("path") or []]
    via = f"; path {' -> '.join(path)}" if len(path) > 1 and outcome["status"] != "holds" else ""
    text = (
        f"{outcome['status'].upper()} {outcome['kind']}{label}: expected {outcome['expected']}; "
        f"seen {outcome['seen']}{via}{shown}"
    )
    return " ".join(text.split())


def exit_status(outcomes: Sequence[dict[str, Any]]) -> int:
    """0 every rule holds; 1 one is broken or unknown; 2 none is, but one could not be told."""
    statuses = {o["status"] for o in outcomes}
    if statuses & set(FAILED):
        return 1
    return 2 if "undecided" in statuses else 0


def junit(outcomes: Sequence[dict[str, Any]], suite: str = "plumbline expectations") -> str:
    """A JUnit XML document: one ``testcase`` per rule; ``failure`` when broken or unknown,
    ``error`` when undecided."""
    root = ET.Element("testsuites")
    failures = sum(1 for o in outcomes if o["status"] in FAILED)
    errors = sum(1 for o in outcomes if o["status"] == "undecided")
    case_suite = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=str(len(outcomes)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
    )
    for outcome in outcomes:
        case = ET.SubElement(
            case_suite,
            "testcase",
            classname=f"expectations.{outcome['kind']}",
            name=outcome.get("name") or outcome["expected"],
        )
        if outcome["status"] in FAILED:
            failure = ET.SubElement(
                case, "failure", type=outcome["status"], message=outcome["seen"]
            )
            failure.text = line(outcome, outcome.get("runId"))
        elif outcome["status"] == "undecided":
            error = ET.SubElement(case, "error", type="undecided", message=outcome["seen"])
            error.text = line(outcome, outcome.get("runId"))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
