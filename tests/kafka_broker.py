"""A real single-node Kafka broker (KRaft: broker and controller in one JVM) for the tests.

`start_broker(folder)` runs Apache Kafka from the jars of the `kafka-broker` set of
scripts/spark-jars.toml (fetched into the jar cache by `scripts/setup.sh --test`, or here on first
use) on two free ports of 127.0.0.1: it writes `server.properties`, formats the storage with a
random cluster id (`kafka.tools.StorageTool format`), starts `kafka.Kafka server.properties` and
returns once a record produced to the broker has been read back. The folder keeps the broker's
configuration, data and logs (`broker.log`: log4j; `broker.out`: the JVM's own output), so a
failing test can be read afterwards. `KafkaBroker.tool(...)` runs KafkaTool.java (its commands:
create, delete, produce, consume) against the broker. The session fixture is `kafka_broker` in
tests/conftest.py. Standard library only.
"""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FETCH = ROOT / "scripts" / "fetch_jars.py"
TOOL = Path(__file__).with_name("KafkaTool.java")
JAR_SET = "kafka-broker"
# a small broker: one JVM on a shared 2-core machine, C1 only (it starts faster and a test broker
# moves a few hundred records)
JVM_OPTIONS = [
    "-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
    "-Djava.awt.headless=true",
]  # fmt: skip
START_SECONDS = 120.0
TOOL_LOG4J = (  # KafkaTool's clients: warnings and errors to its standard error
    "status = warn\nrootLogger.level = WARN\nrootLogger.appenderRef.err.ref = ERR\n"
    "appender.err.type = Console\nappender.err.name = ERR\nappender.err.target = SYSTEM_ERR\n"
    "appender.err.layout.type = PatternLayout\nappender.err.layout.pattern = %p %m (%c)%n\n"
)


class BrokerError(Exception):
    """The broker did not start, or a KafkaTool command failed (with the log's tail)."""


def broker_jars() -> list[Path]:
    """The broker's class path: every jar of the set (none left out for Spark's own)."""
    done = subprocess.run(
        [sys.executable, str(FETCH), "--print", "any", JAR_SET],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise BrokerError(done.stderr.strip())
    return [Path(x) for x in done.stdout.splitlines()]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cluster_id() -> str:
    """A random Kafka cluster id (a UUID in URL-safe base64 without padding, as Kafka's `Uuid`)."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()


def _properties(folder: Path, port: int, controller_port: int) -> str:
    settings = {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.voters": f"1@127.0.0.1:{controller_port}",
        "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        "log.dirs": str(folder / "data"),
        "num.partitions": "1",
        "auto.create.topics.enable": "true",
        "delete.topic.enable": "true",
        "offsets.topic.replication.factor": "1",
        "offsets.topic.num.partitions": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "transaction.state.log.num.partitions": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "share.coordinator.state.topic.min.isr": "1",
        "group.initial.rebalance.delay.ms": "0",
        "num.network.threads": "1",
        "num.io.threads": "2",
        "background.threads": "2",
        "num.recovery.threads.per.data.dir": "1",
        "log.cleaner.threads": "1",
        "log.flush.interval.messages": "1000000",
    }
    return "".join(f"{k}={v}\n" for k, v in settings.items())


def _log4j(folder: Path) -> str:
    return (
        "status = warn\n"
        "appender.file.type = File\n"
        "appender.file.name = FILE\n"
        f"appender.file.fileName = {folder / 'broker.log'}\n"
        "appender.file.layout.type = PatternLayout\n"
        "appender.file.layout.pattern = [%d] %p %m (%c)%n\n"
        "rootLogger.level = INFO\n"
        "rootLogger.appenderRef.file.ref = FILE\n"
    )


def _tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no {path.name})"


@dataclass
class KafkaBroker:
    """A running broker: `bootstrap` is `127.0.0.1:<port>` (the namespace is `kafka://` + it)."""

    bootstrap: str
    folder: Path
    process: subprocess.Popen[bytes]
    classpath: str
    started_seconds: float = 0.0

    @property
    def namespace(self) -> str:
        return f"kafka://{self.bootstrap}"

    @property
    def log(self) -> Path:
        return self.folder / "broker.log"

    def tool(self, *args: str, timeout: float = 120.0) -> str:
        """Run a KafkaTool.java command against the broker; its standard output."""
        return run_tool(self.bootstrap, self.folder, self.classpath, *args, timeout=timeout)

    def stop(self, timeout: float = 30.0) -> None:
        """A controlled shutdown (SIGTERM), then a kill if the broker does not stop in time."""
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout)


def run_tool(
    bootstrap: str, folder: Path, classpath: str, *args: str, timeout: float = 120.0
) -> str:
    """Run a KafkaTool.java command (compiled once into `folder`/tool) against `bootstrap`; its
    standard output. A job in another process reaches the tests' broker with this too."""
    classes = folder / "tool"
    if not (classes / "KafkaTool.class").is_file():
        compiled = subprocess.run(
            ["javac", "-nowarn", "-cp", classpath, "-d", str(classes), str(TOOL)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if compiled.returncode != 0:
            raise BrokerError(f"javac KafkaTool.java failed: {compiled.stderr[-2000:]}")
    done = subprocess.run(
        ["java", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
         f"-Dlog4j2.configurationFile={folder / 'tool-log4j2.properties'}",
         "-cp", os.pathsep.join([str(classes), classpath]), "KafkaTool", bootstrap, *args],
        capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        log = folder / "broker.log"
        raise BrokerError(
            f"KafkaTool {' '.join(args)} failed: {done.stderr[-2000:]}\n"
            f"broker log ({log}):\n{_tail(log)}"
        )
    return done.stdout


def start_broker(folder: Path) -> KafkaBroker:
    """Format, start and check a broker whose configuration, data and logs live in `folder`."""
    began = time.monotonic()
    folder.mkdir(parents=True, exist_ok=True)
    classpath = os.pathsep.join(str(x) for x in broker_jars())
    port, controller_port = _free_port(), _free_port()
    properties = folder / "server.properties"
    properties.write_text(_properties(folder, port, controller_port))
    (folder / "log4j2.properties").write_text(_log4j(folder))
    (folder / "tool-log4j2.properties").write_text(TOOL_LOG4J)
    java = [
        "java", *JVM_OPTIONS, f"-Dlog4j2.configurationFile={folder / 'log4j2.properties'}",
        f"-Dkafka.logs.dir={folder}", "-cp", classpath,
    ]  # fmt: skip
    formatted = subprocess.run(
        [*java, "kafka.tools.StorageTool", "format", "-t", cluster_id(), "-c", str(properties)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    if formatted.returncode != 0:
        raise BrokerError(f"kafka storage format failed: {formatted.stdout}{formatted.stderr}")
    out = (folder / "broker.out").open("wb")
    process = subprocess.Popen(
        [*java, "kafka.Kafka", str(properties)], stdout=out, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    out.close()
    broker = KafkaBroker(f"127.0.0.1:{port}", folder, process, classpath)
    try:
        _wait_listening(broker, began + START_SECONDS)
        broker.tool("roundtrip", "plumbline-ready")
    except BaseException:
        broker.stop()
        raise
    broker.started_seconds = round(time.monotonic() - began, 1)
    return broker


def _wait_listening(broker: KafkaBroker, deadline: float) -> None:
    host, port = broker.bootstrap.split(":")
    while time.monotonic() < deadline:
        if broker.process.poll() is not None:
            raise BrokerError(
                f"the broker exited with {broker.process.returncode}:\n"
                f"{_tail(broker.folder / 'broker.out')}\n{_tail(broker.log)}"
            )
        try:
            with socket.create_connection((host, int(port)), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise BrokerError(f"the broker did not listen within {START_SECONDS} s:\n{_tail(broker.log)}")
