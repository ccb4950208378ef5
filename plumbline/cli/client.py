"""What the commands that ask a server share: ``--url``/``PLUMBLINE_URL``, ``--api-key``/
``PLUMBLINE_API_KEY`` (as ``plumbline replay``), ``--format`` and printing the answer in it, and
one-line errors.

A server error (404 unknown node, 400 bad input, 401/403) or an unreachable server is printed as one
line on stderr and the command exits 1.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

import click
import httpx
from rich.console import Console

from plumbline.cli.options import api_key_option, url_option
from plumbline.openlineage.urls import LINEAGE_PATH, redact_url

F = TypeVar("F", bound=Callable[..., Any])


def server_options(func: F) -> F:
    """``--url``, ``--api-key`` and ``--timeout``."""
    func = click.option(
        "--timeout",
        type=click.FloatRange(min=0, min_open=True),
        default=60.0,
        show_default=True,
        help="Seconds to wait for the answer.",
    )(func)
    func = api_key_option()(func)
    return url_option("The plumbline server's base URL.")(func)


def format_option(*choices: str, row: str = "node") -> Callable[[F], F]:
    """``--format`` among ``choices`` (the first is the default); CSV has one row per ``row``."""
    return click.option(
        "--format",
        "output_format",
        type=click.Choice(choices),
        default=choices[0],
        show_default=True,
        help=f"table: readable; json: the server's document; csv: one row per {row}.",
    )


def fail(message: str) -> NoReturn:
    """Print ``Error: message`` on one line on stderr (click's own prefix, as its usage errors)
    and exit 1."""
    click.echo(f"Error: {' '.join(message.split())}", err=True)
    raise click.exceptions.Exit(1)


def console() -> Console:
    """stdout; wide when not a terminal, so piped tables keep whole node ids on one line."""
    out = Console(highlight=False, soft_wrap=True)
    if not out.is_terminal:
        out.width = 400
    return out


def show(
    response: httpx.Response, output_format: str, print_table: Callable[[dict[str, Any]], None]
) -> None:
    """Print a server's answer as asked: ``csv`` as the server sent it, ``json`` indented, else
    (``table``) by ``print_table``."""
    if output_format == "csv":
        click.echo(response.text, nl=False)
        return
    body = response.json()
    if output_format == "json":
        click.echo(json.dumps(body, indent=2))
        return
    print_table(body)


def truncation_note(body: dict[str, Any]) -> str | None:
    """What an analysis answer's ``truncated`` / ``truncatedReason`` say, as one line (None when
    the answer is whole)."""
    if not body.get("truncated"):
        return None
    if body.get("truncatedReason") == "work budget":
        return "truncated: the analysis reached the server's work budget (the answer is partial)"
    return "truncated at the server's node cap (nearest kept)"


def base_url(url: str) -> str:
    """The server's base URL: ``/api/v1/lineage`` or ``/api/v1`` at the end are dropped."""
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise click.BadParameter(f"not an http(s) URL: {redact_url(url)!r}", param_hint="'--url'")
    path = parts.path.rstrip("/")
    for suffix in (LINEAGE_PATH, "/api/v1"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            break
    return urlunsplit(parts._replace(path=path, query="", fragment=""))


def get(
    url: str,
    api_key: str | None,
    timeout: float,
    path: str,
    params: dict[str, Any],
    also: tuple[int, ...] = (),
) -> httpx.Response:
    """``GET base_url(url) + path``; any answer but 200 (and the statuses in ``also``, returned
    to the caller) ends the command with one line."""
    params = {k: v for k, v in params.items() if v is not None}
    return _request("GET", url, api_key, timeout, path, also, params=params)


def post(
    url: str,
    api_key: str | None,
    timeout: float,
    path: str,
    body: Any,
    also: tuple[int, ...] = (),
) -> httpx.Response:
    """``POST base_url(url) + path`` with a JSON body; any answer but 200 (and the statuses in
    ``also``) ends the command with one line, as :func:`get`."""
    return _request("POST", url, api_key, timeout, path, also, json=body)


def _request(
    method: str,
    url: str,
    api_key: str | None,
    timeout: float,
    path: str,
    also: tuple[int, ...],
    **kwargs: Any,
) -> httpx.Response:
    base = base_url(url)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        response = httpx.request(method, base + path, headers=headers, timeout=timeout, **kwargs)
    except httpx.HTTPError as exc:
        fail(f"cannot reach {redact_url(base)}: {exc or type(exc).__name__}")
    if response.status_code != 200 and response.status_code not in also:
        try:
            body = response.json()
            message = str(body.get("message"))
            for error in body.get("errors") or []:
                field = f"{error['field']}: " if error.get("field") else ""
                message += f"; {field}{error.get('message')}"
        except (ValueError, AttributeError, KeyError, TypeError):
            message = response.text[:200] or response.reason_phrase
        fail(f"{response.status_code}: {message}")
    return response


UNKNOWN = 2  # exit status of a question the server cannot answer as asked (an unknown namespace)


def known_namespaces(
    url: str, api_key: str | None, timeout: float, namespaces: tuple[str, ...] | list[str]
) -> None:
    """Every namespace asked about must be one the server knows (and the token may read): an
    unknown one (a typo) is one line and exit 2, never an empty answer that reads as "all is
    well"."""
    for name in dict.fromkeys(namespaces):
        path = f"/api/v1/namespaces/{quote(name, safe='')}"
        if get(url, api_key, timeout, path, {}, also=(404,)).status_code == 404:
            click.echo(
                f"Error: --namespace: the server knows no namespace {name!r} (cannot tell)",
                err=True,
            )
            raise click.exceptions.Exit(UNKNOWN)
