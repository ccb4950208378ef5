"""The OpenLineage spec's facet examples (``../shared/openlineage-spec/tests``), each wrapped in a
minimal RunEvent at the place its schema says it belongs, and the official JSON Schema validator."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource

RUN_EVENT_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
PRODUCER = "https://github.com/example/plumbline-tests"

# the spec's base facet definitions -> where the facet goes in an event
_PLACES = {
    "RunFacet": ("run", "facets"),
    "JobFacet": ("job", "facets"),
    "DatasetFacet": ("outputs", 0, "facets"),
    "InputDatasetFacet": ("inputs", 0, "inputFacets"),
    "OutputDatasetFacet": ("outputs", 0, "outputFacets"),
}


def minimal_run_event(run_id: str = "3f5e83fa-3480-44ff-99c5-ff943904e5e8") -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2024-05-01T10:00:00.000Z",
        "producer": PRODUCER,
        "schemaURL": RUN_EVENT_URL,
        "run": {"runId": run_id},
        "job": {"namespace": "spec-examples", "name": "wrapper"},
        "inputs": [{"namespace": "spec-examples", "name": "input"}],
        "outputs": [{"namespace": "spec-examples", "name": "output"}],
    }


@dataclass(frozen=True)
class Example:
    """One example document: ``{facet name: facet}``, the facet schema file it follows, its place."""

    id: str
    facet_file: Path
    document: dict[str, Any]
    place: tuple[str | int, ...]

    def wrapped(self) -> dict[str, Any]:
        event = minimal_run_event()
        target: Any = event
        for part in self.place:
            target = target[part] if not isinstance(target, dict) else target.setdefault(part, {})
        target.update(copy.deepcopy(self.document))
        return event


def _place(facet_file: Path, document: dict[str, Any]) -> tuple[str | int, ...]:
    schema = json.loads(facet_file.read_text())
    (name,) = document
    schema_url = document[name].get("_schemaURL", "")
    # facets with more than one possible place say which in their _schemaURL
    for suffix, base in (
        ("InputSubsetDatasetFacet", "InputDatasetFacet"),
        ("InputSubsetInputDatasetFacet", "InputDatasetFacet"),
        ("OutputSubsetDatasetFacet", "OutputDatasetFacet"),
        ("OutputSubsetOutputDatasetFacet", "OutputDatasetFacet"),
        ("LineageJobFacet", "JobFacet"),
        ("LineageDatasetFacet", "DatasetFacet"),
    ):
        if schema_url.endswith(suffix):
            return _PLACES[base]
    ref = schema["properties"][name]["$ref"].rsplit("/", 1)[-1]
    for part in schema["$defs"][ref].get("allOf", []):
        base = part.get("$ref", "").rsplit("/", 1)[-1]
        if base in _PLACES:
            return _PLACES[base]
    raise AssertionError(f"no place for {facet_file.name}")


def examples(spec_dir: Path) -> list[Example]:
    """Every facet example of the spec (the full-event example is not a facet)."""
    found = []
    for directory in sorted(p for p in (spec_dir / "tests").iterdir() if p.is_dir()):
        facet_file = spec_dir / "facets" / f"{directory.name}.json"
        for path in sorted(directory.glob("*.json")):
            document = json.loads(path.read_text())
            found.append(
                Example(
                    f"{directory.name}/{path.name}",
                    facet_file,
                    document,
                    _place(facet_file, document),
                )
            )
    return found


@cache
def _registry(spec_dir: Path) -> Registry:
    resources = []
    for path in [spec_dir / "OpenLineage.json", *sorted((spec_dir / "facets").glob("*.json"))]:
        contents = json.loads(path.read_text())
        resources.append((contents["$id"], Resource.from_contents(contents)))
    return Registry().with_resources(resources)


def official_errors(spec_dir: Path, event: Any, facet_files: list[Path] = ()) -> list[str]:  # type: ignore[assignment]
    """What the official JSON Schemas say is wrong with ``event`` (UUID format checked), and with
    the facets of ``facet_files`` found at their places."""
    registry = _registry(spec_dir)
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    core = json.loads((spec_dir / "OpenLineage.json").read_text())
    problems = [
        error.message
        for error in jsonschema.Draft202012Validator(
            core, registry=registry, format_checker=checker
        ).iter_errors(event)
    ]
    for facet_file in facet_files:
        schema = json.loads(facet_file.read_text())
        validator = jsonschema.Draft202012Validator(
            schema, registry=registry, format_checker=checker
        )
        for facets in _facet_maps(event):
            if isinstance(facets, dict):
                relevant = {k: v for k, v in facets.items() if k in schema.get("properties", {})}
                if not relevant:
                    continue
                problems.extend(error.message for error in validator.iter_errors(relevant))
    return problems


def _facet_maps(event: Any) -> list[Any]:
    if not isinstance(event, dict):
        return []
    maps = [event.get("run", {}).get("facets"), event.get("job", {}).get("facets")]
    for key in ("inputs", "outputs"):
        for dataset in event.get(key) or []:
            if isinstance(dataset, dict):
                maps += [
                    dataset.get("facets"),
                    dataset.get("inputFacets"),
                    dataset.get("outputFacets"),
                ]
    return [m for m in maps if m is not None]
