#!/usr/bin/env bash
# Installs Chromium (Debian's `chromium` package) if it is missing: the studio's
# browser tests drive it headless. Where no package manager can install it, the
# tests that need it say so and are skipped.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
    exit 0
fi

if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "Installing chromium with apt-get (for the studio's browser tests)…"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
else
    echo "Chromium is not installed: the studio's browser tests will be skipped." >&2
fi
