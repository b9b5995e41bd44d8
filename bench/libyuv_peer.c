// The benchmark peer: libyuv's whole-image RGBA → 4:2:0 conversions, behind three plain C entry points.
// Built by `make bench` only (needs libyuv-dev) into .build/bench/libyuv_peer.so and loaded by yuvbench
// with dlopen, so libyuv is never a dependency of yuvconv itself.
#include <stdint.h>
#include <libyuv.h>
#include <libyuv/cpu_id.h>

// "ABGR" in libyuv names a little-endian 32-bit word: bytes R, G, B, A in memory, as decoders produce RGBA.
int peer_abgr_to_nv12(const uint8_t *rgba, int stride, uint8_t *y, uint8_t *uv, int w, int h) {
    return ABGRToNV12(rgba, stride, y, w, uv, ((w + 1) / 2) * 2, w, h);
}

int peer_abgr_to_j420(const uint8_t *rgba, int stride, uint8_t *y, uint8_t *u, uint8_t *v, int w, int h) {
    return ABGRToJ420(rgba, stride, y, w, u, (w + 1) / 2, v, (w + 1) / 2, w, h);
}

int peer_abgr_to_i420(const uint8_t *rgba, int stride, uint8_t *y, uint8_t *u, uint8_t *v, int w, int h) {
    return ABGRToI420(rgba, stride, y, w, u, (w + 1) / 2, v, (w + 1) / 2, w, h);
}

// Pins libyuv to one of yuvconv's CPU tiers (yc_cpu.h numbering) with its own MaskCpuFlags, so each tier is
// measured against libyuv using the same instructions: 0 SSE2 only, 1 up to AVX2/FMA, 2 AVX-512BW/VL,
// 3 everything the CPU has (VNNI included). Bit 1 marks the flags as initialised.
void peer_pin_tier(int tier) {
    int base = 1 | kCpuHasX86 | kCpuHasSSE2;
    int avx2 = base | kCpuHasSSSE3 | kCpuHasSSE41 | kCpuHasSSE42 | kCpuHasAVX | kCpuHasAVX2 | kCpuHasERMS |
               kCpuHasFMA3 | kCpuHasF16C;
    int avx512bw = avx2 | kCpuHasAVX512BW | kCpuHasAVX512VL;
    MaskCpuFlags(tier <= 0 ? base : tier == 1 ? avx2 : tier == 2 ? avx512bw : -1);
}
