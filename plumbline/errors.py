"""The root of plumbline's exceptions, and the whole tree in one place.

Every package has one exception hierarchy; each derives from :class:`PlumblineError`, so a caller
can catch everything plumbline raises on purpose in one ``except``. The tree (each class with the
module that defines it; ``tests/test_surfaces.py`` fails when a class is missing here, drawn under
the wrong parent or in the wrong module):

* PlumblineError (plumbline.errors)
  * OpenLineageError (plumbline.openlineage.errors): an event or body that is not OpenLineage
    * EventValidationError (plumbline.openlineage.errors)
    * BodyTooLargeError (plumbline.openlineage.decode)
    * MalformedBodyError (plumbline.openlineage.decode)
      * TooDeepError (plumbline.openlineage.decode)
    * UnsupportedEncodingError (plumbline.openlineage.decode)
  * TransportError (plumbline.transports.errors): events that could not be sent
    * TransportConfigError (plumbline.transports.errors): also a ValueError
  * CaptureError (plumbline.spark.errors): the Spark capture (logged, never raised into a job)
    * PlanError (plumbline.spark.errors)
    * SettingsError (plumbline.spark.errors)
  * EventLogError (plumbline.eventlogs.errors): one Spark event log that cannot be read
    * TruncatedError (plumbline.eventlogs.codecs)
    * DecompressionLimitError (plumbline.eventlogs.codecs)
  * StoreError (plumbline.store.errors): the lineage store
    * SchemaTooNewError (plumbline.store.errors)
    * UnsupportedDatabaseURLError (plumbline.store.errors)
    * NormalizeError (plumbline.store.write.normalizer)
    * RunConflictError (plumbline.store.write.conflicts)
    * ReadError (plumbline.store.read.errors)
      * NotFoundError (plumbline.store.read.errors)
      * InvalidArgumentError (plumbline.store.read.errors)
  * ExportError (plumbline.export.errors): ``plumbline export``
  * ExpectationsError (plumbline.expectations.rules): a malformed expectations file or body; also a
    ValueError
  * BaselineError (plumbline.expectations.baseline): a file that is not a baseline; also a ValueError
  * ConfigError (plumbline.server.config): the server's settings
  * TokenError (plumbline.server.tokens): API tokens
  * CatalogError (plumbline.server.catalog.errors): table catalogs (enrichment)
    * UnknownCatalogError (plumbline.server.catalog.errors)
    * UnknownTableError (plumbline.server.catalog.errors)
    * CatalogUnavailableError (plumbline.server.catalog.errors)
  * APIError (plumbline.server.errors): an HTTP error answer of the API
  * UnknownKeys (plumbline.server.typed_table): also a ValueError
  * BadValue (plumbline.server.typed_table): also a ValueError
  * RefusedAddress (plumbline.server.outbox.addresses): also a ValueError
  * DemoError (plumbline.demo.errors): ``plumbline demo``
    * CaptureUnavailableError (plumbline.demo.errors)
    * StepFailedError (plumbline.demo.errors)
    * DeliveryError (plumbline.demo.errors)

Outside the tree on purpose: NoStore (plumbline.cli.stores), a ``click.ClickException`` (a usage
error, exit status 2), and private classes (a leading underscore) that never leave their module.
"""

from __future__ import annotations


class PlumblineError(Exception):
    """Base class of every exception plumbline raises on purpose."""
