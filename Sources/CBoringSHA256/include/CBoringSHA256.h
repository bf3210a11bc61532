#ifndef IMGCACHE_CBORINGSHA256_H
#define IMGCACHE_CBORINGSHA256_H

#include <stddef.h>
#include <stdint.h>

/// The SHA-256 of `count` bytes at `bytes`, written to `digest` (32 bytes), by BoringSSL's
/// one-shot function: the BoringSSL that swift-crypto builds and links where the platform has no
/// CryptoKit (Linux, Android, Windows, WASI). swift-crypto does not export its header, so the function
/// is declared in CBoringSHA256.c.
void imgcache_boring_sha256(const uint8_t *bytes, size_t count, uint8_t *digest);

#endif
