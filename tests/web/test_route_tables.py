"""The UI's routes are named twice, by necessity: app.js's client-side router draws each page, and
routes.py's UI_ROUTES tells the server which deep links get index.html (the others stay 404 and
never shadow the API). This test holds them together: a page added on one side only fails here
(issue 29: a page the server does not know is a 404 on reload; a prefix the UI does not own is
an index.html where a 404 belongs)."""

from __future__ import annotations

import re

from plumbline.web.routes import STATIC_DIR, UI_ROUTES

_TABLE = re.compile(r"^const routes = \[\n(?P<body>.*?)^\];", re.MULTILINE | re.DOTALL)
_PATH = re.compile(r"\{\s*path:\s*'(?P<path>[^']*)'")


def app_js_paths() -> list[str]:
    """The `path` of every entry of app.js's `routes` table."""
    source = (STATIC_DIR / "js" / "app.js").read_text()
    table = _TABLE.search(source)
    assert table is not None, "app.js has no `const routes = [ ... ];` table"
    entries = [line for line in table["body"].splitlines() if line.strip()]
    paths = [m["path"] for m in map(_PATH.search, entries) if m]
    assert len(paths) == len(entries), f"an entry of app.js's routes has no path: {entries}"
    return paths


def test_app_js_and_routes_py_name_the_same_pages() -> None:
    from_js = {path.lstrip("/").split("/", 1)[0] for path in app_js_paths()}
    assert sorted(from_js - UI_ROUTES) == [], "pages of app.js missing from routes.py UI_ROUTES"
    assert sorted(UI_ROUTES - from_js) == [], "UI_ROUTES prefixes app.js has no page for"


def test_the_table_is_read_whole() -> None:
    paths = app_js_paths()
    assert "/" in paths and "/runs/:id/diff" in paths
    assert len(paths) >= len(UI_ROUTES)
