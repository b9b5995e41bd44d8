// SHA-256 blocks on the CPU's SHA extensions when it has them (yc_sha256.c).
#ifndef YC_SHA256_H
#define YC_SHA256_H

#include <stddef.h>
#include <stdint.h>

/// SHA-256's 64 round constants (FIPS 180-4 §4.2.2), the one copy both implementations read.
const uint32_t *yc_sha256_constants(void);

/// 1 when this CPU has the SHA extensions (and SSE4.1), which yc_sha256_blocks then uses.
int yc_sha256_hardware(void);

/// Compresses `blocks` 64-byte blocks at `data` into `state` (A…H) and returns 1, or returns 0 without
/// touching anything when the CPU has no SHA extensions.
int yc_sha256_blocks(uint32_t state[8], const void *data, size_t blocks);

#endif
