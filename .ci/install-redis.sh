#!/usr/bin/env bash
# Installs Debian's redis-server when it is missing, so the queue tests can start a
# throw-away server for the RedisHuey path. Needs root (CI runs as root).
set -euo pipefail

if command -v redis-server >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "install-redis: redis-server not found; install the redis-server package as root" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends redis-server >/dev/null
command -v redis-server >/dev/null 2>&1 || {
    echo "install-redis: redis-server installed but not on PATH" >&2
    exit 1
}
