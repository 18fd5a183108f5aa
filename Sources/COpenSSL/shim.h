// The system OpenSSL libcrypto (Debian's libssl-dev, Homebrew's openssl).
// Used on Linux by RealmFileReader's Crypto/PageCipher.swift, for the two
// primitives Realm's file encryption needs: AES-256-CBC without padding and
// HMAC-SHA224 (swift-crypto has no SHA-224), and by VaultSync's WebSocket client
// for the SHA-1 of the handshake's Sec-WebSocket-Accept check (RFC 6455; not a
// security use). Nothing is wrapped here.
#include <openssl/evp.h>
#include <openssl/hmac.h>
