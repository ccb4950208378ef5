#!/usr/bin/env bash
# Set up plumbline on a fresh machine: Java (for Spark), a virtualenv, the package. One virtualenv per
# purpose, so that neither replaces the other's PySpark under it:
#   scripts/setup.sh          what `plumbline demo` needs, in .venv-demo (the `spark` extra: the newest
#                             PySpark)
#   scripts/setup.sh --test   what the tests need: .venv (the `test` extra: PySpark 3.5.8), .venv-spark4
#                             with the newest Spark line, Chromium, the PostgreSQL JDBC driver, PostgreSQL
#                             installed and running, the Spark runtime jars of scripts/spark-jars.toml in
#                             their cache
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

apt_install() {
  # Debian packages, only when missing; needs root (CI and the dev machines run as root).
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    log "please install these Debian/Ubuntu packages: ${missing[*]}"; return 1
  fi
  log "installing ${missing[*]}"
  if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
    apt-get update -qq
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

pg_test_url_is_default() {
  [ -z "${PLUMBLINE_TEST_PG:-}" ] ||
    [ "$PLUMBLINE_TEST_PG" = "postgresql+psycopg://postgres@127.0.0.1:5432/test" ]
}

pg_can_connect() {  # the tests' server answers as user postgres without a password
  PGCONNECT_TIMEOUT=3 psql -h 127.0.0.1 -p 5432 -U postgres -d "$1" -w -tAc 'SELECT 1' >/dev/null 2>&1
}

ensure_test_postgres() {
  # The tests' PostgreSQL: 127.0.0.1:5432, user postgres trusted on loopback, a `test` database.
  # A fresh machine has none: install Debian's server, make its cluster, start it. A server named by
  # PLUMBLINE_TEST_PG is the user's own and left alone.
  if ! pg_test_url_is_default; then
    log "using the PostgreSQL of PLUMBLINE_TEST_PG"; return 0
  fi
  if pg_can_connect test; then return 0; fi
  command -v pg_lsclusters >/dev/null && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 ||
    apt_install postgresql
  local version
  version=$(ls /usr/lib/postgresql | sort -V | tail -1)
  if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$version main"; then
    log "creating PostgreSQL $version cluster main on port 5432"
    pg_createcluster --port 5432 "$version" main >/dev/null
  fi
  local hba="/etc/postgresql/$version/main/pg_hba.conf"
  if ! grep -q '^# plumbline tests' "$hba"; then
    # first matching line wins: trust the postgres user on loopback TCP, ahead of Debian's defaults
    log "trusting user postgres on 127.0.0.1 in $hba"
    { printf '# plumbline tests: user postgres trusted on loopback\n'
      printf 'host all postgres 127.0.0.1/32 trust\nhost all postgres ::1/128 trust\n'
      cat "$hba"; } > "$hba.plumbline" && mv "$hba.plumbline" "$hba"
    chown postgres:postgres "$hba"
  fi
  if pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {print $4}' | grep -q online; then
    pg_ctlcluster --skip-systemctl-redirect "$version" main reload
  else
    log "starting PostgreSQL $version"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
  fi
  for _ in $(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  pg_can_connect postgres || {
    log "PostgreSQL at 127.0.0.1:5432 does not let user postgres in without a password"; return 1; }
  if ! pg_can_connect test; then
    log "creating database test"
    psql -h 127.0.0.1 -p 5432 -U postgres -d postgres -w -qc 'CREATE DATABASE test' >/dev/null
  fi
  pg_can_connect test || { log "PostgreSQL is not ready at 127.0.0.1:5432"; return 1; }
}

python=${PYTHON:-python3}
"$python" - <<'PY' || { log "plumbline needs Python 3.11 or newer"; exit 1; }
import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)
PY

if ! command -v java >/dev/null 2>&1; then
  apt_install openjdk-17-jre-headless
fi

if [ $want_test -eq 1 ]; then venv=.venv; extras="spark,test"; else venv=.venv-demo; extras="spark"; fi
if [ ! -x "$venv/bin/python" ]; then
  log "creating virtualenv $venv"
  "$python" -m venv "$venv"
fi
stamp="$venv/.plumbline-setup$want_test"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  log "installing Python packages in $venv (first run downloads PySpark, ~300 MB)"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -e ".[$extras]"
  touch "$stamp"
fi

if [ $want_test -eq 1 ]; then
  # A second virtualenv with the newest Spark line (pyproject's tool.plumbline.spark4-test) and the
  # test extra less its pyspark pin: scripts/test.sh runs the Spark tests again there.
  if [ ! -x .venv-spark4/bin/python ]; then
    log "creating virtualenv .venv-spark4"
    "$python" -m venv .venv-spark4
  fi
  stamp=".venv-spark4/.plumbline-setup"
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    mapfile -t spark4_deps < <(.venv/bin/python - <<'PY'
import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))
print("\n".join(project["tool"]["plumbline"]["spark4-test"]))
for requirement in project["project"]["optional-dependencies"]["test"]:
    if not requirement.startswith("pyspark"):
        print(requirement)
PY
)
    log "installing ${spark4_deps[0]} in .venv-spark4 (first run downloads it, ~450 MB)"
    .venv-spark4/bin/python -m pip install -q --upgrade pip
    .venv-spark4/bin/python -m pip install -q -e . "${spark4_deps[@]}"
    touch "$stamp"
  fi
  apt_install chromium chromium-driver libpostgresql-jdbc-java fonts-dejavu-core
  ensure_test_postgres
  # Spark runtime jars (Delta, Iceberg, Paimon, the Kafka connector, the OpenLineage agent) pinned per
  # Spark line in scripts/spark-jars.toml, from Maven Central into a cache; a second setup reuses it
  "$python" scripts/fetch_jars.py || { log "could not fetch the Spark runtime jars (Maven Central)"; exit 1; }
fi
log "ready"
