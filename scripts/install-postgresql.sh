#!/usr/bin/env bash
# Installs PostgreSQL's server binaries (Debian's `postgresql` package) if they
# are missing: the sync server's tests, `make sync-demo` and its benchmark
# start a PostgreSQL of their own with `initdb` in a temporary folder.
set -euo pipefail

if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then
    exit 0
fi

if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "Installing postgresql with apt-get…"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
elif command -v brew >/dev/null 2>&1; then
    echo "Installing postgresql with Homebrew…"
    brew install postgresql
else
    echo "Please install PostgreSQL (its initdb and postgres binaries)." >&2
    exit 1
fi
