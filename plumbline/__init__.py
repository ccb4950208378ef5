"""plumbline: data lineage for Spark pipelines, spoken in OpenLineage."""

from plumbline.errors import PlumblineError

__version__ = "0.1.0"

__all__ = ["PlumblineError", "__version__"]
