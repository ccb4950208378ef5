"""The root of plumbline's exceptions.

Every package has one exception hierarchy (``OpenLineageError``, ``TransportError``,
``CaptureError``, ``StoreError``, ``ConfigError``, ``TokenError``, ``CatalogError``, ``APIError``,
``DemoError``); each derives from :class:`PlumblineError`, so a caller can catch everything
plumbline raises on purpose in one ``except`` (``tests/test_surfaces.py`` keeps it so).
"""

from __future__ import annotations


class PlumblineError(Exception):
    """Base class of every exception plumbline raises on purpose."""
