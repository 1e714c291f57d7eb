#!/usr/bin/env bash
# Installs Debian's Chromium when it is missing, for the notebook screenshot test
# (driven by Playwright with executable_path=/usr/bin/chromium). Needs root (CI runs as root).
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "install-chromium: chromium not found; install the chromium package as root" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
command -v chromium >/dev/null || { echo "install-chromium: chromium not found after install" >&2; exit 1; }
