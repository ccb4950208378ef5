"""The export's errors."""

from plumbline.errors import PlumblineError


class ExportError(PlumblineError):
    """An export that cannot run (an unknown format, a missing Parquet library, a bad folder)."""
