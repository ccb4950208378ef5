"""The exception hierarchy of the Spark capture.

Capture errors never reach the user's job: the listener logs and swallows them. They exist so
that the capture's own code can tell its failures apart from everything else.
"""

from __future__ import annotations

from plumbline.errors import PlumblineError


class CaptureError(PlumblineError):
    """Base class of every error raised by plumbline.spark."""


class PlanError(CaptureError):
    """A plan's JSON form could not be read."""


class SettingsError(CaptureError):
    """The capture settings are invalid (unknown transport type, missing path...)."""
