// Where swift-crypto builds BoringSSL: compiled empty on Apple platforms, which use CryptoKit.
#if !defined(__APPLE__)
#include "CBoringSHA256.h"

// BoringSSL's SHA256() as swift-crypto builds it: every BoringSSL symbol gets the CCryptoBoringSSL_
// prefix there, so that it cannot clash with another OpenSSL in the process (libcurl's, here). A
// swift-crypto that stopped providing it would fail at link time, not at run time.
extern uint8_t *CCryptoBoringSSL_SHA256(const uint8_t *data, size_t len, uint8_t out[32]);

void imgcache_boring_sha256(const uint8_t *bytes, size_t count, uint8_t *digest) {
    CCryptoBoringSSL_SHA256(bytes, count, digest);
}

#endif
