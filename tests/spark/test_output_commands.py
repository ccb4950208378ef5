"""The output command table (vocabulary.OUTPUT_COMMANDS): every command named once, with a live
handler and an event-log handler (or the reason a log cannot name what it writes). No JVM."""

from __future__ import annotations

import pytest

import plumbline.spark.extract  # noqa: F401  (registers the live handlers)
from plumbline.eventlogs.outputs import LOG_OUTPUTS
from plumbline.spark import vocabulary as v
from plumbline.spark.outputs import LIVE_OUTPUTS, live_output

KINDS = {value for name, value in vars(v.Kind).items() if not name.startswith("_")}


@pytest.mark.parametrize("name", sorted(v.OUTPUT_COMMANDS))
def test_every_command_has_its_two_handlers(name: str) -> None:
    command = v.OUTPUT_COMMANDS[name]
    assert command.kind in KINDS, name
    assert command.live in LIVE_OUTPUTS, f"{name}: no live handler {command.live!r}"
    if command.log is None:
        assert command.no_log, f"{name}: no event-log handler and no reason why"
    else:
        assert command.log in LOG_OUTPUTS, f"{name}: no event-log handler {command.log!r}"
        assert not command.no_log, name


def test_every_handler_serves_a_command() -> None:
    used_live = {c.live for c in v.OUTPUT_COMMANDS.values()}
    used_log = {c.log for c in v.OUTPUT_COMMANDS.values()}
    assert set(LIVE_OUTPUTS) == used_live
    assert set(LOG_OUTPUTS) == used_log - {None}


def test_the_groups_other_modules_match_on_come_from_the_table() -> None:
    assert v.V2_WRITES == {
        "AppendData": None,
        "OverwriteByExpression": "OVERWRITE",
        "OverwritePartitionsDynamic": "OVERWRITE",
        "CreateTableAsSelect": "CREATE",
        "ReplaceTableAsSelect": "OVERWRITE",
    }
    assert v.WRITES_WITH_MODE == {
        "InsertIntoHadoopFsRelationCommand",
        "CreateDataSourceTableAsSelectCommand",
        "SaveIntoDataSourceCommand",
    }
    assert v.STREAM_WRITES <= v.WRITE_COMMANDS and set(v.V2_WRITES) <= v.WRITE_COMMANDS
    assert len(v.DDL_COMMANDS) == 11 and "TruncateTable" in v.DDL_COMMANDS
    every = (
        v.WRITE_COMMANDS,
        v.DDL_COMMANDS,
        v.FORMAT_DML,
        v.FORMAT_V2_WRITES,
        v.ROW_LEVEL_WRITES,
        v.PROCEDURE_CALLS,
    )
    assert sum(len(group) for group in every) + len(v.FORMAT_MAINTENANCE) == len(v.OUTPUT_COMMANDS)


def test_a_handler_name_is_registered_once() -> None:
    with pytest.raises(ValueError, match="two live handlers named insert_files"):
        live_output("insert_files")(lambda ex: None)
