"""Expectations and baselines (issue 31 §1): the rule language (:mod:`rules`), checking it
against the store (:mod:`evaluate`), reports for CI (:mod:`report`) and baselines (:mod:`baseline`).

Other helpers use the rules through :func:`rules.load` / :func:`rules.parse_mapping` and the
typed :class:`rules.Expectations` (its ``declare`` list: :class:`rules.DeclaredEdge`)."""
