"""Shared fixtures: a store database on SQLite and on PostgreSQL, and a live server on a free port.

Every test that takes ``db_url`` runs twice, once per backend. PostgreSQL tests get a fresh database
cloned from a migrated template (fast), and drop it afterwards.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa
from downstream_server import Downstream, running_downstream
from hypothesis import settings as hypothesis_settings
from kafka_broker import KafkaBroker, start_broker
from spec_files import SPEC_DIR
from sqlalchemy.engine import Engine

PG_ADMIN_URL = os.environ.get(
    "PLUMBLINE_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
JDBC_JAR = Path("/usr/share/java/postgresql.jar")  # Debian's libpostgresql-jdbc-java
SPARK_APP_NAME = (
    "plumblineTests"  # jobs of the capture are named plumbline_tests.<command>.<output>
)


# property tests draw the same examples on every run (a CI result does not depend on luck) and
# keep no example database in the working tree
hypothesis_settings.register_profile("plumbline", derandomize=True, database=None)
hypothesis_settings.load_profile("plumbline")


def _pg_admin() -> Engine:
    return sa.create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    """Name of a PostgreSQL database migrated to the newest schema, used as a template."""
    from plumbline.store.engine import create_store_engine
    from plumbline.store.migrate import upgrade

    name = f"plumbline_tpl_{uuid.uuid4().hex[:10]}"
    admin = _pg_admin()
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine = create_store_engine(
        sa.make_url(PG_ADMIN_URL).set(database=name).render_as_string(False)
    )
    upgrade(engine)
    engine.dispose()
    yield name
    with admin.connect() as connection:
        connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """URL of a fresh, empty (unmigrated) PostgreSQL database, dropped after the test."""
    yield from _fresh_pg_database(template="template0")


def _fresh_pg_database(template: str) -> Iterator[str]:
    name = f"plumbline_t_{uuid.uuid4().hex[:12]}"
    admin = _pg_admin()
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    try:
        yield sa.make_url(PG_ADMIN_URL).set(database=name).render_as_string(False)
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(
    params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated store database URL, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        from plumbline.store.engine import create_store_engine
        from plumbline.store.migrate import upgrade

        url = f"sqlite:///{tmp_path / 'store.db'}"
        engine = create_store_engine(url)
        upgrade(engine)
        engine.dispose()
        yield url
    else:
        yield from _fresh_pg_database(template=request.getfixturevalue("pg_template"))


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine on the migrated test database (both backends)."""
    from plumbline.store.engine import create_store_engine

    eng = create_store_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture
def pg_engine(pg_template: str) -> Iterator[Engine]:
    """An engine on a migrated PostgreSQL database, for PostgreSQL-only behaviour."""
    from plumbline.store.engine import create_store_engine

    for url in _fresh_pg_database(template=pg_template):
        eng = create_store_engine(url)
        yield eng
        eng.dispose()


@dataclass
class LiveServer:
    """A plumbline server running on a free local port."""

    url: str
    db_url: str
    app: object

    @property
    def lineage_url(self) -> str:
        return f"{self.url}/api/v1/lineage"

    def settle(self, timeout: float = 30.0) -> None:
        """Wait until the server has normalized every event it accepted: reads through its API
        wait by themselves; a test that reads the database directly calls this first."""
        from plumbline.server.fresh_reads import wait_until_normalized
        from plumbline.store.write import writer_for

        store = self.app.state.store  # type: ignore[attr-defined]
        left = wait_until_normalized(store, writer_for(store.engine), timeout)
        assert left == 0, f"{left} events still pending after {timeout} s"


@pytest.fixture
def make_server(db_url: str) -> Iterator[Callable[..., LiveServer]]:
    """Start servers on the test database with custom settings: ``make_server(auth="required")``."""
    from plumbline.server.app import create_app
    from plumbline.server.runner import BackgroundServer
    from plumbline.server.settings import ServerSettings

    started: list[BackgroundServer] = []

    def start(**overrides: object) -> LiveServer:
        settings = ServerSettings(db_url=overrides.pop("db_url", db_url), port=0, **overrides)  # type: ignore[arg-type]
        app = create_app(settings)
        server = BackgroundServer(app, port=0)
        url = server.start()
        started.append(server)
        return LiveServer(url=url, db_url=settings.db_url, app=app)

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def live_server(make_server: Callable[..., LiveServer]) -> LiveServer:
    """A plumbline server with default settings on the test database (both backends)."""
    return make_server()


@pytest.fixture
def downstream() -> Iterator[Downstream]:
    """A recording OpenLineage endpoint that accepts everything (until told to fail)."""
    with running_downstream() as state:
        yield state


@pytest.fixture(scope="session")
def spec_dir() -> Path:
    """The official OpenLineage JSON Schemas and examples (../shared/openlineage-spec)."""
    assert SPEC_DIR.is_dir(), f"missing OpenLineage spec files at {SPEC_DIR}"
    return SPEC_DIR


@pytest.fixture(scope="session")
def spark_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Scratch space of the test session's SparkSession (warehouse, Derby metastore)."""
    return tmp_path_factory.mktemp("spark")


@pytest.fixture(scope="session")
def spark(spark_workdir: Path) -> Iterator[object]:
    """The one local SparkSession of the whole test session (2 cores, small shuffles, no UI).

    Folders that need other runtime settings set them for their own tests and restore them.
    """
    from pyspark.sql import SparkSession

    # Python workers run this interpreter, not the first python3 on PATH (Spark 4's Python UDFs
    # need this virtualenv's pyarrow)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master("local[2]")
        .appName(SPARK_APP_NAME)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.warehouse.dir", str(spark_workdir / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={spark_workdir}")
    )
    if JDBC_JAR.exists():
        builder = builder.config("spark.jars", str(JDBC_JAR))
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    """One real Kafka broker (KRaft, single node) on 127.0.0.1 for the whole test run, started on
    first use and stopped at the end; its configuration, data and logs (`broker.log`,
    `broker.out`) stay in the test run's `kafka0` tmp folder (tests/kafka_broker.py)."""
    broker = start_broker(tmp_path_factory.mktemp("kafka"))
    print(
        f"\n[kafka] broker {broker.bootstrap} up in {broker.started_seconds} s, logs in {broker.folder}"
    )
    yield broker
    broker.stop()
