"""Build :class:`ServerSettings` from `plumbline serve` flags, an optional TOML config file and
the environment: the only place the server's settings are read from outside.

Flags override the file. The environment gives ``PLUMBLINE_WRITER_THREADS`` and, when the file has
no ``[outbox]`` table, ``PLUMBLINE_OUTBOX_*`` (see :data:`~plumbline.server.outbox.policy.ENV_VARS`). The file may hold ``[[forward]]`` tables (url, api_key, headers) and
``[catalog.NAME]`` tables (pyiceberg properties), an ``[outbox]`` table (retry policy, see
:class:`OutboxPolicy`), and the top-level keys ``db``, ``host``, ``port``,
``auth``, ``store``, ``max_body_bytes``, an ``[alerts]`` table (the thresholds of
:class:`AlertRules` and ``check_seconds``) and a ``[classifications]`` table
(:mod:`plumbline.server.classification_config`).
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from plumbline.errors import PlumblineError
from plumbline.openlineage.urls import redact_url, target_key
from plumbline.server.classification_config import classification_settings
from plumbline.server.ingest_budget import minimum_budget
from plumbline.server.outbox.addresses import RefusedAddress, check_literal
from plumbline.server.outbox.policy import ENV_VARS, OutboxPolicy
from plumbline.server.settings import (
    DEFAULT_BODY_MIN_RATE,
    DEFAULT_BODY_TIMEOUT_SECONDS,
    DEFAULT_INGEST_MEMORY_BYTES,
    DEFAULT_MAX_BODY_BYTES,
    INGEST_MEMORY_BYTES_LIMIT,
    MAX_BODY_BYTES_LIMIT,
    ForwardTarget,
    NotifyTarget,
    ServerSettings,
)
from plumbline.server.typed_table import BadValue, UnknownKeys, field_kinds, read_table, typed
from plumbline.store import DEFAULT_MAX_ANALYSIS_ROWS
from plumbline.store.write.alert_rules import KINDS, AlertRules


class ConfigError(PlumblineError):
    """A setting or config file that cannot be used; the message says which and why."""


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def load_config_file(path: str | Path) -> dict[str, Any]:
    """Parse a TOML config file; raise :class:`ConfigError` with the reason."""
    try:
        with open(path, "rb") as handle:
            config = tomllib.load(handle)
    except FileNotFoundError as exc:
        raise ConfigError(f"config file not found: {path}") from exc
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"config file {path} cannot be read as TOML: {exc}") from exc
    unknown = sorted(set(config) - CONFIG_KEYS)
    if unknown:
        raise ConfigError(
            f"config file {path}: unknown key(s) {', '.join(unknown)} "
            f"(known: {', '.join(sorted(CONFIG_KEYS))})"
        )
    return config


# the top-level keys of the config file (docs/reference.md, "Configuration file")
CONFIG_KEYS = frozenset(
    {
        "db",
        "host",
        "port",
        "auth",
        "store",
        "max_body_bytes",
        "ingest_memory_bytes",
        "body_timeout_seconds",
        "body_min_rate",
        "max_analysis_rows",
        "access_log",
        "allowed_hosts",
        "auth_meta",
        "forward",
        "catalog",
        "outbox",
        "alerts",
        "notify",
        "classifications",
    }
)


def parse_catalog_option(value: str) -> tuple[str, dict[str, str]]:
    """``NAME:key=value,key=value`` -> (NAME, {key: value})."""
    name, sep, rest = value.partition(":")
    if not sep or not name:
        raise ConfigError(f"--catalog {value!r}: expected NAME:key=value,…")
    properties: dict[str, str] = {}
    for pair in filter(None, rest.split(",")):
        key, eq, val = pair.partition("=")
        if not eq or not key:
            raise ConfigError(f"--catalog {value!r}: {pair!r} is not key=value")
        properties[key.strip()] = val.strip()
    return name, properties


def build_settings(
    *,
    db_url: str,
    host: str | None = None,
    port: int | None = None,
    auth: str | None = None,
    allow_open_public: bool = False,
    store: bool | None = None,
    forward_urls: tuple[str, ...] = (),
    notify_urls: tuple[str, ...] = (),
    catalog_options: tuple[str, ...] = (),
    max_body_bytes: int | None = None,
    ingest_memory_bytes: int | None = None,
    access_log: bool | None = None,
    allowed_hosts: tuple[str, ...] = (),
    auth_meta: bool | None = None,
    config_file: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> ServerSettings:
    """Merge the config file (if any), flags and ``environ`` (default: the process environment)
    into settings, checking the auth rule."""
    environ = os.environ if environ is None else environ
    file_config = load_config_file(config_file) if config_file else {}
    host = host or file_config.get("host", "127.0.0.1")
    port = port if port is not None else _config_int(file_config, "port", 5000)
    if not 0 <= port <= 65535:
        raise ConfigError(f"port must be from 0 to 65535, not {port}")
    default_auth = "open" if is_loopback(host) else "required"
    auth = auth or file_config.get("auth", default_auth)
    if auth not in ("open", "required"):
        raise ConfigError(f"auth must be 'open' or 'required', not {auth!r}")
    if auth == "open" and not is_loopback(host) and not allow_open_public:
        raise ConfigError(
            f"refusing to serve without auth on {host}: bind to 127.0.0.1, use --auth required, "
            "or pass --allow-open-public"
        )
    forward = [_forward_target(entry) for entry in file_config.get("forward", [])]
    known = {target.url for target in forward}
    forward += [ForwardTarget(url=url) for url in forward_urls if url not in known]
    keys: dict[str, str] = {}
    for target in forward:  # refused here, not once the server has said it is serving
        try:
            key = target_key(target.url)
        except ValueError as exc:
            raise ConfigError(f"forward target: {exc}") from None
        if keys.setdefault(key, target.url) != target.url:
            raise ConfigError(
                f"forward targets: two URLs differ only in their credentials ({key}); "
                "the outbox names a target without them"
            )
    catalogs = {name: dict(props) for name, props in file_config.get("catalog", {}).items()}
    for option in catalog_options:
        name, properties = parse_catalog_option(option)
        catalogs[name] = properties
    rules, check_seconds = _alert_settings(file_config.get("alerts", {}))
    try:
        classifications = classification_settings(file_config.get("classifications", {}))
    except ValueError as exc:
        raise ConfigError(f"config file: {exc}") from None
    notify = _notify_targets(file_config.get("notify", []), notify_urls)
    body_limit = _max_body_bytes(max_body_bytes, file_config)
    return ServerSettings(
        db_url=db_url,
        alerts=rules,
        classifications=classifications,
        alert_check_seconds=check_seconds,
        notify=notify,
        outbox=_outbox_policy(file_config, config_file, environ),
        writer_threads=_writer_threads(environ),
        host=host,
        port=port,
        auth=auth,
        store=store if store is not None else bool(file_config.get("store", True)),
        forward=tuple(forward),
        catalogs=catalogs,
        max_body_bytes=body_limit,
        ingest_memory_bytes=_ingest_memory_bytes(ingest_memory_bytes, file_config, body_limit),
        **_body_timing(file_config),
        max_analysis_rows=_max_analysis_rows(file_config),
        access_log=access_log
        if access_log is not None
        else bool(file_config.get("access_log", True)),
        allowed_hosts=_allowed_hosts(allowed_hosts, file_config),
        auth_meta=auth_meta if auth_meta is not None else bool(file_config.get("auth_meta", False)),
    )


def _allowed_hosts(given: tuple[str, ...], file_config: dict[str, Any]) -> tuple[str, ...]:
    """``--allowed-host`` names and the config file's ``allowed_hosts`` list, each a bare host
    name or address (ConfigError for a URL, a port or an empty name)."""
    listed = file_config.get("allowed_hosts", [])
    if not isinstance(listed, list) or not all(isinstance(name, str) for name in listed):
        raise ConfigError("config file: allowed_hosts must be a list of host names")
    names: list[str] = []
    for name in (*listed, *given):
        bare = name.strip().lower().strip("[]")
        if not bare or any(c in bare for c in "/@ ") or (":" in bare and bare.count(":") == 1):
            raise ConfigError(
                f"--allowed-host {name!r}: give a host name or address, without scheme or port"
            )
        if bare not in names:
            names.append(bare)
    return tuple(names)


def _notify_targets(entries: Any, urls: tuple[str, ...]) -> tuple[NotifyTarget, ...]:
    """``[[notify]]`` tables (url, headers, namespaces, kinds, api_key), then ``--notify`` URLs
    (every alert); each URL checked (http or https)."""
    if not isinstance(entries, list):
        raise ConfigError("config file: notify must be [[notify]] tables")
    targets: list[NotifyTarget] = []
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            raise ConfigError("each [[notify]] entry needs a url string")
        unknown = sorted(set(entry) - _NOTIFY_KEYS)
        if unknown:
            raise ConfigError(f"[[notify]]: unknown key(s) {', '.join(unknown)}")
        headers = entry.get("headers", {})
        if not isinstance(headers, dict):
            raise ConfigError("[[notify]] headers must be a table")
        lists = {}
        for name in ("namespaces", "kinds"):
            value = entry.get(name, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"[[notify]] {name} must be a list of strings")
            lists[name] = tuple(value)
        allow_private = entry.get("allow_private", False)
        if not isinstance(allow_private, bool):
            raise ConfigError("[[notify]] allow_private must be true or false")
        bad = [kind for kind in lists["kinds"] if kind not in KINDS]
        if bad:
            raise ConfigError(
                f"[[notify]] kinds: unknown kind {bad[0]!r} (kinds: {', '.join(KINDS)})"
            )
        targets.append(
            NotifyTarget(
                url=entry["url"],
                headers={str(k): str(v) for k, v in headers.items()},
                api_key=entry.get("api_key"),
                allow_private=allow_private,
                **lists,
            )
        )
    known = {target.url for target in targets}
    targets += [NotifyTarget(url=url) for url in urls if url not in known]
    for target in targets:
        try:
            check_literal(target.endpoint, target.allow_private)  # ValueError: not http(s)
        except RefusedAddress as exc:
            raise ConfigError(f"notify target {redact_url(target.url)}: {exc}") from None
        except ValueError as exc:
            raise ConfigError(f"notify target: {exc}") from None
        _no_user_info_with_key("notify", target.url, target.api_key)
    return tuple(targets)


_NOTIFY_KEYS = frozenset({"url", "headers", "namespaces", "kinds", "api_key", "allow_private"})


def _no_user_info_with_key(kind: str, url: str, api_key: str | None) -> None:
    """A URL with ``user:password@`` and an ``api_key`` would send one of the two: refused."""
    if api_key and "@" in urlsplit(url.strip()).netloc:
        raise ConfigError(
            f"{kind} target {redact_url(url)}: the URL has user info and the table an api_key; "
            "give one (the key is sent as Authorization: Bearer)"
        )


def _alert_settings(table: Any) -> tuple[AlertRules, float]:
    """The ``[alerts]`` table: AlertRules fields and ``check_seconds`` (1 to 86400)."""
    if not isinstance(table, dict):
        raise ConfigError("config file: [alerts] must be a table")
    try:
        values = read_table(AlertRules, table, extra={"check_seconds": "number"})
    except UnknownKeys as exc:
        raise ConfigError(
            f"config file: unknown [alerts] key(s) {', '.join(exc.keys)} "
            f"(known: check_seconds, {', '.join(exc.known)})"
        ) from None
    except BadValue as exc:
        raise ConfigError(f"config file: [alerts] {exc.key} must be a {exc.kind}") from None
    check = values.pop("check_seconds", 60.0)
    assert isinstance(check, int | float)
    if not 0.1 <= float(check) <= 86400:
        raise ConfigError(
            f"config file: [alerts] check_seconds must be from 0.1 to 86400, not {check}"
        )
    try:
        return AlertRules(**values), float(check)  # type: ignore[arg-type]
    except ValueError as exc:
        raise ConfigError(f"config file: [alerts] {exc}") from None


def _max_body_bytes(given: int | None, file_config: dict[str, Any]) -> int:
    """The request body limit: from 1 byte to MAX_BODY_BYTES_LIMIT (ConfigError otherwise)."""
    value = (
        given
        if given is not None
        else _config_int(file_config, "max_body_bytes", DEFAULT_MAX_BODY_BYTES)
    )
    if not 1 <= value <= MAX_BODY_BYTES_LIMIT:
        raise ConfigError(
            f"max_body_bytes must be from 1 to {MAX_BODY_BYTES_LIMIT} (1 GiB), not {value}"
        )
    return value


def _ingest_memory_bytes(given: int | None, file_config: dict[str, Any], body_limit: int) -> int:
    """The ingestion memory budget: at least what one request of the largest body may hold
    (unset: the default, raised to that when the body limit needs more), at most
    INGEST_MEMORY_BYTES_LIMIT (a larger value is a typo, not a budget)."""
    least = minimum_budget(body_limit)
    value = (
        given
        if given is not None
        else _config_int(
            file_config, "ingest_memory_bytes", max(DEFAULT_INGEST_MEMORY_BYTES, least)
        )
    )
    if value < least:
        raise ConfigError(
            f"ingest_memory_bytes must be at least {least} (what one request of "
            f"max_body_bytes {body_limit} may hold, and the normalizer's share), not {value}"
        )
    if value > INGEST_MEMORY_BYTES_LIMIT:
        raise ConfigError(
            f"ingest_memory_bytes must be at most {INGEST_MEMORY_BYTES_LIMIT} (1 TiB), not {value}"
        )
    return value


def _max_analysis_rows(file_config: dict[str, Any]) -> int:
    """``max_analysis_rows`` (1 to 100,000,000): the rows one analysis read may read."""
    rows = _config_int(file_config, "max_analysis_rows", DEFAULT_MAX_ANALYSIS_ROWS)
    if not 1 <= rows <= 100_000_000:
        raise ConfigError(f"max_analysis_rows must be from 1 to 100000000, not {rows}")
    return rows


def _body_timing(file_config: dict[str, Any]) -> dict[str, Any]:
    """``body_timeout_seconds`` (0.1 to 3600) and ``body_min_rate`` (1 to 1 GiB bytes/s): how
    slowly a request body may arrive before it is answered 408."""
    timeout = file_config.get("body_timeout_seconds", DEFAULT_BODY_TIMEOUT_SECONDS)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not (0.1 <= timeout <= 3600)
    ):
        raise ConfigError(f"body_timeout_seconds must be from 0.1 to 3600, not {timeout!r}")
    rate = _config_int(file_config, "body_min_rate", DEFAULT_BODY_MIN_RATE)
    if not 1 <= rate <= 1024**3:
        raise ConfigError(f"body_min_rate must be from 1 to {1024**3} bytes/s, not {rate}")
    return {"body_timeout_seconds": float(timeout), "body_min_rate": rate}


def _config_int(file_config: dict[str, Any], key: str, default: int) -> int:
    """A whole-number setting of the config file (ConfigError naming it otherwise)."""
    value = file_config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"config file: {key} must be a whole number, not {value!r}")
    return value


def _outbox_policy(
    file_config: dict[str, Any], config_file: str | Path | None, environ: Mapping[str, str]
) -> OutboxPolicy:
    """The config file's ``[outbox]`` table, else ``PLUMBLINE_OUTBOX_*`` over the defaults."""
    if "outbox" in file_config:
        try:
            return OutboxPolicy.from_dict(file_config["outbox"])
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"config file {config_file}: {exc}") from exc
    kinds = field_kinds(OutboxPolicy)
    for variable, name in ENV_VARS.items():  # name the variable that is not a number
        value = environ.get(variable)
        if value is not None:
            try:
                typed(kinds[name], value, text=True)
            except ValueError:
                raise ConfigError(f"{variable} must be a number, not {value!r}") from None
    try:
        return OutboxPolicy.from_env(environ)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"PLUMBLINE_OUTBOX_* variables: {exc}") from exc


def _writer_threads(environ: Mapping[str, str]) -> int | None:
    """``PLUMBLINE_WRITER_THREADS`` (None when unset: the store's default)."""
    configured = environ.get("PLUMBLINE_WRITER_THREADS", "").strip()
    if not configured:
        return None
    if not configured.isdigit() or int(configured) < 1:
        raise ConfigError(
            f"PLUMBLINE_WRITER_THREADS must be a whole number of at least 1, not {configured!r}"
        )
    return int(configured)


def _forward_target(entry: Any) -> ForwardTarget:
    if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
        raise ConfigError("each [[forward]] entry needs a url string")
    headers = entry.get("headers", {})
    if not isinstance(headers, dict):
        raise ConfigError("[[forward]] headers must be a table")
    _no_user_info_with_key("forward", entry["url"], entry.get("api_key"))
    return ForwardTarget(
        url=entry["url"],
        api_key=entry.get("api_key"),
        headers={str(k): str(v) for k, v in headers.items()},
    )
