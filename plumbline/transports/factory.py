"""create_transport: the transport a TransportConfig describes."""

from __future__ import annotations

from plumbline.transports.base import Transport
from plumbline.transports.config import TransportConfig
from plumbline.transports.console import ConsoleTransport
from plumbline.transports.errors import TransportConfigError
from plumbline.transports.file import FileTransport
from plumbline.transports.http import HttpTransport


def create_transport(config: TransportConfig) -> Transport:
    """Build the transport named by `config.type`."""
    if config.type == "http":
        return HttpTransport(config)
    if config.type == "file":
        assert config.path is not None  # guaranteed by TransportConfig validation
        return FileTransport(config.path)
    if config.type == "console":
        return ConsoleTransport()
    raise TransportConfigError(f"unknown transport type {config.type!r}")
