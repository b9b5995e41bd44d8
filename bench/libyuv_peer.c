// The benchmark peer: libyuv's whole-image RGBA → 4:2:0 conversions, behind three plain C entry points.
// Built by `make bench` only (needs libyuv-dev) into .build/bench/libyuv_peer.so and loaded by yuvbench
// with dlopen, so libyuv is never a dependency of yuvconv itself.
#include <stdint.h>
#include <libyuv.h>

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
