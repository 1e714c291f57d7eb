#!/usr/bin/env bash
# Installs the PostgreSQL server binaries (Debian's postgresql package) when initdb is
# missing, so the store tests can start a throw-away server. Needs root (CI runs as root).
set -euo pipefail

have_initdb() {
    command -v initdb >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
}

if have_initdb; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "install-postgres: initdb not found; install the postgresql package as root" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends postgresql >/dev/null
have_initdb || { echo "install-postgres: postgresql installed but initdb not found" >&2; exit 1; }
