#!/usr/bin/env bash
# One command for a fresh machine: set up everything the tests need, then run them.
#
#   scripts/test.sh [PYTEST ARGS...]
#
# Runs pytest with the arguments on .venv (Spark 3.5), then the Spark tests (`-m spark`) again on
# .venv-spark4 (the newest Spark 4 line). That second pass runs when the arguments select the whole
# suite (no test path, no -k/-m, e.g. `scripts/test.sh -p no:cacheprovider` in CI); with a selection
# it runs only if PLUMBLINE_SPARK4=on (then `-m EXPR` becomes `-m "spark and (EXPR)"`).
# PLUMBLINE_SPARK4=off skips it, PLUMBLINE_SPARK4=only runs nothing but it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test

mode=${PLUMBLINE_SPARK4:-auto}
selects=0
spark4_args=()
marker=""
expect_marker=0
for arg in "$@"; do
  if [ $expect_marker -eq 1 ]; then marker=$arg; expect_marker=0; continue; fi
  case "$arg" in
    -m) expect_marker=1; selects=1; continue ;;
    -m*) marker=${arg#-m}; selects=1; continue ;;
    -k | -k*) selects=1 ;;
    -*) ;;
    *) [ -e "${arg%%::*}" ] && selects=1 ;;
  esac
  spark4_args+=("$arg")
done
if [ -n "$marker" ]; then marker="spark and ($marker)"; else marker="spark"; fi

status=0
if [ "$mode" != "only" ]; then
  .venv/bin/python -m pytest "$@" || status=$?
fi
if [ "$mode" = "only" ] || [ "$mode" = "on" ] || { [ "$mode" = "auto" ] && [ $selects -eq 0 ]; }; then
  printf '\033[1m[test]\033[0m Spark tests again on %s\n' \
    "$(.venv-spark4/bin/python -c 'import pyspark; print("pyspark", pyspark.__version__)')"
  spark4_status=0
  .venv-spark4/bin/python -m pytest -m "$marker" "${spark4_args[@]}" || spark4_status=$?
  [ $spark4_status -eq 5 ] || [ $spark4_status -eq 0 ] || status=$spark4_status  # 5: none selected
fi
exit $status
