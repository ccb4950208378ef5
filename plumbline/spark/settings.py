"""Capture settings: arguments, then Spark conf, then environment, then defaults."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from plumbline.spark.errors import SettingsError
from plumbline.transports.config import TRANSPORT_TYPES, TransportConfig

log = logging.getLogger(__name__)

CONF_PREFIX = "spark.plumbline."
_CONF_KEYS = {
    "type": "spark.plumbline.transport.type",
    "url": "spark.plumbline.transport.url",
    "api_key": "spark.plumbline.transport.apiKey",
    "path": "spark.plumbline.transport.path",
    "namespace": "spark.plumbline.namespace",
}
_ENV_KEYS = {
    "type": "PLUMBLINE_TRANSPORT_TYPE",
    "url": "PLUMBLINE_URL",
    "api_key": "PLUMBLINE_API_KEY",
    "path": "PLUMBLINE_PATH",
    "namespace": "PLUMBLINE_NAMESPACE",
}


# Spark properties sent in every action's `spark_properties` run facet (as the JVM OpenLineage
# agent does); PROPERTIES_KEY adds more, comma-separated. Names that look like credentials are
# never sent, whatever the configuration says.
DEFAULT_PROPERTIES = ("spark.master", "spark.app.name", "spark.submit.deployMode")
PROPERTIES_KEY = "spark.plumbline.capturedProperties"
_SECRET_NAME = re.compile(r"(?i)(password|passwd|pwd|secret|token|key|credential|auth)")


def captured_properties(extra: str) -> list[str]:
    """The allow-list: the defaults plus the comma-separated names in `extra`, without secrets."""
    names = [*DEFAULT_PROPERTIES, *(n.strip() for n in extra.split(","))]
    allowed = [n for n in dict.fromkeys(names) if n and not _SECRET_NAME.search(n)]
    dropped = [n for n in names if n and _SECRET_NAME.search(n)]
    if dropped:
        log.warning("plumbline never sends Spark properties that may hold secrets: %s", dropped)
    return allowed


@dataclass(frozen=True)
class CaptureSettings:
    """Where events go and under which namespace the jobs are named."""

    transport_type: str
    url: str | None
    api_key: str | None
    path: str | None
    namespace: str

    def __repr__(self) -> str:  # never show the API key
        key = "***" if self.api_key else None
        return (
            f"CaptureSettings(transport_type={self.transport_type!r}, url={self.url!r}, "
            f"api_key={key!r}, path={self.path!r}, namespace={self.namespace!r})"
        )

    def transport_config(self) -> TransportConfig:
        """The transport these settings name, checked (`TransportConfigError`: http without a
        URL or with a bad one, file without a path); `plumbline run` checks through here too."""
        return TransportConfig(
            type=self.transport_type, url=self.url, api_key=self.api_key, path=self.path
        )


NAMESPACE_KEY = _CONF_KEYS["namespace"]


def namespace_to_record(argument: str | None, conf: Mapping[str, Any]) -> str | None:
    """The namespace to record in a new session's Spark conf (so that its event log carries it):
    the argument (it wins over the conf, as in :func:`resolve`), else the environment's when the
    conf sets none; None: nothing to record."""
    if argument:
        return argument
    if NAMESPACE_KEY in conf:
        return None
    return os.environ.get(_ENV_KEYS["namespace"]) or None


def resolve(
    arguments: Mapping[str, str | None],
    conf: Mapping[str, str],
    environ: Mapping[str, str] | None = None,
    *,
    quiet: bool = False,
) -> CaptureSettings:
    """Each setting from the first of: arguments, Spark conf, environment; then defaults.

    The transport type, when none is named, is http with a URL, file with a path, else console
    (a warning says so unless `quiet`: `plumbline run` prints its own line). `plumbline run`
    resolves through here too (without Spark conf), so both decide the same way.
    """
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for name in _CONF_KEYS:
        values[name] = arguments.get(name) or conf.get(_CONF_KEYS[name]) or env.get(_ENV_KEYS[name])
    kind = transport_type(values["type"], values["url"], values["path"])
    if not values["type"] and kind == "console" and not quiet:
        log.warning(
            "plumbline: no transport configured (spark.plumbline.transport.type or "
            "PLUMBLINE_TRANSPORT_TYPE); lineage events go to the log (console transport)"
        )
    return CaptureSettings(
        transport_type=kind,
        url=values["url"],
        api_key=values["api_key"],
        path=values["path"],
        namespace=values["namespace"] or "default",
    )


def transport_type(kind: str | None, url: str | None, path: str | None) -> str:
    """The transport named by `kind`, else http with a URL, file with a path, else console."""
    if not kind:
        kind = "http" if url else "file" if path else "console"
    kind = str(kind).strip().lower()
    if kind not in TRANSPORT_TYPES:
        raise SettingsError(f"transport type must be one of {', '.join(TRANSPORT_TYPES)}: {kind!r}")
    return kind
