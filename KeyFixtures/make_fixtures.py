#!/usr/bin/env python3
"""Regenerates the malformed and plain key-file fixtures (see README.md).

The passphrase-sealed fixture is made by `vault keygen` (it needs Argon2id and
XChaCha20-Poly1305); everything else is built here byte by byte from the key-file
format in SECURITY.md, so the fixtures do not depend on the code they test.
"""
import hashlib
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CREATED = 1_767_225_600  # 2026-01-01T00:00:00Z


def checksum(body: bytes) -> bytes:
    return hashlib.blake2b(body, digest_size=32, person=b"VaultKit-keyfile").digest()


def plain_key_file(identifier: str, key: bytes, version: int = 1) -> bytes:
    ident = identifier.encode()
    body = b"VaultKey" + bytes([version, 0]) + struct.pack("<HqH", len(ident), CREATED, len(key)) + ident + key
    return body + checksum(body)


def write(name: str, data: bytes) -> None:
    with open(os.path.join(HERE, name), "wb") as handle:
        handle.write(data)


def main() -> None:
    key = hashlib.sha512(b"VaultKit fixture key - public, never use for data").digest()  # 64 bytes
    valid = plain_key_file("valid-plain", key)
    write("valid-plain.vaultkey", valid)
    for length in (32, 63, 65):
        material = (key * 2)[:length]
        write(f"key-{length}-bytes.vaultkey", plain_key_file(f"key-{length}-bytes", material))
    write("truncated.vaultkey", valid[:80])
    flipped = bytearray(valid)
    flipped[40] ^= 0x01  # inside the key bytes
    write("flipped-byte.vaultkey", bytes(flipped))
    write("unknown-version.vaultkey", plain_key_file("unknown-version", key, version=9))
    write("empty.vaultkey", b"")
    write("other-identifier.vaultkey", valid)  # says "valid-plain" inside
    write("not-a-key-file.vaultkey", b"-----BEGIN PRIVATE KEY-----\nnot a vault key\n")
    write("valid-sealed.passphrase", b"correct horse battery staple\n")
    write("wrong.passphrase", b"incorrect horse battery staple\n")


if __name__ == "__main__":
    main()
