"""Every `plumbline db` command says plainly when it cannot reach the database (no traceback)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from plumbline.cli import main


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
