#!/usr/bin/env bash
# Installs the C libraries VaultKit links against, if pkg-config cannot find them:
# libsodium and SQLite (stock system packages; VaultKit never vendors or forks SQLite),
# and OpenSSL's libcrypto, with which RealmFileReader reads Realm's encrypted files on Linux.
set -euo pipefail

required="libsodium sqlite3"
# Apple platforms read Realm's encrypted files with CommonCrypto instead.
if [ "$(uname -s)" = "Linux" ]; then required="$required libcrypto"; fi
if pkg-config --exists $required 2>/dev/null; then
    exit 0
fi

if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "Installing libsodium-dev, libsqlite3-dev, libssl-dev and pkg-config with apt-get…"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libsodium-dev libsqlite3-dev libssl-dev pkg-config >/dev/null
elif command -v brew >/dev/null 2>&1; then
    echo "Installing libsodium, sqlite and pkg-config with Homebrew…"
    brew install libsodium sqlite pkg-config
else
    echo "Please install libsodium, SQLite and OpenSSL development files and pkg-config." >&2
    exit 1
fi
