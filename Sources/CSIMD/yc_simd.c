// SwiftPM needs one source file in a C target; everything is static inline in yc_simd.h.
int yc_simd_anchor;
