"""plumbline.server: the lineage server (ingestion, read API, auth, forwarding, catalogs, metrics).

Other packages (the command line, the demo) use only the names in ``__all__``: build the settings
at the edge (:func:`build_settings` reads flags, the config file and the environment), then
:func:`create_app`, which depends on nothing but its settings. Every module of the package is
internal and may change without notice; ``tests/test_surfaces.py`` checks that other packages keep
to this surface.

Names are imported on first use (see :mod:`plumbline._exports`): importing the package is cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from plumbline._exports import load_export

if TYPE_CHECKING:
    from plumbline.server.app import create_app
    from plumbline.server.config import ConfigError, build_settings
    from plumbline.server.gc_schedule import schedule_full_collections
    from plumbline.server.outbox.policy import OutboxPolicy
    from plumbline.server.runner import BackgroundServer, base_url, bind_socket, uvicorn_server
    from plumbline.server.settings import ForwardTarget, ServerSettings
    from plumbline.server.tokens import (
        TokenError,
        TokenInfo,
        create_token,
        list_tokens,
        revoke_token,
    )
    from plumbline.server.workers import run_workers

# public name -> the module that defines it
_EXPORTS = {
    "create_app": "plumbline.server.app",
    "ConfigError": "plumbline.server.config",
    "build_settings": "plumbline.server.config",
    "schedule_full_collections": "plumbline.server.gc_schedule",
    "OutboxPolicy": "plumbline.server.outbox.policy",
    "BackgroundServer": "plumbline.server.runner",
    "base_url": "plumbline.server.runner",
    "bind_socket": "plumbline.server.runner",
    "uvicorn_server": "plumbline.server.runner",
    "ForwardTarget": "plumbline.server.settings",
    "ServerSettings": "plumbline.server.settings",
    "TokenError": "plumbline.server.tokens",
    "TokenInfo": "plumbline.server.tokens",
    "create_token": "plumbline.server.tokens",
    "list_tokens": "plumbline.server.tokens",
    "revoke_token": "plumbline.server.tokens",
    "run_workers": "plumbline.server.workers",
}

__all__ = [
    "BackgroundServer",
    "ConfigError",
    "ForwardTarget",
    "OutboxPolicy",
    "ServerSettings",
    "TokenError",
    "TokenInfo",
    "base_url",
    "bind_socket",
    "build_settings",
    "create_app",
    "create_token",
    "list_tokens",
    "revoke_token",
    "run_workers",
    "schedule_full_collections",
    "uvicorn_server",
]


def __getattr__(name: str) -> object:
    return load_export(__name__, _EXPORTS, name)
