"""The outbox: durable, ordered, retried delivery of accepted events to forward targets.

The table operations (enqueue, claim, mark, summarize, retry) are the store's
(:mod:`plumbline.store.outbox`); ``delivery`` posts one
event body to one target, ``worker`` runs a delivery loop per target on a thread, ``policy`` holds the
retry settings.
"""

from plumbline.server.outbox.policy import OutboxPolicy

__all__ = ["OutboxPolicy"]
