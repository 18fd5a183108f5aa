#!/usr/bin/env bash
# Installs the C libraries VaultKit links against, if pkg-config cannot find them:
# libsodium and SQLite (stock system packages; VaultKit never vendors or forks SQLite).
set -euo pipefail

if pkg-config --exists libsodium sqlite3 2>/dev/null; then
    exit 0
fi

if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "Installing libsodium-dev, libsqlite3-dev and pkg-config with apt-get…"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libsodium-dev libsqlite3-dev pkg-config >/dev/null
elif command -v brew >/dev/null 2>&1; then
    echo "Installing libsodium, sqlite and pkg-config with Homebrew…"
    brew install libsodium sqlite pkg-config
else
    echo "Please install libsodium and SQLite development files and pkg-config." >&2
    exit 1
fi
