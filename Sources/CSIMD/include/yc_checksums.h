// The two checksums of a PNG file: CRC-32 over each chunk (ISO-HDLC: reflected polynomial 0xEDB88320, initial
// and final value inverted), and Adler-32 over the inflated image data (RFC 1950). Each goes on from a
// previous value: crc = yc_crc32(0, data, n), then yc_crc32(crc, more, m); adler = yc_adler32(1, data, n).
#ifndef YC_CHECKSUMS_H
#define YC_CHECKSUMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The CRC of `n` more bytes: carry-less multiplication (PCLMULQDQ) where the CPU has it, the ARMv8 CRC32
/// instructions where the compiler targets them, else eight tables. Every path gives the same value.
uint32_t yc_crc32(uint32_t crc, const uint8_t *data, size_t n);

/// The same with the table path only, for tests.
uint32_t yc_crc32_portable(uint32_t crc, const uint8_t *data, size_t n);

/// 1 when yc_crc32 uses an instruction path on this CPU.
int yc_crc32_hardware(void);

/// Adler-32 of `n` more bytes: 32 bytes a step with SSSE3 where the CPU has it, else bytewise.
uint32_t yc_adler32(uint32_t adler, const uint8_t *data, size_t n);

/// The same, bytewise only, for tests.
uint32_t yc_adler32_portable(uint32_t adler, const uint8_t *data, size_t n);

/// 1 when yc_adler32 uses its vector path on this CPU.
int yc_adler32_vector(void);

#ifdef __cplusplus
}
#endif

#endif
