"""plumbline.transports: deliver OpenLineage events over http, to a file, or to the log.

`create_transport(TransportConfig(...))` gives a synchronous Transport; `AsyncEmitter` wraps one
so that producers (the Spark capture) never block or fail because lineage could not be sent.
"""

from plumbline.transports.base import Transport
from plumbline.transports.config import TransportConfig
from plumbline.transports.console import ConsoleTransport
from plumbline.transports.emitter import AsyncEmitter, EmitterStats
from plumbline.transports.errors import TransportConfigError, TransportError
from plumbline.transports.factory import create_transport
from plumbline.transports.file import FileTransport
from plumbline.transports.http import HttpTransport
from plumbline.transports.spill import default_spill_path

__all__ = [
    "AsyncEmitter",
    "ConsoleTransport",
    "EmitterStats",
    "FileTransport",
    "HttpTransport",
    "Transport",
    "TransportConfig",
    "TransportConfigError",
    "TransportError",
    "create_transport",
    "default_spill_path",
]
