"""Settings precedence, dataset naming and job naming (no Spark needed)."""

from __future__ import annotations

import logging

import pytest

from plumbline.spark.datasets import from_jdbc, from_location, redact_text, strip_credentials
from plumbline.spark.errors import SettingsError
from plumbline.spark.events import normalize_name
from plumbline.spark.settings import resolve


def test_settings_precedence_arguments_conf_env() -> None:
    conf = {
        "spark.plumbline.transport.type": "file",
        "spark.plumbline.transport.path": "/tmp/conf.jsonl",
        "spark.plumbline.namespace": "from_conf",
    }
    env = {"PLUMBLINE_NAMESPACE": "from_env", "PLUMBLINE_API_KEY": "k-env"}
    settings = resolve({"namespace": "from_arg"}, conf, env)
    assert (settings.transport_type, settings.path, settings.namespace, settings.api_key) == (
        "file",
        "/tmp/conf.jsonl",
        "from_arg",
        "k-env",
    )
    assert "k-env" not in repr(settings)
    assert resolve({}, {}, {"PLUMBLINE_URL": "http://h:5000"}).transport_type == "http"


def test_default_is_console_with_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        settings = resolve({}, {}, {})
    assert (settings.transport_type, settings.namespace) == ("console", "default")
    assert len([r for r in caplog.records if "no transport configured" in r.message]) == 1


def test_dataset_names() -> None:
    assert from_location("file:/tmp/x/out/") == from_location("/tmp/x/out")
    assert from_location("file:/tmp/x/out/").name == "/tmp/x/out"
    hdfs = from_location("hdfs://nn:8020/data/t")
    assert (hdfs.namespace, hdfs.name) == ("hdfs://nn:8020", "/data/t")
    s3 = from_location("s3a://bucket/key/part")
    assert (s3.namespace, s3.name) == ("s3://bucket", "key/part")
    pg = from_jdbc("jdbc:postgresql://user:pw@db:5433/shop?password=x", "sales.orders")
    assert (pg.namespace, pg.name) == ("postgres://db:5433", "shop.sales.orders")
    assert from_jdbc("jdbc:postgresql://db/shop", "orders").name == "shop.public.orders"
    assert strip_credentials("http://u:p@h:1/p?token=t&a=1") == "http://h:1/p?a=1"


def test_job_name_normalization() -> None:
    assert normalize_name("myTestApp") == "my_test_app"
    assert normalize_name("InsertIntoHadoopFsRelationCommand") == (
        "insert_into_hadoop_fs_relation_command"
    )
    assert normalize_name("Daily ETL -- v2") == "daily_etl_v2"


def test_error_text_is_redacted() -> None:
    text = "cannot connect to jdbc:postgresql://app:hunter2@db:5432/x?password=hunter2&ssl=true"
    assert (
        redact_text(text) == "cannot connect to jdbc:postgresql://db:5432/x?password=***&ssl=true"
    )


def test_unknown_transport_type_is_refused() -> None:
    with pytest.raises(SettingsError, match="kafka"):
        resolve({"type": "kafka"}, {}, {})


def test_table_memory_follows_create_rename_drop() -> None:
    from plumbline.spark.datasets import DatasetId
    from plumbline.spark.ddl import TableMemory
    from plumbline.spark.facts import ActionFacts, DatasetFacts
    from plumbline.spark.jvm import TableInfo

    def ddl(
        command: str, lifecycle: str, table: str, schema: list[str], moved: str = ""
    ) -> ActionFacts:
        output = DatasetFacts(DatasetId("file", f"/w/{table}"), lifecycle=lifecycle)
        output.table = TableInfo("db", table, f"file:/w/{table}")
        output.schema = [{"name": n, "type": "int"} for n in schema]
        output.previous_table = TableInfo("db", moved, f"file:/w/{moved}") if moved else None
        return ActionFacts(command, outputs=[output])

    memory = TableMemory(limit=2)
    memory.remember(ddl("CreateDataSourceTableCommand", "CREATE", "T", ["a"]))
    assert [f["name"] for f in memory.get("DB", "t").schema] == ["a"]  # case-insensitive
    memory.remember(ddl("InsertIntoHadoopFsRelationCommand", "OVERWRITE", "t", ["x"]))  # ignored
    memory.remember(ddl("AlterTableRenameCommand", "RENAME", "u", ["a"], moved="t"))
    assert memory.get("db", "t") is None and memory.get("db", "u") is not None
    failed = ddl("AlterTableAddColumnsCommand", "ALTER", "u", ["a", "b"])
    failed.error = ("boom", "")
    memory.remember(failed)  # a failed statement changed nothing
    assert [f["name"] for f in memory.get("db", "u").schema] == ["a"]
    unmodeled = ActionFacts("AlterTableChangeColumnCommand")  # writes nothing the capture models
    memory.remember(unmodeled, {("AlterTableEvent", "db", "u")})  # ... but the catalog saw it
    assert memory.get("db", "u") is None
    memory.remember(ddl("CreateDataSourceTableCommand", "CREATE", "u", ["a"]))
    memory.remember(ddl("DropTable", "DROP", "u", []))
    assert memory.get("db", "u") is None
    for name in ("p", "q", "r"):
        memory.remember(ddl("CreateDataSourceTableCommand", "CREATE", name, ["a"]))
    assert memory.get("db", "p") is None and memory.get("db", "r") is not None  # bounded


def test_a_failed_application_says_why() -> None:
    from plumbline.spark.events import application_error

    try:
        raise ValueError("bad input at jdbc:postgresql://u:secret@db/x")
    except ValueError as exc:
        facet = application_error(exc)
    assert facet["message"].startswith("ValueError: bad input at")
    assert "secret" not in facet["message"] and "secret" not in facet["stackTrace"]
    assert "Traceback (most recent call last)" in facet["stackTrace"]
    assert facet["programmingLanguage"] == "PYTHON"
    assert application_error(None)["message"] == "the Spark application failed"
