"""The demo's exceptions."""

from __future__ import annotations

from plumbline.errors import PlumblineError


class DemoError(PlumblineError):
    """The demo could not run to the end."""


class CaptureUnavailableError(DemoError):
    """plumbline's Spark capture cannot be enabled."""


class StepFailedError(DemoError):
    """A job failed that should have succeeded, or succeeded where the scenario needs a failure."""


class DeliveryError(DemoError):
    """The capture could not deliver every event to the server in time."""
