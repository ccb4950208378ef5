"""Errors of event-log extraction: each is reported for its file, never stopping the others."""

from __future__ import annotations

from plumbline.errors import PlumblineError


class EventLogError(PlumblineError):
    """A log that cannot be read: an unknown codec, a corrupt or truncated file, a bad path."""
