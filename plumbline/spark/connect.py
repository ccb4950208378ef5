"""Spark Connect: where the capture can run when the job's session is a Connect client.

A Connect client (`SparkSession.builder.remote("sc://…")`) has no JVM in its process: the plans run
in the server's driver, so that is where lineage is captured. Two drivers plumbline can be in:

- the in-process server of `SparkSession.builder.remote("local[…]")`: pyspark starts a classic
  session with the Connect plugin in this very process, and the capture runs on it;
- `plumbline connect-server`: a classic session hosted by plumbline with the Connect plugin loaded,
  capture enabled, serving any number of clients (their queries share its listener bus).

A JVM Connect server plumbline is not part of (`start-connect-server.sh`, a cluster's) is read from
its event logs instead. Nothing here imports pyspark's Connect client (it needs grpc).
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)

CONNECT_PLUGIN = "org.apache.spark.sql.connect.SparkConnectPlugin"
NO_DRIVER_HERE = (
    "plumbline: this SparkSession is a Spark Connect client, whose plans run in the server's "
    "driver, not in this process: the job runs without capture. Capture where the driver is: "
    "serve your clients with `plumbline connect-server` (or use remote('local[…]')), or extract "
    "lineage from the server's Spark event logs"
)


def is_connect_session(spark: Any) -> bool:
    """True for a Spark Connect client session (pyspark.sql.connect), which has no JVM gateway."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def local_server_session(spark: Any) -> Any | None:
    """The classic session hosting the in-process Connect server of a `remote("local[…]")`
    client, or None (a client of a server elsewhere)."""
    if not is_connect_session(spark):
        return None
    from pyspark.sql import SparkSession

    hosting = SparkSession._instantiatedSession
    if hosting is None or getattr(hosting.sparkContext, "_jsc", None) is None:
        return None
    plugins = hosting.sparkContext.getConf().get("spark.plugins", "") or ""
    return hosting if CONNECT_PLUGIN in plugins else None


def server_conf(host: str, port: int) -> dict[str, str]:
    """Spark configuration that makes a classic session serve Spark Connect at host:port."""
    return {
        "spark.plugins": CONNECT_PLUGIN,
        "spark.connect.grpc.binding.address": host,
        "spark.connect.grpc.binding.port": str(port),
    }


def free_port(host: str) -> int:
    """A TCP port free on `host` now (Spark's Connect server needs a number to bind)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def start_server(
    host: str,
    port: int,
    master: str,
    app_name: str,
    conf: dict[str, str],
    **capture_options: Any,
) -> tuple[Any, Any]:
    """Start a classic SparkSession serving Spark Connect at host:port with capture enabled.

    Returns (the session, the capture handle or None). `port` 0 picks a free port (read it back
    from the session's `spark.connect.grpc.binding.port`). Needs pyspark 4 (its wheel ships the
    Connect server); raises RuntimeError otherwise.
    """
    import pyspark
    from pyspark.sql import SparkSession

    from plumbline.spark.capture import enable

    if int(pyspark.__version__.split(".")[0]) < 4:
        raise RuntimeError(
            f"a Spark Connect server needs pyspark 4 or newer (this is {pyspark.__version__})"
        )
    settings = {"spark.ui.showConsoleProgress": "false", **conf}  # a server: no progress bars
    settings.update(server_conf(host, port or free_port(host)))
    plugins = [p for p in conf.get("spark.plugins", "").split(",") if p and p != CONNECT_PLUGIN]
    settings["spark.plugins"] = ",".join([*plugins, CONNECT_PLUGIN])
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    handle = enable(session, **{k: v for k, v in capture_options.items() if v is not None})
    return session, handle
