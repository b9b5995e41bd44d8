#!/usr/bin/env python3
"""Prints the folding constants of Sources/CSIMD/yc_checksums.c's PCLMULQDQ path, derived from the polynomial.

The CRC is bit-reflected, so each constant x^k mod P is reflected in 32 bits and shifted left by one; the
Barrett pair is P itself and floor(x^64 / P), each reflected in 33 bits.
"""
P = 0x104C11DB7  # x^32 + x^26 + ... + 1 (CRC-32, ISO-HDLC)


def x_mod_p(k):
    r = 1
    for _ in range(k):
        r <<= 1
        if r >> 32 & 1:
            r ^= P
    return r


def reflect(v, bits):
    return int(format(v, f"0{bits}b")[::-1], 2)


def x_div_p(k):
    num, q = 1 << k, 0
    while num.bit_length() >= 33:
        s = num.bit_length() - 33
        q |= 1 << s
        num ^= P << s
    return q


for name, k in [("k1 x^(4*128+32)", 544), ("k2 x^(4*128-32)", 480), ("k3 x^(128+32)", 160),
                ("k4 x^(128-32)", 96), ("k5 x^64", 64)]:
    print(f"{name:18} 0x{reflect(x_mod_p(k), 32) << 1:010x}")
print(f"{'P':18} 0x{reflect(P, 33):010x}")
print(f"{'mu floor(x^64/P)':18} 0x{reflect(x_div_p(64), 33):010x}")
