// The system OpenSSL libcrypto (Debian's libssl-dev, Homebrew's openssl).
// Used only by RealmFileReader's Crypto/PageCipher.swift on Linux, for the two
// primitives Realm's file encryption needs: AES-256-CBC without padding and
// HMAC-SHA224 (swift-crypto has no SHA-224). Nothing is wrapped here.
#include <openssl/evp.h>
#include <openssl/hmac.h>
