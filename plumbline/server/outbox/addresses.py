"""Which addresses a webhook may be posted to (issue 28 item 8).

A ``[[notify]]`` URL is the operator's, but the server posts to it from inside the network it runs
in: a URL naming the cloud's metadata service (``169.254.169.254``) or an admin port on loopback
would turn alerts into requests the operator did not mean. So a webhook never goes to a link-local,
multicast, unspecified or reserved address, and goes to a loopback or private one (RFC 1918, ULA,
``localhost``) only when its ``[[notify]]`` table says ``allow_private = true``. The rule is
checked on the URL's literal address when the settings are read, and on every address its host
name resolves to before each post and each redirect followed (docs/reference.md, "Notifications").
The connection itself goes through :class:`CheckedBackend`, which connects to the very address it
checked: a DNS server answering a public address to the check and a private one to the connection
(DNS rebinding) gets nothing.
"""

from __future__ import annotations

import ipaddress
import socket
import typing
from urllib.parse import urlsplit

import httpcore
import httpx

from plumbline.errors import PlumblineError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})


class RefusedAddress(PlumblineError, ValueError):
    """A webhook URL whose host is not an address the server posts to."""


def refusal(address: Address, allow_private: bool) -> str | None:
    """Why the server does not post to ``address``; None when it may."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_link_local:
        return f"{address} is link-local (where cloud metadata services answer): never a webhook"
    if address.is_multicast or address.is_unspecified or address.is_reserved:
        return f"{address} is not a unicast host address: never a webhook"
    if not allow_private and (address.is_loopback or address.is_private):
        kind = "loopback" if address.is_loopback else "private"
        return (
            f"{address} is a {kind} address: set allow_private = true in its [[notify]] table "
            "to post alerts inside this network"
        )
    return None


def check_literal(url: str, allow_private: bool) -> None:
    """Raise :class:`RefusedAddress` when ``url``'s host is, as written, an address (or a name
    of loopback) the server does not post to. Host names are checked when they are resolved
    (:func:`check_resolved`)."""
    host = (urlsplit(url.strip()).hostname or "").rstrip(".").lower()
    if host in _LOCAL_NAMES or host.endswith(".localhost"):
        if not allow_private:
            raise RefusedAddress(
                f"{host} is loopback: set allow_private = true in its [[notify]] table "
                "to post alerts inside this network"
            )
        return
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return
    reason = refusal(address, allow_private)
    if reason is not None:
        raise RefusedAddress(reason)


def check_resolved(url: str, allow_private: bool) -> None:
    """Raise :class:`RefusedAddress` when any address ``url``'s host resolves to now is refused
    (:func:`refusal`); :class:`OSError` when it does not resolve."""
    check_literal(url, allow_private)
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    for *_, sockaddr in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        reason = refusal(ipaddress.ip_address(str(sockaddr[0]).partition("%")[0]), allow_private)
        if reason is not None:
            raise RefusedAddress(f"{host} resolves to {reason}")


class CheckedBackend(httpcore.NetworkBackend):
    """httpcore's network backend for webhooks: resolves the host once per connection, refuses
    (:class:`RefusedAddress`) when any address it resolves to is refused, and connects to those
    addresses themselves, so no second lookup happens between the check and the connection.
    TLS still verifies the URL's host name (httpcore passes it apart from the address)."""

    def __init__(self, allow_private: bool) -> None:
        self._allow_private = allow_private
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        try:
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise httpcore.ConnectError(f"{host}: {exc}") from exc
        addresses = [ipaddress.ip_address(str(info[4][0]).partition("%")[0]) for info in found]
        for address in addresses:
            reason = refusal(address, self._allow_private)
            if reason is not None:
                raise RefusedAddress(f"{host} resolves to {reason}")
        error: httpcore.ConnectError | None = None
        for address in addresses:
            try:
                return self._inner.connect_tcp(
                    str(address), port, timeout, local_address, socket_options
                )
            except httpcore.ConnectError as exc:
                error = exc
        raise error or httpcore.ConnectError(f"{host} resolves to no address")

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        raise RefusedAddress("a unix socket is never a webhook")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class CheckedTransport(httpx.HTTPTransport):
    """httpx's transport with a :class:`CheckedBackend` under its connection pool (httpx takes no
    network backend as an argument, so the pool it built is replaced with one that has it)."""

    def __init__(self, allow_private: bool) -> None:
        super().__init__()
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            network_backend=CheckedBackend(allow_private),
        )
