// The C side of YUVCore's vector code: the CPU tier (yc_cpu.h), the tiered row kernels (yc_rows.h,
// yc_sharp_rows.h, yc_colour_rows.h), SHA-256 (yc_sha256.h) and PNG's CRC-32 and Adler-32 (yc_checksums.h).
#ifndef YC_SIMD_H
#define YC_SIMD_H

#include "yc_checksums.h"
#include "yc_cpu.h"
#include "yc_rows.h"
#include "yc_sha256.h"
#include "yc_sharp_rows.h"
#include "yc_colour_rows.h"
#include "yc_quality_rows.h"
#include "yc_ycc_rows.h"

#endif
