"""plumbline.web: the browser UI, served by the plumbline server at ``/``.

Hand-written ES modules, HTML and CSS under ``static/`` (no build step, no Node.js at runtime):

- ``js/layout.js``: layered left-to-right graph layout (cycle breaking, longest-path layers,
  barycenter ordering, neighbour-pulled placement, routed edges); pure, tested in the browser.
- ``js/graph_model.js`` / ``js/graph_view.js``: the explored graph (merge, expand, paths) and its
  SVG rendering with pan, zoom, fit and level of detail.
- ``js/views/``: one module per page (overview, lineage, dataset, job, run, events).
- ``js/api.js`` / ``js/auth.js``: the Marquez-compatible ``/api/v1`` client; a token prompt on 401,
  kept in ``sessionStorage``.

``routes.mount_ui(app)`` serves the assets under ``/ui-assets`` and ``index.html`` for deep links.
"""
