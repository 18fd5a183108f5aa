#!/usr/bin/env python3
"""Generates VaultKit's known-answer test vectors (format v1).

An independent implementation of VaultKit's cryptography, written from
SECURITY.md ("Key hierarchy", "Associated data", "File format v1", "Key files")
and the format comments in Sources/VaultCore. It never runs or links VaultKit:
the point of the vectors is that VaultKit's Swift code must agree with them.

    pip install pynacl          # PyNaCl bundles its own libsodium (1.0.20 in PyNaCl 1.6.2)
    python3 scripts/generate-known-answer-vectors.py [--cross-check]

Writes Tests/VaultCoreTests/Fixtures/known-answer/:

    key-hierarchy.json      master key -> KEK -> wrapped DEK -> page key; key slots; whole header blocks
    unit-sealer.json        XChaCha20-Poly1305 sealed units of every kind, with their associated data
    key-file.json           plain and passphrase-sealed key files (Argon2id + XChaCha20-Poly1305)
    vault-file.json         manifest of the two files below (key, rows, hashes)
    python-sealed.vault     a whole vault file, header and pages sealed here
    python-sealed.vault-wal its WAL (66 frames: crosses the 63-frame group boundary)

Every input is a fixed, obviously fake byte pattern. Nothing is random, so
running the script twice gives the same bytes (the vault file also depends on
the system SQLite, which only produces the plaintext pages).

NEVER regenerate these files from VaultKit's Swift code, and never "fix" a
vector to match the code: a mismatch is either a bug in VaultKit or a format
change, which needs a new format version.

Primitive mapping (libsodium -> what this script calls):
  crypto_generichash_blake2b_salt_personal  -> PyNaCl's binding of the same function,
                                               cross-checked against Python's hashlib.blake2b
  crypto_kdf_derive_from_key (BLAKE2b)      -> implemented here from libsodium's definition:
                                               BLAKE2b(key = DEK, message = empty, outlen,
                                               salt = LE64(subkey id) || 0^8, personal = context || 0^8),
                                               checked against libsodium's own kdf test vectors
  crypto_aead_xchacha20poly1305_ietf_*      -> PyNaCl (combined mode: ciphertext || tag; the detached
                                               tag is the last 16 bytes), checked against the
                                               draft-irtf-cfrg-xchacha test vector
  crypto_pwhash (Argon2id v1.3)             -> PyNaCl crypto_pwhash_alg
"""
import ctypes
import ctypes.util
import hashlib
import json
import os
import shutil
import sqlite3
import struct
import sys
import tempfile

import nacl
import nacl.bindings as sodium

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "VaultCoreTests", "Fixtures", "known-answer")

# --- Format constants (SECURITY.md, "File format v1") ------------------------

PAGE_SIZE = 4096
HEADER_BLOCK_SIZE = 4096
RESERVED = 40                       # nonce 24 + tag 16
NONCE_BYTES = 24
TAG_BYTES = 16
SUITE_XCHACHA = 1
FORMAT_VERSION = 1
SLOT_OFFSETS = (256, 384)
KEK_PERSONAL = b"VaultKit-KEK-v1\x00"       # 16 bytes
SLOT_PERSONAL = b"VaultKit-slot-v1"        # 16 bytes
KEYFILE_PERSONAL = b"VaultKit-keyfile"     # 16 bytes
PAGE_KEY_CONTEXT = b"VKpages1"             # crypto_kdf context, 8 bytes
PAGE_KEY_ID = 1

KIND = {
    "databasePage": 1,
    "walHeader": 2,
    "walFrameHeader": 3,
    "walPage": 4,
    "journalBlock": 5,
    "temporaryBlock": 6,
}

WAL_HEADER_SIZE = 32
WAL_FRAME_HEADER_SIZE = 24
WAL_FRAMES_PER_GROUP = 63
WAL_GROUP_SIZE = 64 * PAGE_SIZE
BLOCK_DATA_SIZE = PAGE_SIZE - 4 - RESERVED  # 4052


def hx(data: bytes) -> str:
    return data.hex()


def pattern(start: int, count: int, step: int = 1) -> bytes:
    """start, start+step, ... (mod 256): an obviously fake key or salt."""
    return bytes((start + i * step) & 0xFF for i in range(count))


def text_pattern(label: str, count: int) -> bytes:
    unit = f"[{label}] VaultKit known-answer plaintext. ".encode()
    return (unit * (count // len(unit) + 1))[:count]


# --- Primitives ---------------------------------------------------------------

def blake2b(data: bytes, size: int, key: bytes = b"", salt: bytes = b"", person: bytes = b"") -> bytes:
    """crypto_generichash_blake2b_salt_personal, computed twice by two implementations."""
    assert len(salt) in (0, 16) and len(person) in (0, 16)
    a = sodium.crypto_generichash_blake2b_salt_personal(data, digest_size=size, key=key, salt=salt, person=person)
    b = hashlib.blake2b(data, digest_size=size, key=key, salt=salt, person=person).digest()
    assert a == b, "PyNaCl and hashlib disagree on BLAKE2b"
    return a


def kdf_derive_from_key(subkey_len: int, subkey_id: int, context: bytes, key: bytes) -> bytes:
    """libsodium crypto_kdf_derive_from_key (crypto_kdf_blake2b), from its definition."""
    assert len(context) == 8 and len(key) == 32 and 16 <= subkey_len <= 64
    salt = struct.pack("<Q", subkey_id) + bytes(8)
    personal = context + bytes(8)
    return blake2b(b"", subkey_len, key=key, salt=salt, person=personal)


def aead_seal_detached(plaintext: bytes, ad: bytes, nonce: bytes, key: bytes) -> tuple:
    assert len(nonce) == NONCE_BYTES and len(key) == 32
    combined = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, ad, nonce, key)
    assert len(combined) == len(plaintext) + TAG_BYTES
    opened = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(combined, ad, nonce, key)
    assert opened == plaintext
    return combined[:-TAG_BYTES], combined[-TAG_BYTES:]


def self_check() -> None:
    """The primitives above against their upstream published vectors."""
    # libsodium test/default/kdf.c + kdf.exp: key 00..1f, context "KDF test".
    master = pattern(0, 32)
    expected = {
        0: "a0c724404728c8bb95e5433eb6a9716171144d61efb23e74b873fcbeda51d807"
           "1b5d70aae12066dfc94ce943f145aa176c055040c3dd73b0a15e36254d450614",
        1: "02507f144fa9bf19010bf7c70b235b4c2663cc00e074f929602a5e2c10a78075"
           "7d2a3993d06debc378a90efdac196dd841817b977d67b786804f6d3cd585bab5",
    }
    for subkey_id, value in expected.items():
        assert kdf_derive_from_key(64, subkey_id, b"KDF test", master).hex() == value, "crypto_kdf self-check"
    # Same file: output length i with subkey id i.
    assert kdf_derive_from_key(16, 16, b"KDF test", master).hex() == "a529216624ef9161e4cf117272aafff2"
    assert kdf_derive_from_key(32, 32, b"KDF test", master).hex() == \
        "154b291f11196737f8b7f491e4ca11764e0227d34f94295408a869f007aa8618"

    # draft-irtf-cfrg-xchacha-03, A.3.1 (AEAD_XChaCha20_Poly1305).
    plaintext = (b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip "
                 b"for the future, sunscreen would be it.")
    ct, tag = aead_seal_detached(plaintext, bytes.fromhex("50515253c0c1c2c3c4c5c6c7"),
                                 pattern(0x40, 24), pattern(0x80, 32))
    assert ct.hex() == (
        "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb"
        "731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452"
        "2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9"
        "21f9664c97637da9768812f615c68b13b52e"), "XChaCha20-Poly1305 self-check (ciphertext)"
    assert tag.hex() == "c0875924c1c7987947deafd8780acf49", "XChaCha20-Poly1305 self-check (tag)"


# --- Key hierarchy (SECURITY.md, "Key hierarchy" and "Header block") ---------

def key_encryption_key(master: bytes, file_salt: bytes, kek_salt: bytes) -> bytes:
    """KEK = BLAKE2b-256(key: M, message: file salt, salt: slot KEK salt, personal: "VaultKit-KEK-v1\\0")."""
    assert len(master) == 64 and len(file_salt) == 32 and len(kek_salt) == 16
    return blake2b(file_salt, 32, key=master, salt=kek_salt, person=KEK_PERSONAL)


def page_key(dek: bytes) -> bytes:
    """page key = crypto_kdf_derive_from_key(DEK, id 1, context "VKpages1")."""
    return kdf_derive_from_key(32, PAGE_KEY_ID, PAGE_KEY_CONTEXT, dek)


def static_header(file_salt: bytes, suite: int = SUITE_XCHACHA) -> bytes:
    """Header bytes 100..<152: magic, version, suite, page size, reserve, header size, file salt."""
    data = b"VaultKit" + struct.pack("<HHIHH", FORMAT_VERSION, suite, PAGE_SIZE, RESERVED, HEADER_BLOCK_SIZE) + file_salt
    assert len(data) == 52
    return data


def wrap_associated_data(file_salt: bytes, slot_index: int, generation: int) -> bytes:
    """header bytes 100..<152 || slot index (1) || generation (8, LE)."""
    return static_header(file_salt) + bytes([slot_index]) + struct.pack("<Q", generation)


def wrap(dek: bytes, kek: bytes, ad: bytes, nonce: bytes) -> bytes:
    """nonce (24) || wrapped DEK (32) || tag (16)."""
    ct, tag = aead_seal_detached(dek, ad, nonce, kek)
    return nonce + ct + tag


def key_slot(file_salt: bytes, slot_index: int, generation: int, kek_salt: bytes, wrapped: bytes) -> bytes:
    """generation u64 || KEK salt (16) || wrapped (72) || checksum (16) || zero (16)."""
    body = struct.pack("<Q", generation) + kek_salt + wrapped
    assert len(body) == 96
    checksum = blake2b(static_header(file_salt) + bytes([slot_index]) + body, 16, person=SLOT_PERSONAL)
    slot = body + checksum + bytes(16)
    assert len(slot) == 128
    return slot


def decoy_sqlite_header() -> bytes:
    """Bytes 0..<100: a valid-looking, empty WAL-mode SQLite header (not authenticated).

    SECURITY.md names magic, page size, WAL versions and reserve; the payload
    fractions 64/32/32 are fixed by the SQLite file format; schema format 4 and
    text encoding 1 (UTF-8) are what SQLite writes for a new database.
    """
    h = bytearray(100)
    h[0:16] = b"SQLite format 3\x00"
    h[16:18] = struct.pack(">H", PAGE_SIZE)
    h[18] = 2
    h[19] = 2
    h[20] = RESERVED
    h[21], h[22], h[23] = 64, 32, 32
    h[44:48] = struct.pack(">I", 4)
    h[56:60] = struct.pack(">I", 1)
    return bytes(h)


def header_block(file_salt: bytes, slots: dict) -> bytes:
    block = bytearray(HEADER_BLOCK_SIZE)
    block[0:100] = decoy_sqlite_header()
    block[100:152] = static_header(file_salt)
    for index, slot in slots.items():
        block[SLOT_OFFSETS[index]:SLOT_OFFSETS[index] + 128] = slot
    return bytes(block)


def hierarchy_vector(name, master, file_salt, kek_salt, dek, slot_index, generation, wrap_nonce, note):
    kek = key_encryption_key(master, file_salt, kek_salt)
    ad = wrap_associated_data(file_salt, slot_index, generation)
    wrapped = wrap(dek, kek, ad, wrap_nonce)
    slot = key_slot(file_salt, slot_index, generation, kek_salt, wrapped)
    return {
        "name": name,
        "note": note,
        "master_key": hx(master),
        "file_salt": hx(file_salt),
        "kek_salt": hx(kek_salt),
        "data_key": hx(dek),
        "slot_index": slot_index,
        "generation": str(generation),
        "wrap_nonce": hx(wrap_nonce),
        "static_header": hx(static_header(file_salt)),
        "wrap_associated_data": hx(ad),
        "kek": hx(kek),
        "wrapped_key": hx(wrapped),
        "slot_bytes": hx(slot),
        "page_key": hx(page_key(dek)),
    }, slot


def build_key_hierarchy() -> dict:
    vectors = []
    slots = {}
    specs = [
        ("ascending", pattern(0x00, 64), pattern(0x80, 32), pattern(0xA0, 16), pattern(0x40, 32), 0, 1, pattern(0xB0, 24),
         "master key 00..3f, slot A, generation 1: a freshly created vault"),
        ("descending", pattern(0xFF, 64, -1), pattern(0x11, 32, 0), pattern(0x22, 16, 0), pattern(0xE0, 32, 3), 1, 2,
         pattern(0x33, 24, 0), "master key ff..c0, slot B, generation 2: after one rotation"),
        ("wide-generation", bytes([0x5A]) * 64, pattern(0x01, 32, 7), pattern(0xF0, 16), bytes(32), 0, 0x0102030405060708,
         pattern(0x10, 24, 5), "all-zero data key, generation 0x0102030405060708 (catches byte-order and truncation errors)"),
        ("rotation-old", pattern(0x00, 64), pattern(0x90, 32, 1), pattern(0xC0, 16), pattern(0x60, 32), 0, 1, pattern(0xD0, 24),
         "rotation pair, slot A: the old master key 00..3f, generation 1"),
        ("rotation-new", pattern(0x01, 64, 2), pattern(0x90, 32, 1), pattern(0xC8, 16), pattern(0x60, 32), 1, 2, pattern(0xE8, 24),
         "rotation pair, slot B: the new master key 01,03,05..., generation 2, same vault (salt, data key)"),
    ]
    for spec in specs:
        vector, slot = hierarchy_vector(*spec)
        vectors.append(vector)
        slots[spec[0]] = slot

    fresh = header_block(bytes.fromhex(vectors[0]["file_salt"]), {0: slots["ascending"]})
    rotated = header_block(bytes.fromhex(vectors[3]["file_salt"]), {0: slots["rotation-old"], 1: slots["rotation-new"]})
    headers = [
        {
            "name": "fresh",
            "note": "a new vault: the 'ascending' key hierarchy in slot A, slot B empty",
            "block": hx(fresh),
            "file_salt": vectors[0]["file_salt"],
            "slots": ["ascending", None],
            "active_slot": 0,
            "active_generation": "1",
            "opens_with": [vectors[0]["master_key"]],
            "rejects": [vectors[1]["master_key"], vectors[4]["master_key"]],
            "data_key": vectors[0]["data_key"],
            "page_key": vectors[0]["page_key"],
        },
        {
            "name": "rotated",
            "note": "the same data key wrapped under two master keys; the higher generation (slot B) is the only one tried",
            "block": hx(rotated),
            "file_salt": vectors[3]["file_salt"],
            "slots": ["rotation-old", "rotation-new"],
            "active_slot": 1,
            "active_generation": "2",
            "opens_with": [vectors[4]["master_key"]],
            "rejects": [vectors[3]["master_key"], vectors[0]["master_key"]],
            "data_key": vectors[3]["data_key"],
            "page_key": vectors[3]["page_key"],
        },
    ]
    return {
        "description": "VaultKit format v1 key hierarchy (SECURITY.md, 'Key hierarchy' and 'Header block'). "
                       "Hex strings; generations are decimal strings (UInt64).",
        "generator": generator_info(),
        "kdf": {
            "kek": "BLAKE2b-256(key = master key (64), message = file salt (32), salt = KEK salt (16), personal = 'VaultKit-KEK-v1\\0')",
            "page_key": "crypto_kdf_derive_from_key(32, id 1, context 'VKpages1', data key)",
            "wrap": "XChaCha20-Poly1305-IETF(key = KEK, nonce = wrap_nonce, ad = wrap_associated_data, plaintext = data key); "
                    "wrapped_key = nonce || ciphertext || tag",
            "wrap_associated_data": "header bytes 100..<152 || slot index (1) || generation (8, LE)",
            "slot": "generation (8, LE) || KEK salt (16) || wrapped_key (72) || "
                    "BLAKE2b-128(personal 'VaultKit-slot-v1', static header || slot index || slot bytes 0..<96) || zero (16)",
        },
        "vectors": vectors,
        "headers": headers,
    }


# --- Unit sealer (SECURITY.md, "Associated data" and "File format v1") ------

def unit_associated_data(file_salt: bytes, kind: int, index: int, suite: int = SUITE_XCHACHA) -> bytes:
    """file salt (32) || kind (1) || suite (1) || index (8, LE)."""
    ad = file_salt + bytes([kind, suite]) + struct.pack("<Q", index)
    assert len(ad) == 42
    return ad


def seal_unit(key: bytes, file_salt: bytes, kind: int, index: int, nonce: bytes, plaintext: bytes) -> bytes:
    """ciphertext (n) || nonce (24) || tag (16)."""
    ct, tag = aead_seal_detached(plaintext, unit_associated_data(file_salt, kind, index), nonce, key)
    return ct + nonce + tag


def block_plaintext(used: int, data: bytes) -> bytes:
    """A journal / temporary block: used length (4, LE) || data (4052)."""
    assert len(data) == BLOCK_DATA_SIZE and used <= BLOCK_DATA_SIZE
    return struct.pack("<I", used) + data


def build_unit_sealer(hierarchy: dict) -> dict:
    a = hierarchy["vectors"][0]
    b = hierarchy["vectors"][1]
    key_a, salt_a = bytes.fromhex(a["page_key"]), bytes.fromhex(a["file_salt"])
    key_b, salt_b = bytes.fromhex(b["page_key"]), bytes.fromhex(b["file_salt"])
    temp_key, temp_salt = bytes([0x77]) * 32, pattern(0x33, 32, 5)
    page_body = PAGE_SIZE - RESERVED   # 4056 sealed bytes of a 4096-byte page

    journal_used = text_pattern("journal block 7", 100) + bytes(BLOCK_DATA_SIZE - 100)
    specs = [
        # name, key source, key, salt, kind, index, nonce, plaintext, note
        ("database-page-1", "ascending", key_a, salt_a, "databasePage", 1, pattern(0xA0, 16) + struct.pack("<Q", 1),
         text_pattern("database page 1", page_body), "page 1 of the database: 4056 bytes sealed in place, 4096 on disk"),
        ("database-page-2", "ascending", key_a, salt_a, "databasePage", 2, pattern(0xA0, 16) + struct.pack("<Q", 2),
         text_pattern("database page 2", page_body), "page 2, same key and salt"),
        ("database-page-high", "ascending", key_a, salt_a, "databasePage", 0x1_0000_0005, pattern(0xA0, 16) + struct.pack("<Q", 3),
         bytes(page_body), "an all-zero page numbered 2^32 + 5 (catches a 32-bit index)"),
        ("database-page-other-vault", "descending", key_b, salt_b, "databasePage", 1, pattern(0x5C, 24, 3),
         text_pattern("database page 1", page_body), "the plaintext of database-page-1 in another vault"),
        ("wal-header", "ascending", key_a, salt_a, "walHeader", 0, pattern(0x01, 24, 11),
         text_pattern("wal header", WAL_HEADER_SIZE), "the 32-byte WAL header, index 0: 72 bytes on disk"),
        ("wal-frame-header-1", "ascending", key_a, salt_a, "walFrameHeader", 1, pattern(0x02, 24, 13),
         text_pattern("frame 1", WAL_FRAME_HEADER_SIZE), "the 24-byte header of WAL frame 1: 64 bytes on disk"),
        ("wal-frame-header-byte-order", "descending", key_b, salt_b, "walFrameHeader", 0x0102030405060708, pattern(0x03, 24, 17),
         text_pattern("frame header", WAL_FRAME_HEADER_SIZE), "index 0x0102030405060708: bound little-endian"),
        ("wal-page-64", "ascending", key_a, salt_a, "walPage", 64, pattern(0x04, 24, 19),
         text_pattern("wal frame 64 page", page_body), "the page image of WAL frame 64 (first frame of the second group)"),
        ("journal-block-0", "ascending", key_a, salt_a, "journalBlock", 0, pattern(0x05, 24, 23),
         block_plaintext(BLOCK_DATA_SIZE, text_pattern("journal block 0", BLOCK_DATA_SIZE)),
         "rollback-journal block 0, full: used length 4052 (LE) || 4052 data bytes"),
        ("journal-block-7", "ascending", key_a, salt_a, "journalBlock", 7, pattern(0x06, 24, 29),
         block_plaintext(100, journal_used), "rollback-journal block 7, 100 bytes used, the rest zero"),
        ("temporary-block-3", "ephemeral", temp_key, temp_salt, "temporaryBlock", 3, pattern(0x07, 24, 31),
         block_plaintext(BLOCK_DATA_SIZE, text_pattern("temporary block 3", BLOCK_DATA_SIZE)),
         "temporary-file block 3 under a stand-in for the ephemeral key (77 x 32) and a stand-in random salt"),
    ]
    vectors = []
    for name, source, key, salt, kind, index, nonce, plaintext, note in specs:
        sealed = seal_unit(key, salt, KIND[kind], index, nonce, plaintext)
        assert len(sealed) == len(plaintext) + RESERVED
        vectors.append({
            "name": name,
            "note": note,
            "key_source": source,
            "key": hx(key),
            "file_salt": hx(salt),
            "suite": SUITE_XCHACHA,
            "kind": kind,
            "kind_byte": KIND[kind],
            "index": str(index),
            "nonce": hx(nonce),
            "associated_data": hx(unit_associated_data(salt, KIND[kind], index)),
            "plaintext": hx(plaintext),
            "tag": hx(sealed[-TAG_BYTES:]),
            "sealed": hx(sealed),
        })
    return {
        "description": "VaultKit format v1 sealed units (SECURITY.md, 'Associated data'): "
                       "sealed = XChaCha20-Poly1305-IETF ciphertext (n) || nonce (24) || tag (16), "
                       "associated data = file salt (32) || kind (1) || suite (1) || index (8, LE). "
                       "Hex strings; index is a decimal string (UInt64). Page keys come from key-hierarchy.json "
                       "(key_source names the vector).",
        "generator": generator_info(),
        "vectors": vectors,
    }


# --- Key files (SECURITY.md, "Key files") -------------------------------------

def key_file(identifier: str, created: int, key: bytes, passphrase: bytes = None, salt: bytes = b"",
             ops: int = 0, mem: int = 0, nonce: bytes = b"") -> bytes:
    ident = identifier.encode()
    data = b"VaultKey" + bytes([1, 0 if passphrase is None else 1]) + struct.pack("<HqH", len(ident), created, len(key)) + ident
    if passphrase is None:
        data += key
    else:
        data += salt + struct.pack("<QQ", ops, mem)
        kek = sodium.crypto_pwhash_alg(32, passphrase, salt, ops, mem, sodium.crypto_pwhash_ALG_ARGON2ID13)
        ct, tag = aead_seal_detached(key, data, nonce, kek)   # associated data = every byte before the nonce
        data += nonce + ct + tag
    return data + blake2b(data, 32, person=KEYFILE_PERSONAL)


def build_key_files() -> dict:
    created = 1_767_225_600   # 2026-01-01T00:00:00Z
    specs = [
        ("plain", "kat-plain", pattern(0x00, 64), None, b"", 0, 0, b"", "a plain key file: the key in clear"),
        ("sealed-minimum-cost", "kat.sealed-1", pattern(0xFF, 64, -1), b"correct horse battery staple",
         pattern(0xD0, 16), 1, 8192, pattern(0x90, 24),
         "passphrase-sealed: Argon2id v1.3, 1 pass, 8 KiB (the loader's lower bounds)"),
        ("sealed-small-cost", "kat_sealed-2", bytes([0xA5]) * 64, "pass phrase with ünïcödé".encode(),
         pattern(0x10, 16, 3), 2, 65536, pattern(0x20, 24, 7),
         "passphrase-sealed: Argon2id v1.3, 2 passes, 64 KiB, a UTF-8 passphrase"),
    ]
    vectors = []
    for name, identifier, key, phrase, salt, ops, mem, nonce, note in specs:
        data = key_file(identifier, created, key, phrase, salt, ops, mem, nonce)
        entry = {
            "name": name,
            "note": note,
            "identifier": identifier,
            "created": created,
            "key": hx(key),
            "file": hx(data),
        }
        if phrase is not None:
            entry.update({
                "passphrase": phrase.decode(),
                "wrong_passphrase": phrase.decode() + "!",
                "argon2id_salt": hx(salt),
                "argon2id_operations": ops,
                "argon2id_memory": mem,
                "nonce": hx(nonce),
                "kek": hx(sodium.crypto_pwhash_alg(32, phrase, salt, ops, mem, sodium.crypto_pwhash_ALG_ARGON2ID13)),
            })
        vectors.append(entry)
    return {
        "description": "VaultKit key files, format version 1 (SECURITY.md, 'Key files'). Hex strings.",
        "generator": generator_info(),
        "vectors": vectors,
    }


# --- A whole vault: SQLite makes the plaintext, this script seals it ---------

class SQLite:
    """The system SQLite through ctypes (Python's sqlite3 module cannot set reserved bytes)."""
    OPEN_READWRITE, OPEN_CREATE = 0x2, 0x4
    FCNTL_RESERVE_BYTES = 38
    SQLITE_TESTCTRL_PRNG_SEED = 28

    def __init__(self, path: str):
        name = ctypes.util.find_library("sqlite3")
        if not name:
            sys.exit("libsqlite3 not found (apt-get install libsqlite3-0)")
        self.lib = ctypes.CDLL(name)
        self.lib.sqlite3_libversion.restype = ctypes.c_char_p
        self.lib.sqlite3_errmsg.restype = ctypes.c_char_p
        self.db = ctypes.c_void_p()
        rc = self.lib.sqlite3_open_v2(path.encode(), ctypes.byref(self.db), self.OPEN_READWRITE | self.OPEN_CREATE, None)
        assert rc == 0, rc

    def seed_randomness(self, seed: int) -> None:
        """SQLITE_TESTCTRL_PRNG_SEED: makes the WAL header's random salt repeatable."""
        self.lib.sqlite3_test_control.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
        self.lib.sqlite3_test_control(self.SQLITE_TESTCTRL_PRNG_SEED, seed, None)

    def version(self) -> str:
        return self.lib.sqlite3_libversion().decode()

    def reserve(self, count: int) -> None:
        value = ctypes.c_int(count)
        rc = self.lib.sqlite3_file_control(self.db, b"main", self.FCNTL_RESERVE_BYTES, ctypes.byref(value))
        assert rc == 0, rc

    def execute(self, sql: str) -> None:
        error = ctypes.c_char_p()
        rc = self.lib.sqlite3_exec(self.db, sql.encode(), None, None, ctypes.byref(error))
        assert rc == 0, (sql, rc, error.value)

    def close(self) -> None:
        assert self.lib.sqlite3_close(self.db) == 0


def build_vault_file(hierarchy: dict) -> dict:
    v = hierarchy["vectors"][0]          # the "ascending" hierarchy, as in header "fresh"
    master, file_salt, dek = (bytes.fromhex(v[k]) for k in ("master_key", "file_salt", "data_key"))
    key = page_key(dek)
    header = bytes.fromhex(hierarchy["headers"][0]["block"])

    work = tempfile.mkdtemp(prefix="vaultkit-kat-")
    try:
        path = os.path.join(work, "plain.db")
        db = SQLite(path)
        sqlite_version = db.version()
        db.seed_randomness(20260101)
        db.reserve(RESERVED)
        db.execute("PRAGMA page_size = 4096")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA wal_autocheckpoint = 0")
        db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        db.execute("BEGIN")
        for i in range(1, 41):
            db.execute(f"INSERT INTO t(id, body) VALUES ({i}, 'checkpointed row {i:03d} ' || hex(zeroblob({i % 7})))")
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        # 66 one-frame transactions: frames 1..66 cross the 63-frame group boundary.
        for n in range(1, 67):
            db.execute(f"UPDATE t SET body = 'updated in WAL commit {n:02d}' WHERE id = {(n - 1) % 40 + 1}")
        shutil.copyfile(path, os.path.join(work, "copy.db"))
        shutil.copyfile(path + "-wal", os.path.join(work, "copy.db-wal"))
        db.close()
        with open(os.path.join(work, "copy.db"), "rb") as f:
            plain_db = f.read()
        with open(os.path.join(work, "copy.db-wal"), "rb") as f:
            plain_wal = f.read()

        def rows(db_bytes, wal_bytes):
            d = os.path.join(work, "read")
            shutil.rmtree(d, ignore_errors=True)
            os.mkdir(d)
            with open(os.path.join(d, "r.db"), "wb") as f:
                f.write(db_bytes)
            if wal_bytes is not None:
                with open(os.path.join(d, "r.db-wal"), "wb") as f:
                    f.write(wal_bytes)
            con = sqlite3.connect(os.path.join(d, "r.db"))
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            result = con.execute("SELECT id, body FROM t ORDER BY id").fetchall()
            con.close()
            return result

        rows_with_wal = rows(plain_db, plain_wal)
        rows_without_wal = rows(plain_db, None)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    # The plaintext database: page size 4096, reserve 40, every reserved tail zero.
    assert len(plain_db) % PAGE_SIZE == 0 and plain_db[16:18] == b"\x10\x00" and plain_db[20] == RESERVED
    page_count = len(plain_db) // PAGE_SIZE
    prefix = b"KAT vault nonce:"                      # 16 bytes, then a 64-bit counter
    counter = 0

    def next_nonce():
        nonlocal counter
        counter += 1
        return prefix + struct.pack("<Q", counter)

    sealed_db = bytearray(header)
    for k in range(page_count):
        page = plain_db[k * PAGE_SIZE:(k + 1) * PAGE_SIZE]
        assert page[-RESERVED:] == bytes(RESERVED), f"page {k + 1} has non-zero reserved bytes"
        sealed_db += seal_unit(key, file_salt, KIND["databasePage"], k + 1, next_nonce(), page[:-RESERVED])
    assert len(sealed_db) == HEADER_BLOCK_SIZE + page_count * PAGE_SIZE

    # The plaintext WAL: 32-byte header, then frames of 24 + 4096 bytes.
    frame_size = WAL_FRAME_HEADER_SIZE + PAGE_SIZE
    assert (len(plain_wal) - WAL_HEADER_SIZE) % frame_size == 0
    frames = (len(plain_wal) - WAL_HEADER_SIZE) // frame_size
    assert frames == 66, frames
    wal = bytearray()

    def put(offset, data):
        if len(wal) < offset + len(data):
            wal.extend(bytes(offset + len(data) - len(wal)))
        wal[offset:offset + len(data)] = data

    put(0, seal_unit(key, file_salt, KIND["walHeader"], 0, next_nonce(), plain_wal[:WAL_HEADER_SIZE]))
    offsets = []
    for i in range(1, frames + 1):
        start = WAL_HEADER_SIZE + (i - 1) * frame_size
        frame_header = plain_wal[start:start + WAL_FRAME_HEADER_SIZE]
        page = plain_wal[start + WAL_FRAME_HEADER_SIZE:start + frame_size]
        assert page[-RESERVED:] == bytes(RESERVED), f"WAL frame {i} has non-zero reserved bytes"
        g, j = (i - 1) // WAL_FRAMES_PER_GROUP, (i - 1) % WAL_FRAMES_PER_GROUP
        header_at = PAGE_SIZE + g * WAL_GROUP_SIZE + j * 64
        page_at = PAGE_SIZE + g * WAL_GROUP_SIZE + PAGE_SIZE + j * PAGE_SIZE
        put(header_at, seal_unit(key, file_salt, KIND["walFrameHeader"], i, next_nonce(), frame_header))
        put(page_at, seal_unit(key, file_salt, KIND["walPage"], i, next_nonce(), page[:-RESERVED]))
        offsets.append((i, header_at, page_at))

    with open(os.path.join(OUT, "python-sealed.vault"), "wb") as f:
        f.write(sealed_db)
    with open(os.path.join(OUT, "python-sealed.vault-wal"), "wb") as f:
        f.write(wal)

    def frame_info(i):
        _, header_at, page_at = offsets[i - 1]
        return {"frame": i, "header_offset": header_at, "page_offset": page_at}

    return {
        "description": "A whole format-v1 vault sealed by this script: the plaintext pages and WAL come from the "
                       "system SQLite (page size 4096, reserve 40, WAL mode), every unit is sealed here with the "
                       "'ascending' key hierarchy (header 'fresh' of key-hierarchy.json) and nonces "
                       "'KAT vault nonce:' || LE64(counter). Opening it needs VaultKit's header parsing, key "
                       "unwrapping, page-key derivation, unit opening, and database and WAL layouts to all match.",
        "generator": dict(generator_info(), sqlite=sqlite_version),
        "database_file": "python-sealed.vault",
        "wal_file": "python-sealed.vault-wal",
        "database_sha256": hashlib.sha256(sealed_db).hexdigest(),
        "wal_sha256": hashlib.sha256(wal).hexdigest(),
        "master_key": hx(master),
        "page_count": page_count,
        "wal_frame_count": frames,
        "wal_frames_checked": [frame_info(1), frame_info(63), frame_info(64), frame_info(frames)],
        "rows_with_wal": [{"id": i, "body": body} for i, body in rows_with_wal],
        "rows_without_wal": [{"id": i, "body": body} for i, body in rows_without_wal],
    }


def generator_info() -> dict:
    return {
        "script": "scripts/generate-known-answer-vectors.py",
        "pynacl": nacl.__version__,
        "libsodium": "bundled with PyNaCl (PyNaCl 1.6.2 bundles libsodium 1.0.20-stable); independent of the system libsodium VaultCore links",
        "python": sys.version.split()[0],
    }


def write_json(name: str, value: dict) -> None:
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(value, f, indent=1, ensure_ascii=False)
        f.write("\n")


def cross_check_format_v1_fixture() -> None:
    """Optional (--cross-check): opens VaultKit's own committed fixture vault with this
    script's implementation. Nothing is derived from it; it only shows that this
    reading of SECURITY.md agrees with the files VaultKit writes."""
    with open(os.path.join(ROOT, "Tests", "VaultCoreTests", "Fixtures", "format-v1.vault"), "rb") as f:
        data = f.read()
    with open(os.path.join(ROOT, "KeyFixtures", "format-v1.key"), "rb") as f:
        master = f.read()
    block, file_salt = data[:HEADER_BLOCK_SIZE], data[120:152]
    assert block[:100] == decoy_sqlite_header(), "decoy header"
    assert block[100:152] == static_header(file_salt), "static header"
    dek = None
    for index, offset in enumerate(SLOT_OFFSETS):
        slot = block[offset:offset + 128]
        generation = struct.unpack("<Q", slot[:8])[0]
        if generation == 0:
            continue
        kek_salt, wrapped = slot[8:24], slot[24:96]
        assert key_slot(file_salt, index, generation, kek_salt, wrapped) == slot, f"slot {index} checksum"
        kek = key_encryption_key(master, file_salt, kek_salt)
        dek = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
            wrapped[NONCE_BYTES:], wrap_associated_data(file_salt, index, generation), wrapped[:NONCE_BYTES], kek)
    key = page_key(dek)
    pages = (len(data) - HEADER_BLOCK_SIZE) // PAGE_SIZE
    for k in range(1, pages + 1):
        unit = data[k * PAGE_SIZE:(k + 1) * PAGE_SIZE]
        ct, nonce, tag = unit[:-RESERVED], unit[-RESERVED:-TAG_BYTES], unit[-TAG_BYTES:]
        plain = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
            ct + tag, unit_associated_data(file_salt, KIND["databasePage"], k), nonce, key)
        assert k != 1 or plain.startswith(b"SQLite format 3\x00")
    print(f"cross-check: format-v1.vault opens here ({pages} pages)")


def main() -> None:
    self_check()
    if "--cross-check" in sys.argv[1:]:
        cross_check_format_v1_fixture()
    os.makedirs(OUT, exist_ok=True)
    hierarchy = build_key_hierarchy()
    write_json("key-hierarchy.json", hierarchy)
    write_json("unit-sealer.json", build_unit_sealer(hierarchy))
    write_json("key-file.json", build_key_files())
    write_json("vault-file.json", build_vault_file(hierarchy))
    print(f"wrote {OUT} (PyNaCl {nacl.__version__})")


if __name__ == "__main__":
    main()
