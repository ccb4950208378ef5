"""Every `plumbline db` command says plainly when it cannot reach the database (no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from plumbline.cli import main, one_line


@pytest.mark.parametrize(
    "command", [["upgrade"], ["prune", "--older-than", "30d"], ["renormalize"]]
)
def test_an_unreachable_database_is_a_clear_error(pg_url: str, command: list[str]) -> None:
    missing = sa.make_url(pg_url).set(database="plumbline_no_such_database")
    result = CliRunner().invoke(
        main, ["db", *command, "--db", missing.render_as_string(False)], env={}
    )
    assert result.exit_code == 1, result.output
    assert "cannot reach the database" in result.output
    assert 'database "plumbline_no_such_database" does not exist' in result.output
    assert "Traceback" not in result.output


def test_a_failing_statement_is_not_called_unreachable(tmp_path: Path) -> None:
    """A database that answers but refuses a statement says so, not "cannot reach"."""
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'store.db'}")
    with pytest.raises(sa.exc.DBAPIError) as refused, engine.connect() as connection:
        connection.execute(sa.text("SELECT * FROM no_such_table"))
    engine.dispose()
    line = one_line(refused.value)
    assert line == "a database statement failed: no such table: no_such_table"


def test_a_database_out_of_reach_is_unreachable(tmp_path: Path) -> None:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'no' / 'such' / 'folder.db'}")
    with pytest.raises(sa.exc.DBAPIError) as refused, engine.connect():
        pass
    engine.dispose()
    assert one_line(refused.value) == "cannot reach the database: unable to open database file"
