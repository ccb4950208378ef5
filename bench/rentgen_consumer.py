"""Data.Rentgen's consumer, fed batches from standard input: run by ``bench/rentgen_compare.py`` in
Data.Rentgen's own virtualenv (this file imports nothing of plumbline).

The consumer is wired exactly as Data.Rentgen wires it (``data_rentgen.consumer.broker_factory``:
its Kafka batch subscriber ``runs_events_subscriber``, the SQLAlchemy async session on its
PostgreSQL database, settings from ``DATA_RENTGEN__*`` variables) and driven through FastStream's
in-memory test broker (``TestKafkaBroker``, as Data.Rentgen's own consumer tests do): each batch
read here is one ``publish_batch`` of its events to the subscribed topic, which calls the
subscriber with the batch as Kafka would deliver it (one list of ``ConsumerRecord``) and returns
once the subscriber has saved it.

Protocol: once set up, prints ``ready``; then reads batches (a line with the number of events, then
one event's JSON per line) until end of input; then prints one JSON line: seconds from the first
batch read to the last one saved, and this process's CPU seconds over the same span.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time


async def main() -> None:
    from data_rentgen.consumer import broker_factory
    from data_rentgen.consumer.settings import ConsumerApplicationSettings
    from faststream.kafka import TestKafkaBroker

    settings = ConsumerApplicationSettings()
    topic = settings.consumer.topics_list[0]
    broker = broker_factory(settings)
    malformed = 0

    @broker.subscriber(settings.producer.malformed_topic)
    async def count_malformed(message: bytes) -> None:  # what the consumer sends back as malformed
        nonlocal malformed
        malformed += 1

    source = sys.stdin.buffer
    async with TestKafkaBroker(broker) as test_broker:
        print("ready", flush=True)
        started = cpu = None
        batches = 0
        while header := source.readline():
            if started is None:
                started, cpu = time.perf_counter(), time.process_time()
            events = [source.readline().rstrip(b"\n") for _ in range(int(header))]
            await test_broker.publish_batch(*events, topic=topic)
            batches += 1
        elapsed = time.perf_counter() - (started or time.perf_counter())
        used = time.process_time() - (cpu or time.process_time())
    print(json.dumps({"seconds": elapsed, "cpu": used, "batches": batches, "malformed": malformed}))


if __name__ == "__main__":
    asyncio.run(main())
