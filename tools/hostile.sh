#!/usr/bin/env bash
# make test-hostile: the tool against hostile inputs, outputs and environments. Every case is
# built here in a temporary folder (removed at exit) and runs the binary (YUVCONV_BIN, default
# .build/release/yuvconv) under `timeout -s KILL`. Each case checks its exit status (1 or 2 for a failure,
# never a signal or a hang), that standard error names the file and a reason, that no input or unrelated
# file changed (sha256 before and after), that no temporary or partial file is left, and for successes that
# the output equals a plain single-file conversion. Prints PASS/FAIL per case (SKIP when a case cannot run
# here), then "N passed, M failed"; exits 1 when something failed. HOSTILE_VERBOSE=1 adds each case's exit
# status and time on standard error.
#
# Run as root it also checks that -o /dev/stdout leaves /dev/stdout a symlink (and repairs it if not), and
# mounts a read-only tmpfs for the unwritable-folder case.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${YUVCONV_BIN:-.build/release/yuvconv}
[[ $BIN == /* ]] || BIN=$here/$BIN
[ -x "$BIN" ] || { echo "no binary at $BIN (make build)"; exit 2; }
FX=$here/Fixtures/corpus
JPG=$FX/photos/rocket.jpg            # 640x427 4:4:4 photo, 112 KB
JPG2=$FX/jpeg/pillow/hopper.jpg
PNG=$FX/pngsuite/basn2c08.png        # 32x32 RGB
PNGA=$FX/pngsuite/basn6a08.png       # 32x32 RGBA

# No core files: a case that sends SIGQUIT (whose default action dumps one) would find ./core left where a machine
# enables them.
ulimit -c 0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/yuvconv-hostile.XXXXXX")
META=$WORK/meta                      # captured streams, snapshots, references: outside the case folders
CRAFT=$WORK/craft                    # crafted inputs (cases copy what they use)
mkdir -p "$META" "$CRAFT" "$WORK/ref" "$WORK/cases"
# A private copy: the binary may be rebuilt while this runs, and one run must test one build.
cp "$BIN" "$WORK/yuvconv" && BIN=$WORK/yuvconv || exit 2
MOUNTS=()
cleanup() {
  cd /
  local m
  for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done
  # A damaged /dev/stdout or /dev/stderr breaks every later program on this machine: put them back.
  [ -L /dev/stdout ] || ln -sf /proc/self/fd/1 /dev/stdout
  [ -L /dev/stderr ] || ln -sf /proc/self/fd/2 /dev/stderr
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------------------
# Crafted inputs (python3 standard library only).
python3 - "$CRAFT" "$FX" <<'EOF' || { echo "could not craft the inputs"; exit 2; }
import os, random, struct, sys, zlib

out, fx = sys.argv[1], sys.argv[2]
rnd = random.Random(13)

def put(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)

def png(w, h, rows, level=6):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    raw = b"".join(b"\0" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, level)) + chunk(b"IEND", b""))

def segments(d):
    """(marker, start, end) of each JPEG segment after SOI; a scan runs to the next marker."""
    i, out = 2, []
    while i < len(d):
        m = d[i + 1]
        if m == 0xD9:
            out.append((m, i, i + 2)); break
        end = i + 2 + (d[i + 2] << 8 | d[i + 3])
        if m == 0xDA:
            while not (d[end] == 0xFF and d[end + 1] != 0 and not 0xD0 <= d[end + 1] <= 0xD7):
                end += 1
        out.append((m, i, end)); i = end
    return out

# 16x16 RGB PNG, and a 16x16 NV12 frame of noise (384 bytes).
put("p16.png", png(16, 16, [bytes((x * 16 + y * 3 + c * 40) & 255 for x in range(16) for c in range(3))
                            for y in range(16)]))
put("raw16.nv12", bytes(rnd.randrange(256) for _ in range(384)))

# 2048x2048 RGB PNG of zeros (8 KB).
put("zeros2k.png", png(2048, 2048, [bytes(2048 * 3)] * 2048, level=9))

# 4000x3000 RGB PNG (shifted noise rows): converting it to PNG takes about a second.
w, h = 4000, 3000
base = bytes(rnd.randrange(256) for _ in range(w * 3 + 4096))
put("big.png", png(w, h, [base[(y * 7) % 4096:(y * 7) % 4096 + w * 3] for y in range(h)], level=1))

# Y4M: a huge size in the header; 10-bit, 4:4:4 and mono frames of the right length.
put("huge.y4m", b"YUV4MPEG2 W4294967296 H4294967296 F25:1 Ip A1:1 C420jpeg\nFRAME\n" + bytes(384))
put("deep.y4m", b"YUV4MPEG2 W16 H16 F25:1 Ip A1:1 C420p12 XYSCSS=420P12\nFRAME\n" + bytes(768))
put("full.y4m", b"YUV4MPEG2 W16 H16 F25:1 Ip A1:1 C444\nFRAME\n" + bytes(768))
put("mono.y4m", b"YUV4MPEG2 W16 H16 F25:1 Ip A1:1 Cmono\nFRAME\n" + bytes(256))

# A JPEG with 100,000 empty APP1 segments right after SOI.
d = open(os.path.join(fx, "jpeg/jpegsuite/baseline/32x32x8_ycbcr.jpg"), "rb").read()
put("app1.jpg", d[:2] + b"\xff\xe1\x00\x02" * 100000 + d[2:])

# A progressive JPEG (6 scans) whose last scan is repeated up to 10,000 scans.
d = open(os.path.join(fx, "jpeg/jpegsuite/progressive_huffman/32x32x8_ycbcr.jpg"), "rb").read()
scans = [s for s in segments(d) if s[0] == 0xDA]
last = scans[-1]
put("scans.jpg", d[:last[2]] + d[last[1]:last[2]] * (10000 - len(scans)) + d[last[2]:])

# A valid grey progressive JPEG of 8192x4096 (33.5 MP) of zeros, 86 KB: a DC scan (one 1-bit code a block)
# and the AC scan (32 runs of 16384 empty blocks), that AC scan then repeated up to 300 scans, which draw no
# warning (each rewrites the same coefficients) and each re-read the whole picture.
def seg(m, body):
    return b"\xff" + bytes([m]) + struct.pack(">H", len(body) + 2) + body
W, H = 8192, 4096
blocks = (W // 8) * (H // 8)
sof = seg(0xC2, struct.pack(">BHHB", 8, H, W, 1) + bytes([1, 0x11, 0]))
dqt = seg(0xDB, b"\x00" + b"\x01" * 64)
dht = seg(0xC4, b"\x00" + bytes([1] + [0] * 15) + b"\x00") + seg(0xC4, b"\x10" + bytes([1] + [0] * 15) + b"\xe0")
dc = seg(0xDA, bytes([1, 1, 0x00, 0, 0, 0])) + bytes(blocks // 8)
ac = seg(0xDA, bytes([1, 1, 0x00, 1, 63, 0])) + bytes(((blocks // 16384) * 15 + 7) // 8)
put("scans33mp.jpg", b"\xff\xd8" + dqt + sof + dht + dc + ac * 299 + b"\xff\xd9")
# The same picture with its two scans only: 64 MiB of coefficients.
put("prog33mp.jpg", b"\xff\xd8" + dqt + sof + dht + dc + ac + b"\xff\xd9")
# The same size in colour, 4:2:0: 96 MiB of coefficients, 99 KB.
sof3 = seg(0xC2, struct.pack(">BHHB", 8, H, W, 3) + bytes([1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0]))
mcus, chroma = (W // 16) * (H // 16), (W // 16) * (H // 16)
dc3 = seg(0xDA, bytes([3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 0, 0])) + bytes((mcus * 6 + 7) // 8)
def ac_of(c, n):
    return seg(0xDA, bytes([1, c, 0x00, 1, 63, 0])) + bytes(((n // 16384) * 15 + 7) // 8)
put("prog33mp-colour.jpg", b"\xff\xd8" + dqt + sof3 + dht + dc3 + ac_of(1, blocks) + ac_of(2, chroma) + ac_of(3, chroma)
    + b"\xff\xd9")

# A 16x16 PNG whose cICP and gAMA come after the image data.
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
p16 = png(16, 16, [bytes((x * 16 + y * 3 + c * 40) & 255 for x in range(16) for c in range(3)) for y in range(16)])
put("late-colour.png", p16[:-12] + chunk(b"cICP", bytes([12, 13, 0, 1])) + chunk(b"gAMA", struct.pack(">I", 45455)) + p16[-12:])

# JPEGs missing image data that libjpeg fills in without a word: a sequential file (one scan per component)
# with only its first scan; a progressive one (six one-component scans) with only its first (luma's DC). And
# restart intervals padded with two bytes each, as webcam and scanner encoders pad them: intact pixels.
def first_scan_only(path):
    d = open(os.path.join(fx, path), "rb").read()
    sos = [s for s in segments(d) if s[0] == 0xDA]
    return d[:sos[0][2]] + b"\xff\xd9"
put("seq-one-scan.jpg", first_scan_only("jpeg/jpegsuite/baseline/32x32x8_ycbcr.jpg"))
put("prog-one-scan.jpg", first_scan_only("jpeg/jpegsuite/progressive_huffman/32x32x8_ycbcr.jpg"))
d = open(os.path.join(fx, "jpeg/jpegsuite/baseline/32x32x8_restarts.jpg"), "rb").read()
sos = d.index(b"\xff\xda")
put("rst-padded.jpg", d[:sos] + b"".join(b"\0\0" + d[i:i + 2] if d[i] == 0xFF and 0xD0 <= d[i + 1] <= 0xD7 else d[i:i + 1]
                                          for i in range(sos, len(d) - 1)
                                          if not (i > sos and d[i - 1] == 0xFF and 0xD0 <= d[i] <= 0xD7)) + d[-1:])
# A 1x1 PNG whose image data goes on for 256 MiB of deflated zeros (260 KB) after its one row; a 1000x1000 one
# with as much after its rows, within 9/8 of the rows' size (a bound on the whole image data let it through).
z = zlib.compressobj(9)
data = z.compress(b"\0\1\2\3") + b"".join(z.compress(bytes(1 << 24)) for _ in range(16)) + z.flush()
put("trailing-idat.png", b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    + chunk(b"IDAT", data) + chunk(b"IEND", b""))
z = zlib.compressobj(6)
rows = (b"\0" + bytes(rnd.randrange(256) for _ in range(3000))) * 1000
data = z.compress(rows) + b"".join(z.compress(bytes(1 << 24)) for _ in range(16)) + z.flush()
put("trailing-idat-big.png", b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1000, 1000, 8, 2, 0, 0, 0))
    + chunk(b"IDAT", data) + chunk(b"IEND", b""))

# A 1x1 PNG whose sCAL (or pCAL) declares 2 GB and holds nothing: libpng's handlers for these allocate the
# declared length first, beyond png_set_chunk_malloc_max.
ihdr = struct.pack(">I", 13) + b"IHDR" + struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
ihdr += struct.pack(">I", zlib.crc32(ihdr[4:]))
for kind in (b"sCAL", b"pCAL"):
    put("huge-%s.png" % kind.decode(), b"\x89PNG\r\n\x1a\n" + ihdr + struct.pack(">I", 0x7FFFFFFF) + kind)

# A 16384x16384 RGB PNG cut short in its first row: 116 bytes that claim 805 MB of pixels.
zc = zlib.compressobj()
first = zc.compress(b"\0" + bytes(16384 * 3)) + zc.flush(zlib.Z_SYNC_FLUSH)
idat = struct.pack(">I", 200) + b"IDAT" + first[:200]
put("claims-16k.png", b"\x89PNG\r\n\x1a\n" + ihdr[:8] + struct.pack(">IIBBBBB", 16384, 16384, 8, 2, 0, 0, 0)
    + struct.pack(">I", zlib.crc32(b"IHDR" + struct.pack(">IIBBBBB", 16384, 16384, 8, 2, 0, 0, 0))) + idat)

# The Display P3 JPEG with its profile cut into four APP2 pieces, the second one empty (a piece of exactly
# the 14-byte header still counts in the sequence).
d = open(os.path.join(fx, "..", "colour", "kodim23-p3.jpg"), "rb").read()
segs = [(m, d[a:b]) for m, a, b in segments(d)]
first_scan = next(i for i, (m, _) in enumerate(segs) if m == 0xDA)
is_icc = lambda m, s: m == 0xE2 and s[4:16] == b"ICC_PROFILE\0"
icc = b"".join(s[18:] for m, s in segs[:first_scan] if is_icc(m, s))
def app2(seq, count, piece):
    body = b"ICC_PROFILE\0" + bytes([seq, count]) + piece
    return b"\xff\xe2" + struct.pack(">H", len(body) + 2) + body
k = len(icc) // 3
pieces = [app2(1, 4, icc[:k]), app2(2, 4, b""), app2(3, 4, icc[k:2 * k]), app2(4, 4, icc[2 * k:])]
head = [s for m, s in segs[:first_scan] if not is_icc(m, s)]
rest = d[sum(len(s) for _, s in segs[:first_scan]) + 2:]
put("icc-empty-piece.jpg", d[:2] + head[0] + b"".join(pieces) + b"".join(head[1:]) + rest)

# A 3000x2000 PNG stored with little compression: a conversion of it takes tens of milliseconds.
row = bytes((i * 37) % 251 for i in range(3000 * 3 + 50))
put("slow.png", png(3000, 2000, [row[y % 50:y % 50 + 9000] for y in range(2000)], level=1))
put("tiny.png", png(16, 16, [row[y % 50:y % 50 + 48] for y in range(16)]))
# 116 bytes claiming 16384x16384: its JPEG output would hold a 384 MiB picture.
z = zlib.compressobj()
scan = (z.compress(b"\0" + bytes(16384 * 3)) + z.flush(zlib.Z_SYNC_FLUSH))[:200]
ihdr = struct.pack(">IIBBBBB", 16384, 16384, 8, 2, 0, 0, 0)
# A JPEG whose profile's description holds an escape sequence and a newline (same length as "Display P3").
icc = bytearray(open(os.path.join(fx, "..", "colour", "DisplayP3.icc"), "rb").read())
at = icc.find("Display P3".encode("utf-16-be"))
assert at >= 0, "no Display P3 description in the profile"
icc[at:at + 20] = "\x1b[31mRED\x07\n".encode("utf-16-be")
jpeg = open(os.path.join(fx, "jpeg", "pillow", "hopper.jpg"), "rb").read()
body = b"ICC_PROFILE\0\x01\x01" + bytes(icc)
put("icc-escape.jpg", jpeg[:2] + b"\xff\xe2" + struct.pack(">H", len(body) + 2) + body + jpeg[2:])
# Orientation 6 in an eXIf after the image data (8- and 16-bit: yuvconv's own IDAT route and libpng's); an
# EXIF orientation of 9 (unusable: as stored) beside XMP's 6.
def exif_of(v): return b"II*\0" + struct.pack("<IH", 8, 1) + struct.pack("<HHIHH", 0x112, 3, 1, v, 0) + b"\0" * 4
def chunked(kind, body): return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
def small_png(depth, before=b"", after=b""):
    raw = b"".join(b"\0" + bytes((y * 15 + i) % 256 for i in range(15 * depth // 8)) for y in range(3))
    return (b"\x89PNG\r\n\x1a\n" + chunked(b"IHDR", struct.pack(">IIBBBBB", 5, 3, depth, 2, 0, 0, 0)) + before
            + chunked(b"IDAT", zlib.compress(raw)) + after + chunked(b"IEND", b""))
put("late-exif.png", small_png(8, after=chunked(b"eXIf", exif_of(6))))
# An eXIf whose CRC is wrong (damaged: not acted on), and two eXIf chunks (the first one counts).
bad = chunked(b"eXIf", exif_of(6))
put("exif-bad-crc.png", small_png(8, before=bad[:-4] + bytes(4)))
put("exif-twice.png", small_png(8, before=chunked(b"eXIf", exif_of(6)) + chunked(b"eXIf", exif_of(3))))
put("exif-none.png", small_png(8))
put("exif6.png", small_png(8, before=chunked(b"eXIf", exif_of(6))))
put("late-exif16.png", small_png(16, after=chunked(b"eXIf", exif_of(6))))
put("exif9-xmp6.png", small_png(8, before=chunked(b"eXIf", exif_of(9)) + chunked(b"iTXt",
    b"XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta><rdf:Description tiff:Orientation=\"6\"/></x:xmpmeta>")))
put("claims16k.png", b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    + struct.pack(">I", len(scan)) + b"IDAT" + scan)
# A valid PNG wider than libpng's default limit of 1,000,000 a side (its row compresses to nothing), and a
# Y4M frame and a PNG wider than a JPEG can be (70000x2).
wide = zlib.compressobj(9)
put("wide2m.png", b"\x89PNG\r\n\x1a\n" + b"".join(
    struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body)) for kind, body in [
        (b"IHDR", struct.pack(">IIBBBBB", 2000000, 2, 8, 2, 0, 0, 0)),
        (b"IDAT", wide.compress((b"\0" + b"\x40\x80\xc0" * 2000000) * 2) + wide.flush()), (b"IEND", b"")]))
put("wide70k.y4m", b"YUV4MPEG2 W70000 H2 F25:1 Ip A1:1 C420jpeg\nFRAME\n" + bytes(70000 * 3))
put("wide2m.y4m", b"YUV4MPEG2 W2000000 H2 F25:1 Ip A1:1 C420jpeg\nFRAME\n" + bytes(2000000 * 3))
put("wide70k.png", png(70000, 2, [bytes(70000 * 3)] * 2))
put("tall100k.png", png(1, 100000, [b"\x10\x80\xf0"] * 100000, level=9))
# Its header alone, 1x2,000,000: taller than libpng reads (refused at the header).
put("tall2m.png", b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">IIBBBBB", 1, 2000000, 8, 2, 0, 0, 0)
    + struct.pack(">I", zlib.crc32(b"IHDR" + struct.pack(">IIBBBBB", 1, 2000000, 8, 2, 0, 0, 0))))
# A 16x16 PNG whose eXIf (orientation 6) is followed by 200 MB of zeros: libpng's own eXIf handler held it all.
ifd = struct.pack("<H", 1) + struct.pack("<HHII", 0x112, 3, 1, 6) + struct.pack("<I", 0)
body = b"II*\x00" + struct.pack("<I", 8) + ifd + bytes(200 << 20)
rows16 = b"".join(b"\0" + bytes(range(48)) for _ in range(16))
put("bigexif.png", b"\x89PNG\r\n\x1a\n" + b"".join(
    struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d)) for t, d in [
        (b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0)), (b"eXIf", body), (b"IDAT", zlib.compress(rows16)),
        (b"IEND", b"")]))
EOF

# ---------------------------------------------------------------------------------------------------------
# The case helpers. A case: begin NAME; put its files in the current folder (the case folder, $D); snap;
# run the tool (run ARGS, or yc ARGS with its own redirections); the checks; end.
pass=0 fail=0 skip=0
begin() {
  NAME=$1 WHY= D=$WORK/cases/$1 LIMIT=20 WRAP=() ALLOW=() RC=- ELAPSED_MS=0 DELAY=
  OUT=$META/$1.out ERR=$META/$1.err
  mkdir -p "$D" && cd "$D" || exit 2
}
bad() { WHY+="${WHY:+; }$*"; }
end() {
  cd "$WORK"
  [ -z "${HOSTILE_VERBOSE:-}" ] || echo "  $NAME: exit $RC, $ELAPSED_MS ms${DELAY:+ (signal at $DELAY ms)}" >&2
  if [ -z "$WHY" ]; then pass=$((pass + 1)); echo "PASS $NAME"
  else fail=$((fail + 1)); echo "FAIL $NAME: $WHY" | cat -v; fi
}
skipped() { skip=$((skip + 1)); echo "SKIP $NAME: $*"; cd "$WORK"; }

# Every entry below $D: path, type, link target, sha256 of a regular file's bytes (never opens a FIFO).
listing() {
  (cd "$D" && find . -mindepth 1 -printf '%p\t%y\t%l\n' | LC_ALL=C sort | while IFS=$'\t' read -r p y l; do
    s=; [ "$y" = f ] && s=$(sha256sum < "$p" | cut -c1-64)
    printf '%s\t%s\t%s\t%s\n' "$p" "$y" "$l" "$s"
  done)
}
snap() { listing > "$META/$NAME.before"; }

# The tool under timeout (and under WRAP, e.g. /usr/bin/time or a ulimit), with the caller's redirections.
yc() {
  local t0; t0=$(date +%s%N)
  timeout -s KILL "$LIMIT" "${WRAP[@]}" "$BIN" "$@"; RC=$?
  ELAPSED_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
}
run() { yc "$@" > "$OUT" 2> "$ERR"; }
errline() { head -c 160 "$ERR" | tr '\n' ' '; }

# The exit status: 0, 1, 2, fail (1 or 2), done (0 or 1). Never a signal, never the timeout.
status() {
  if (( ELAPSED_MS >= LIMIT * 1000 )); then bad "hung: killed after ${LIMIT}s"
  elif (( RC >= 128 )); then
    sed -i '/timeout -s KILL "\$LIMIT"/d' "$ERR" 2>/dev/null  # bash's own "Illegal instruction ..." line
    bad "killed by signal $((RC - 128)) ($(kill -l $((RC - 128)) 2>/dev/null)): $(errline)"
  else
    case $1 in
      fail) (( RC == 1 || RC == 2 )) ;;
      done) (( RC == 0 || RC == 1 )) ;;
      *) (( RC == $1 )) ;;
    esac || bad "exit $RC, want $1: $(errline)"
  fi
}
within() { (( ELAPSED_MS <= $1 )) || bad "took ${ELAPSED_MS} ms (limit $1 ms)"; }
# Standard error names the file and gives a reason: a line holding the name and some words after it.
names() {
  LC_ALL=C grep -aF -- "$1" "$ERR" | LC_ALL=C awk -v n=${#1} 'length($0) >= n + 6 { f = 1 } END { exit !f }' ||
    bad "stderr does not name $1 with a reason: $(errline)"
}
says() { LC_ALL=C grep -qaiE -- "$1" "$ERR" || bad "stderr does not say /$1/: $(errline)"; }
quiet() { [ ! -s "$ERR" ] || bad "stderr not empty: $(errline)"; }
# Nothing changed below $D but the paths matching ALLOW (globs relative to $D); no temporary file anywhere.
settled() {
  # A case that never listed its files first would check nothing: said as a failure, not passed in silence.
  [ -f "$META/$NAME.before" ] || { bad "settled without snap: the files before the case were never listed"; return; }
  listing > "$META/$NAME.after"
  local p g ok
  while IFS= read -r p; do
    ok=0; for g in "${ALLOW[@]}"; do [[ ${p#./} == $g ]] && ok=1; done
    (( ok )) && continue
    if ! LC_ALL=C cut -f1 "$META/$NAME.before" | LC_ALL=C grep -qxF -- "$p"; then bad "new file ${p#./}"
    elif ! LC_ALL=C cut -f1 "$META/$NAME.after" | LC_ALL=C grep -qxF -- "$p"; then bad "removed ${p#./}"
    else bad "changed ${p#./}"; fi
  done < <(LC_ALL=C comm -3 "$META/$NAME.before" "$META/$NAME.after" | sed 's/^\t//' | cut -f1 | LC_ALL=C sort -u)
  temps
}
temps() {
  local t; t=$(find "$D" -name '*yuvconv-*' ! -name '.yuvconv-manifest' -printf '%P ' 2>/dev/null)
  [ -z "$t" ] || bad "temporary file left: $t"
}
# A plain single-file conversion of SRC to a file of extension EXT (extra options after), made once.
# The binary converting INPUT to o.nv12 (under RC, OUT and ERR as `run` leaves them), its K-th read held 0.6 s by
# strace and ACTION run 0.3 s into the hold: another program at the input while it is read.
held_read() {
  local input=$1 k=$2 pid; shift 2
  strace -f -qq -o /dev/null -e trace=read -e inject=read:delay_exit=600000:when=$k "$BIN" "$input" -o o.nv12 -q \
    > "$OUT" 2> "$ERR" & pid=$!
  sleep 0.3; "$@"; wait $pid; RC=$?
}

ref() {
  local src=$1 ext=$2; shift 2
  local key; key=$(printf '%s|%s|%s' "$src" "$ext" "$*" | sha256sum | cut -c1-16)
  local r=$WORK/ref/$key.$ext
  [ -e "$r" ] || timeout -s KILL 20 "$BIN" "$src" -o "$r" -q "$@" >/dev/null 2>&1
  echo "$r"
}
same() {  # same FILE REFERENCE
  if [ ! -f "$1" ]; then bad "no output $1"
  elif [ ! -s "$2" ]; then bad "the single-file conversion for $1 failed"
  elif ! cmp -s "$1" "$2"; then bad "$1 differs from the single-file conversion"; fi
}
# Peak RSS of the last run under WRAP=(memwrap): under MB megabytes (skipped without /usr/bin/time).
HAVE_TIME=0; [ -x /usr/bin/time ] && HAVE_TIME=1
# JPEG $1 with APP15 segments of zeros after its start marker, $2 bytes long in all, written to $3.
pad_jpeg() {
  python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
pad = int(sys.argv[2]) - len(d)
segs = b""
while pad > 0:
    n = min(pad, 65537)
    if pad - n and pad - n < 4: n -= 4
    segs += b"\xff\xef" + struct.pack(">H", n - 2) + b"\0" * (n - 4)
    pad -= n
open(sys.argv[3], "wb").write(d[:2] + segs + d[2:])
PY
}
memwrap() {  # the WRAP for a run that may read an endless stream: 4 GiB address space at most
  WRAP=(prlimit --as=4294967296 --)
  (( HAVE_TIME )) && WRAP=(/usr/bin/time -f %M -o "$META/$NAME.rss" "${WRAP[@]}")
}
rss_below() {
  (( HAVE_TIME )) && [ -s "$META/$NAME.rss" ] || return 0
  local kb; kb=$(tail -n 1 "$META/$NAME.rss")
  [[ $kb =~ ^[0-9]+$ ]] && (( kb > $1 * 1024 )) && bad "peak RSS $((kb / 1024)) MiB (limit $1 MiB)"
}

fixtures_before=$(cd "$here" && find Fixtures -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum)

# ---------------------------------------------------------------------------------------------------------
# 1. Output formats in a batch come from --name's extension; an unknown extension is a usage error.
begin batch-name-png
cp "$JPG" a.jpg; cp "$PNG" b.png; snap
run convert a.jpg b.png -o o1/ --name '{stem}.png'
status 0; ALLOW=(o1 o1/a.png o1/b.png); settled
same o1/a.png "$(ref "$JPG" png)"; same o1/b.png "$(ref "$PNG" png)"
end

begin batch-name-PNG
cp "$JPG" a.jpg; snap
run convert a.jpg -o o1/ --name '{stem}.PNG'
status 0; ALLOW=(o1 o1/a.PNG); settled
same o1/a.PNG "$(ref "$JPG" png)"
end

begin batch-name-y4m
cp "$JPG" a.jpg; cp "$PNG" b.png; snap
run convert a.jpg b.png -o o1/ --name '{stem}.y4m'
status 0; ALLOW=(o1 o1/a.y4m o1/b.y4m); settled
same o1/a.y4m "$(ref "$JPG" y4m)"; same o1/b.y4m "$(ref "$PNG" y4m)"
end

begin batch-name-yuv
cp "$JPG" a.jpg; snap
run convert a.jpg -o o1/ --name '{stem}.yuv'
status 0; ALLOW=(o1 o1/a.yuv); settled
same o1/a.yuv "$(ref "$JPG" yuv)"
end

begin unknown-extension
cp "$JPG" a.jpg; snap
run a.jpg -o x.webp
status 2; names x.webp; settled
end

# 2. Sizes whose byte counts overflow.
begin size-2pow32
cp "$CRAFT/raw16.nv12" f.nv12; snap
run f.nv12 --size 4294967296x4294967296 -o o.png
status fail; says 'size|4294967296|large|overflow'; settled
end

begin size-sqrt-int64
cp "$CRAFT/raw16.nv12" f.nv12; snap
run f.nv12 --size 3037000500x3037000500 -o o.png
status fail; says 'size|3037000500|large|overflow'; settled
end

begin y4m-size-2pow32
cp "$CRAFT/huge.y4m" big.y4m; snap
run big.y4m -o o.png
status fail; names big.y4m; settled
end

# The same with --max-pixels as high as it goes: the byte count must still be checked, never trapped on, and
# a short input must cost what it holds, not what its header or the command line claims.
begin size-max-pixels-int64
cp "$CRAFT/raw16.nv12" f.nv12; snap
run f.nv12 --size 3037000499x3037000499 --max-pixels 9223372036854775807 -o o.nv12
status fail; says 'large|above|limit|more pixels than any frame'; settled
end

begin y4m-max-pixels-int64
printf 'YUV4MPEG2 W2147483647 H2147483647\nFRAME\nabc' > h.y4m; snap
run h.y4m -o - --max-pixels 9223372036854775807
status fail; names h.y4m; settled
end

begin y4m-claims-15GB
printf 'YUV4MPEG2 W100000 H100000\nFRAME\nab' > big.y4m; snap
memwrap; run big.y4m -o o.nv12 --max-pixels 10000000000
status fail; says 'cut short'; rss_below 64; settled
end

begin y4m-claims-15GB-pipe
printf 'YUV4MPEG2 W100000 H100000\nFRAME\nab' > big.y4m; snap
memwrap; yc - -o o.nv12 --max-pixels 10000000000 < big.y4m > "$OUT" 2> "$ERR"
status fail; says 'cut short'; rss_below 64; settled
end

begin y4m-claims-16384-squared
{ printf 'YUV4MPEG2 W16384 H16384 C420jpeg\nFRAME\n'; head -c 100 /dev/zero; } > m.y4m; snap
memwrap; run m.y4m -o o.nv12
status fail; says 'cut short'; rss_below 64; settled
end

begin y4m-bogus-colour-range
{ printf 'YUV4MPEG2 W2 H2 C420jpeg XCOLORRANGE=BOGUS\nFRAME\n'; head -c 6 /dev/zero; } > r.y4m; snap
run r.y4m -o o.nv12
status fail; names r.y4m; says 'XCOLORRANGE'; settled
end

begin output-stdout-closed-named
cp "$PNG" a.png; snap
yc a.png -o - >&- 2> "$ERR"
status fail; says 'stdout'; settled
LC_ALL=C grep -qa 'stdin' "$ERR" && bad "standard output named as <stdin>: $(errline)"
end

begin empty-stdin-pipe
snap
yc - -o o.nv12 < <(true) > "$OUT" 2> "$ERR"
status 1; says 'empty'; settled
LC_ALL=C grep -qa 'FIFO' "$ERR" && bad "an empty pipe called a FIFO without a writer: $(errline)"
end

begin files-from-same-file-twice
cp "$PNG" a.png; printf 'a.png\n./a.png\n' > list; snap
run convert --files-from list -o o/
status 2; says 'given twice'; settled
end

begin raw-chroma-zero-to-10-bit
python3 -c "open('c0.nv12','wb').write(bytes([128]*8+[0,128,128,128]))"; snap
run c0.nv12 --size 4x2 --range full -o c.p010
status 0; ALLOW=(c.p010); settled
[ "$(stat -c %s c.p010 2>/dev/null)" = 24 ] || bad "c.p010 is not 24 bytes"
end

begin raw-input-report-refused
python3 -c "open('m.nv12','wb').write(bytes(24))"; snap
run m.nv12 --size 4x4 -o m.nv21 --report csv --report-file m.csv
status 2; says 'report'; settled
end

begin recursive-symlink-loops
mkdir t; cp "$PNG" t/p.png; ln -s . t/l1; ln -s . t/l2; snap
run convert t -r -o o/
status 0; says 'reached again'; ALLOW=(o 'o/*' 'o/*/*'); settled
[ "$(find o -type f | wc -l)" = 1 ] || bad "$(find o -type f | wc -l) outputs for one file"
end

begin name-unknown-placeholder
cp "$PNG" a.png; snap
run convert a.png -o o/ --name '{bogus}.{ext}'
status 2; says 'not a placeholder'; settled
end

begin same-name-two-folders-hint
mkdir -p t/sub; cp "$PNG" t/f1.png; cp "$PNG" t/sub/f1.png; snap
run convert t -r -o o/
status 2; says '\{dir\}/\{stem\}\.\{ext\}'
# The template the hint names tells them apart (and keeps the stem: f1.nv12, not f1.png.nv12).
run convert t -r -o o/ --name '{dir}/{stem}.{ext}' -q
status 0; ALLOW=(o o/t o/t/f1.nv12 o/t/sub o/t/sub/f1.nv12); settled
end

# 3. A raw output named like a file never becomes a folder.
begin files-to-raw-name
cp "$PNG" a.png; cp "$CRAFT/p16.png" b.png; snap
run -o out.nv12 a.png b.png --format nv12
status 2; settled
[ -e out.nv12 ] && bad "out.nv12 was created"
end

# 4. Y4M other than 8- or 10-bit 4:2:0 (12-bit, 4:4:4, mono): refused.
for y in deep full mono; do
  begin "y4m-$y"
  cp "$CRAFT/$y.y4m" in.y4m; snap
  run in.y4m -o o.nv12
  status 1; names in.y4m; settled
  end
done

# 5. Symlinks as outputs: written through, never replaced.
begin symlink-output
cp "$CRAFT/raw16.nv12" t.nv12; ln -s t.nv12 link.nv12; cp "$JPG" a.jpg; snap
run a.jpg -o link.nv12 --force
status 0; ALLOW=(t.nv12); settled
[ -L link.nv12 ] || bad "link.nv12 is no longer a symlink"
same t.nv12 "$(ref "$JPG" nv12)"
end

begin dev-stdout
cp "$JPG" a.jpg; snap
if [ "$(id -u)" != 0 ]; then skipped "needs root (that is when it can break /dev/stdout)"
elif [ ! -L /dev/stdout ]; then skipped "/dev/stdout is not a symlink here"
else
  yc a.jpg -o /dev/stdout --force > f 2> "$ERR"
  status 0; ALLOW=(f); settled
  if [ ! -L /dev/stdout ]; then bad "/dev/stdout replaced (restored it)"; ln -sf /proc/self/fd/1 /dev/stdout; fi
  left=$(find /dev -maxdepth 1 -name '*yuvconv-*' -printf '%f ')
  [ -z "$left" ] || { bad "temporary file left in /dev: $left"; find /dev -maxdepth 1 -name '*yuvconv-*' -delete; }
  same f "$(ref "$JPG" nv12)"
  end
fi

begin dev-stderr
cp "$JPG" a.jpg; snap
yc a.jpg -o /dev/stderr --force -q > "$OUT" 2> f
status 0; ALLOW=(f); settled
if [ ! -L /dev/stderr ] && [ "$(id -u)" = 0 ]; then bad "/dev/stderr replaced (restored it)"; ln -sf /proc/self/fd/2 /dev/stderr; fi
same f "$(ref "$JPG" nv12)"
# Without -q the messages would go into the picture (they did, exit 0): refused, no picture there.
yc a.jpg -o /dev/fd/2 > "$OUT" 2> g; status 2
[ "$(wc -c < g)" -lt 1000 ] && grep -q 'the output is standard error' g || bad "g holds more than the refusal: $(head -c 80 g)"
ALLOW=(f g); settled
end

# 6. Inputs are never overwritten, however the output reaches them.
begin stdin-is-output
cp "$JPG" s.jpg; snap
yc - -o s.jpg --force < s.jpg > "$OUT" 2> "$ERR"
status fail; names s.jpg; settled
end

begin report-stdin-is-report-file
cp "$JPG" s.jpg; snap
yc report - --report csv --report-file s.jpg --force < s.jpg > "$OUT" 2> "$ERR"
status fail; names s.jpg; settled
end

begin batch-output-is-input
cp "$CRAFT/p16.png" a.png; mkdir o; cp "$CRAFT/raw16.nv12" o/a.nv12; snap
run convert a.png o/a.nv12 --size 16x16 -o o/ --force
status fail; names a.nv12; settled
end

begin batch-dir-output-is-input
mkdir -p src o/src; cp "$CRAFT/p16.png" src/b.png; cp "$CRAFT/raw16.nv12" o/src/b.nv12; snap
run convert src o/src/b.nv12 --size 16x16 -o o/ --name '{dir}/{stem}.{ext}' --force
status fail; names b.nv12; ALLOW=(o/b.nv12); settled
end

begin hardlink-output
cp "$PNG" a.png; ln a.png out.nv12; snap
run a.png -o out.nv12 --force
status fail; names out.nv12; settled
end

begin symlink-to-input-output
cp "$JPG" a.jpg; ln -s a.jpg l.nv12; snap
run a.jpg -o l.nv12 --force
status fail; names l.nv12; settled
end

# Standard output or error opened on an input (read-write, or appending): data, a report, lines and messages
# would land in it. Refused before any work; on standard error the exit status alone says so.
begin stdout-is-input-report
cp "$PNG" in.png; snap
yc in.png -o o.nv12 --report json 1<> in.png 2> "$ERR"
status fail; says 'standard output is an input'; settled
end

begin stdout-appends-to-input-report
cp "$PNG" in.png; snap
yc report in.png --report csv >> in.png 2> "$ERR"
status fail; says 'standard output is an input'; settled
end

begin stdout-is-input-batch
mkdir d; cp "$PNG" d/a.png; cp "$JPG" d/b.jpg; snap
yc convert d -o o/ --report json 1<> d/a.png 2> "$ERR"
status fail; says 'standard output is an input'; settled
end

begin stderr-is-input-data-on-stdout
cp "$PNG" in.png; snap; : > "$ERR"
yc in.png -o - --report json 2<> in.png > "$OUT"
status fail; settled
end

begin stderr-appends-to-input
cp "$JPG" in.jpg; snap; : > "$ERR"
yc in.jpg -o o.nv12 2>> in.jpg > "$OUT"
status fail; settled
end

# --update rewrites its manifest at the end: a link in its place, or a file there that is not a manifest, is
# refused before any work (the latter replaced with --force).
begin update-manifest-is-symlink
cp "$PNG" a.png; mkdir o; echo "not yours" > other.txt; ln -s ../other.txt o/.yuvconv-manifest; snap
run convert a.png -o o/ --update
status 1; says 'symbolic link'; settled
end

begin update-manifest-is-foreign
cp "$PNG" a.png; mkdir o; echo "my notes" > o/.yuvconv-manifest; snap
run convert a.png -o o/ --update
status 1; says 'not a yuvconv manifest'; settled
end

begin update-manifest-is-foreign-force
cp "$PNG" a.png; mkdir o; echo "my notes" > o/.yuvconv-manifest; snap
run convert a.png -o o/ --update --force
status 0; ALLOW=(o/.yuvconv-manifest o/a.nv12); settled
head -c 16 o/.yuvconv-manifest | grep -q '^yuvconv-manifest' || bad "the manifest was not written"
end

# 7. The report never replaces the conversion's own output.
begin report-file-is-output
cp "$JPG" a.jpg; snap
run a.jpg -o o.nv12 --report-file o.nv12 --report json --force
status 2; says 'o\.nv12'; settled
end

begin report-file-is-input
cp "$JPG" a.jpg; cp "$PNG" b.png; ln -s b.png l.csv; snap
run convert a.jpg b.png -o o/ --report csv --report-file l.csv --force
status fail; names l.csv; ALLOW=(o 'o/?.nv12'); settled
end

# 8. Closed standard streams: a file opened then must not receive log or report text.
batch4() { cp "$JPG" a.jpg; cp "$JPG2" b.jpg; cp "$PNG" c.png; cp "$PNGA" d.png; }
begin stderr-closed-batch
batch4; snap
yc convert a.jpg b.jpg c.png d.png -o o/ > "$OUT" 2>&-
status 0; ALLOW=(o 'o/?.nv12'); settled
same o/a.nv12 "$(ref "$JPG" nv12)"; same o/b.nv12 "$(ref "$JPG2" nv12)"
same o/c.nv12 "$(ref "$PNG" nv12)"; same o/d.nv12 "$(ref "$PNGA" nv12)"
end

begin stdout-closed-report
batch4; snap
yc convert a.jpg b.jpg c.png d.png -o o/ --report json >&- 2> "$ERR"
status 1; ALLOW=(o 'o/?.nv12'); settled
for f in "a $JPG" "b $JPG2" "c $PNG" "d $PNGA"; do  # what was written is the plain conversion, no report
  [ ! -e "o/${f%% *}.nv12" ] || same "o/${f%% *}.nv12" "$(ref "${f#* }" nv12)"
done
end

# 9. FIFOs and endless devices: an error within seconds, bounded memory, the other files converted.
begin fifo-in-folder
mkdir in; cp "$JPG" in/a.jpg; mkfifo in/b.jpg; cp "$PNG" in/c.png; snap
LIMIT=10; run convert in/ -o o/
status done; within 5000; names b.jpg; ALLOW=(o o/a.nv12 o/c.nv12); settled
same o/a.nv12 "$(ref "$JPG" nv12)"; same o/c.nv12 "$(ref "$PNG" nv12)"
end

# No writer comes: the read waits 5 s for one (a producer started just after yuvconv), then gives up.
begin fifo-by-name
mkfifo p.jpg; snap
LIMIT=10; run p.jpg -o x.nv12
status 1; (( ELAPSED_MS >= 4500 )) || bad "gave up after ${ELAPSED_MS} ms: no wait for a writer"; within 8000
names p.jpg; says 'no writer opened it within 5 s'; settled
end

# A run refused for where its data and report go, whatever the input holds, opens no FIFO: it waited 5 s for a
# writer (a waiting one was let in, then cut off) before saying so.
begin fifo-run-refused-for-its-report-opens-nothing
mkfifo p.jpg; snap
LIMIT=10; run p.jpg -o x.nv12 --report json --report-file x.nv12
status 2; within 3000; says 'are the same file'
yc p.jpg -f nv12 -o - --report json > o.bin 2>&1
status 2; within 3000
yc p.jpg -f nv12 -o - > o.bin 2>&1
status 2; within 3000
run p.jpg -s 16x16 -o /dev/stderr
status 2; within 3000; ALLOW=(o.bin); settled
end

begin fifo-by-name-raw-no-writer
# The same FIFO read as a raw frame (--size): it said the frame was short (check --size and --pix-fmt).
mkfifo f; snap
LIMIT=10; run f -s 4x4 -o x.nv12
status 1; within 8000; names f; says 'nothing was written to the FIFO'
# And an empty standard input: an empty file, not a frame size to check.
yc - -s 4x4 -o x.nv12 < /dev/null > "$OUT" 2> "$ERR"
status 1; says '<stdin>: empty file'; settled
end

begin pipe-ending-exactly-at-the-read-limit
# A JPEG padded (APP15) so that its image data runs 100 bytes past 16 MiB + 8 bytes a pixel of the limit, cut
# there: through a pipe the stream ends at the limit — cut short, as the file by name says — it does not go on
# past it (it was refused as "the stream goes on past").
pad_jpeg "$FX/jpeg/jpegsuite/baseline/32x32x8_ycbcr.jpg" $((16 * 1048576 + 8 * 1024 + 100)) exact.jpg
truncate -s $((16 * 1048576 + 8 * 1024)) exact.jpg
snap
yc - -o x.nv12 --max-pixels 1024 < <(cat exact.jpg) > "$OUT" 2> "$ERR"
status 1; says 'cut short'
run exact.jpg -o x.nv12 --max-pixels 1024
status 1; says 'cut short'; settled
end

# The same for a --files-from list: its read waited on a FIFO no writer opened without end or a word, in convert,
# report and dry runs alike.
for cmd in convert report dry-run; do
  begin "files-from-fifo-no-writer-$cmd"
  mkfifo list; snap
  case $cmd in
    convert) args=(convert --files-from list -o o/) ;;
    report) args=(report --files-from list) ;;
    dry-run) args=(convert --files-from list -o o/ -n) ;;
  esac
  LIMIT=10; run "${args[@]}"
  status 1; (( ELAPSED_MS >= 4500 )) || bad "gave up after ${ELAPSED_MS} ms: no wait for a writer"; within 8000
  names list; says 'no writer opened the FIFO within 5 s'; settled
  end
done

# An empty list through a pipe or a FIFO whose writer came and went is an empty list, as from a file: nothing to
# do, exit 0 (after the fix above it was "nothing was written to the FIFO", exit 1, for `<(find …)` that found none).
begin files-from-empty-pipe
mkfifo list; snap
run convert --files-from <(true) -o o/
status 0
( sleep 0.3; timeout 5 sh -c ': > list' ) & LIMIT=10; run convert --files-from list -o o/
status 0; within 3000; wait
settled
end

# A writer that opened the list and is slow to write (a `find` over a large tree) is waited for however long it
# takes: it failed after 5 s as "no writer" once the first wait looked for data rather than for a writer.
begin files-from-slow-writer
cp "$PNG" a.png; snap
LIMIT=20; run convert --files-from <(sleep 6; echo a.png) -o o/ -q
status 0; ALLOW=(o o/a.nv12); settled
end

for dev in zero urandom; do
  begin "dev-$dev-by-name"
  snap
  LIMIT=10; memwrap; run /dev/$dev -o x.nv12
  status 1; within 5000; names /dev/$dev; rss_below 256; settled
  end

  begin "dev-$dev-stdin"
  snap
  LIMIT=10; memwrap; yc - -o x.nv12 < /dev/$dev > "$OUT" 2> "$ERR"
  status 1; within 5000; says 'standard input|stdin|-:'; rss_below 256; settled
  end

  begin "dev-$dev-symlink-in-folder"
  mkdir in; cp "$JPG" in/a.jpg; ln -s /dev/$dev in/z.jpg; snap
  LIMIT=10; memwrap; run convert in/ -o o/  # skipped with a message, as the FIFO above: 0 or 1
  status done; within 5000; names z.jpg; rss_below 256; ALLOW=(o o/a.nv12); settled
  same o/a.nv12 "$(ref "$JPG" nv12)"
  end
done

begin files-from-dev-zero
snap
LIMIT=10; memwrap; run convert --files-from /dev/zero -o o/
status 1; within 5000; names /dev/zero; rss_below 512; settled
end

begin output-dev-full
cp "$JPG" a.jpg; snap
run a.jpg -o /dev/full --force
status 1; names a.jpg; settled
[ -c /dev/full ] || bad "/dev/full is no longer a device"
end

begin output-dev-full-png
cp "$JPG" a.jpg; snap
run a.jpg -o /dev/full --format png --force
status 1; names a.jpg; says 'space'; settled
[ -c /dev/full ] || bad "/dev/full is no longer a device"
end

begin report-file-dev-full-said-in-the-summary
# The summary, the one line a CI log shows, said "0 failed" before the report failed (exit 1): the report is
# finished first, and the summary says it failed.
mkdir in; cp "$JPG" in/a.jpg; cp "$PNG" in/b.png; snap
run in -o out/ --report html --report-file /dev/full
status 1; names /dev/full; says 'space'; says '2 converted, 0 skipped \(already there\), 0 failed; the report failed'
same out/a.nv12 "$(ref in/a.jpg nv12)"; same out/b.nv12 "$(ref in/b.png nv12)"
ALLOW=(out out/a.nv12 out/b.nv12); settled
[ -c /dev/full ] || bad "/dev/full is no longer a device"
end

begin raw-dev-zero
snap
LIMIT=10; memwrap; run /dev/zero --size 16x16 --pix-fmt nv12 -o x.png
status 1; within 1000; names /dev/zero; rss_below 64; settled
end

# 10. Pathological JPEG structure: bounded time.
begin jpeg-100k-app1
cp "$CRAFT/app1.jpg" a.jpg; snap
run a.jpg -o x.nv12
status done; within 2000; ALLOW=(x.nv12); settled
(( RC != 0 )) || same x.nv12 "$(ref "$FX/jpeg/jpegsuite/baseline/32x32x8_ycbcr.jpg" nv12)"  # APP1s change no pixel
end

begin jpeg-10k-scans
cp "$CRAFT/scans.jpg" s.jpg; snap
run s.jpg -o x.nv12
status 1; within 2000; names s.jpg; says scan; settled
end
scans_msg=$(cat "$ERR")

begin jpeg-10k-scans-max-scans
cp "$CRAFT/scans.jpg" s.jpg; snap
run s.jpg -o x.nv12 --max-scans 20000
if (( RC == 0 )); then  # the repeated scan rewrites the same coefficients: the original's pixels
  status 0; ALLOW=(x.nv12); settled
  same x.nv12 "$(ref "$FX/jpeg/jpegsuite/progressive_huffman/32x32x8_ycbcr.jpg" nv12)"
else
  status 1; settled
  [ "$(cat "$ERR")" != "$scans_msg" ] || bad "--max-scans 20000 changed nothing: $(errline)"
fi
end

begin progressive-to-a-pipe-checked-from-the-header
# A stream output holds the chroma planes until the luma plane has gone out (16 MiB here); a progressive JPEG
# reads every scan in before its first row, so they were checked only after its 64 MiB of coefficients were
# filled (an 8000x6000 4:4:4 one: 1.1 s, 287 MiB, then refused). Now counted from the header, first.
cp "$CRAFT/prog33mp.jpg" p.jpg; snap
yc p.jpg -o - --max-memory 70M > /dev/null 2> "$ERR"
status 1; within 1000; says 'p.jpg: the progressive JPEG, beside holding the chroma planes until the luma plane has gone out \(an output written in order: a pipe, a device or standard output\), needs 80 MiB held whole with what is held already, above the limit of 70 MiB for this file'
# With an alpha plane held too, the sentence is longer than the 256 bytes a message had: it was cut ("for this fi").
yc p.jpg -o - --max-memory 70M --alpha keep > /dev/null 2> "$ERR"
status 1; says 'chroma and alpha planes .* needs 112 MiB held whole with what is held already, above the limit of 70 MiB for this file \(--max-memory\)'
settled
end

begin jpeg-scans-of-four-components
# An arithmetic-coded CMYK JPEG of 2000x2000 whose scans carry no data (the decoder takes zeros after a marker):
# one scan of one component, then 199 of all four — within 500 scans counted as scans, but 797 planes' work
# (a 4 KB file of 249 such scans at 5790x5790 took 26 s and exited 0). Each scan counts once per component.
python3 - <<'PY'
import struct
W = H = 2000
def seg(m, body): return b'\xff' + bytes([m]) + struct.pack('>H', len(body) + 2) + body
def sos(comps): return seg(0xda, bytes([len(comps)]) + b''.join(bytes([c, 0]) for c in comps) + b'\x00\x3f\x00')
out = b'\xff\xd8' + seg(0xee, b'Adobe' + struct.pack('>HHHB', 100, 0, 0, 0)) + seg(0xdb, b'\x00' + bytes([1] * 64))
out += seg(0xc9, struct.pack('>BHHB', 8, H, W, 4) + b''.join(bytes([c, 0x11, 0]) for c in (1, 2, 3, 4)))
out += sos([1]) + sos([1, 2, 3, 4]) * 199 + b'\xff\xd9'
open('bomb.jpg', 'wb').write(out)
PY
snap
run bomb.jpg -o x.nv12
status 1; names bomb.jpg; says 'more than 500 scans \(one for each component a scan holds\)'
# A baseline file's one scan of every component counts once: --max-scans 1 takes it (the per-component count
# first refused it).
cp "$JPG" r.jpg; run r.jpg -o r.nv12 --max-scans 1
status 0; ALLOW=(r.jpg r.nv12); settled
end

begin jpeg-scans-times-pixels
# 300 scans of a 33.5 MP picture (86 KB): within --max-scans 500, but as much work as 600 of a 16 MP one (500
# of a 268 MP picture took 18 s): the limit falls with the pixels, to 250 here.
cp "$CRAFT/scans33mp.jpg" s.jpg; snap
run s.jpg -o x.nv12
status 1; within 20000; names s.jpg; says 'more than 250 scans'; settled
end

# 11. Signals at random moments leave no temporary file and no partial output; neither does a file limit.
sigrun() {  # sigrun SIGNAL ARGS...: runs the tool, sends SIGNAL after 0-300 ms; sets RC (128+n if killed), DELAY, ELAPSED_MS
  local r
  r=$(python3 - "$1" "$BIN" "${@:2}" 2> "$ERR" <<'EOF'
import random, signal, subprocess, sys, time
sig = getattr(signal, sys.argv[1])
def defaults():  # the signals a parent may have ignored (a background shell ignores INT and QUIT)
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM):
        signal.signal(s, signal.SIG_DFL)
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, preexec_fn=defaults)
delay = random.uniform(0, 0.3)
time.sleep(delay)
try:
    p.send_signal(sig)
except ProcessLookupError:
    pass
try:
    rc = p.wait(20)
except subprocess.TimeoutExpired:
    p.kill(); p.wait(); rc = "hung"
print(int(delay * 1000), int((time.monotonic() - t0) * 1000), 128 - rc if isinstance(rc, int) and rc < 0 else rc)
EOF
)
  read -r DELAY ELAPSED_MS RC <<< "$r"
}
# early_signals RUNS MAX_DELAY GLOB ARGS...: runs the tool RUNS times, each sent SIGALRM after 0..MAX_DELAY
# seconds; prints in how many runs files matching GLOB (temporary files) were left, removing them each time.
early_signals() {
  python3 - "$BIN" "$@" <<'PY'
import glob, os, random, signal, subprocess, sys, time
binary, runs, delay, pattern, args = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5:]
left = 0
for _ in range(runs):
    p = subprocess.Popen([binary] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         preexec_fn=lambda: signal.signal(signal.SIGALRM, signal.SIG_DFL))
    time.sleep(random.uniform(0, delay))
    try: p.send_signal(signal.SIGALRM)
    except ProcessLookupError: pass
    p.wait()
    t = glob.glob(pattern)
    left += bool(t)
    for f in t: os.unlink(f)
print(left)
PY
}
for sig in QUIT USR1 USR2 ALRM TERM INT KILL; do
  begin "signal-$sig"
  cp "$CRAFT/big.png" big.png; snap
  sigrun "SIG$sig" big.png -o out.png
  if [ "$RC" = hung ]; then bad "hung after SIG$sig at $DELAY ms"
  elif [ "$RC" = 0 ]; then ALLOW=(out.png); settled; same out.png "$(ref "$PWD/big.png" png)"
  else settled; fi
  [ -z "$WHY" ] || WHY="SIG$sig after $DELAY ms (exit $RC): $WHY"
  end
done

begin sigkill-batch-leaves-no-temporary
# SIGKILL (the OOM killer, a CI job's timeout) reaches no handler: an output being written has no name until
# it is complete, so nothing is left but whole outputs.
# Only where outputs are unnamed files (O_TMPFILE): elsewhere (overlayfs before Linux 6.6, say) the tool writes a
# named temporary file, which nothing can remove after SIGKILL (docs/security.md).
if ! python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_TMPFILE | os.O_RDWR))' "$PWD" 2>/dev/null; then
  skipped "no O_TMPFILE on this file system"
else
mkdir in; for i in 1 2 3 4 5 6; do cp "$CRAFT/slow.png" "in/s$i.png"; done; snap
for k in 1 2 3; do
  sigrun SIGKILL in/ -o out/ -j 2 -q
  [ "$RC" = hung ] && bad "hung"
  for f in out/*.nv12; do [ -e "$f" ] && same "$f" "$(ref "$PWD/in/s1.png" nv12)"; done
  ALLOW=(out out/s?.nv12); settled; rm -rf out
done
end
fi

begin update-after-sigkill-records-what-it-made
# An --update run killed (SIGKILL: the OOM killer, a CI job's hard timeout) never wrote its manifest: the next
# run refused every output it had made as "already there and not recorded" (exit 1) until --force. Each output
# is now journaled as it is made; the next run (and its dry run) records the journal's lines first, keeps those
# outputs, converts the rest (exit 0) and removes the journal. A journal a live run holds (flock) is not taken.
mkdir in; for i in $(seq -w 1 24); do cp "$CRAFT/slow.png" "in/s$i.png"; done; snap
"$BIN" in/ -o out/ -u -j 1 -q 2> /dev/null & job=$!
for t in $(seq 500); do [ "$(ls out 2>/dev/null | grep -c nv12)" -ge 3 ] && break; sleep 0.02; done
kill -9 $job 2>/dev/null; wait $job 2>/dev/null
made=$(ls out | grep -c nv12)
[ "$made" -lt 24 ] || bad "the run finished before it could be killed"
ls -a out | grep -q '^\.yuvconv-manifest\.journal\.' || bad "no journal left by the killed run"
run in/ -o out/ -u -n
status 0; says "$made outputs? of an earlier run .* in its journal"; says "$((24 - made)) to convert, 0 to replace, $made to keep"
run in/ -o out/ -u
status 0; says "$made outputs? of an earlier run that ended before writing it recorded from its journal"
says "$((24 - made)) converted, $made kept"
ls -a out | grep -q journal && bad "journal left after the manifest was written"
# A live run's journal (held under flock) is not recorded nor removed.
python3 -c 'import sys; sys.stdout.buffer.write(open(sys.argv[1], "rb").read().split(b"\n")[2] + b"\n")' out/.yuvconv-manifest > out/.yuvconv-manifest.journal.LIVE00
flock out/.yuvconv-manifest.journal.LIVE00 sleep 3 & holder=$!; sleep 0.3
run in/ -o out/ -u
status 0; [ -e out/.yuvconv-manifest.journal.LIVE00 ] || bad "a live run's journal was taken"
wait $holder; rm -f out/.yuvconv-manifest.journal.LIVE00
for f in out/*.nv12; do same "$f" "$(ref "$PWD/in/s01.png" nv12)"; done
ALLOW=(out 'out/*' 'out/.yuvconv-manifest*'); settled
end

begin update-journal-names-and-stopped-write
# Only --update's own journals are recorded and removed: a file of a journal's name that is not one (its first
# line is not the journal's), one of another name pattern, and an input named like one stay as they are (they
# were deleted). And a run whose manifest write a signal stopped keeps its journal: the next run records its
# outputs (they were refused as not recorded). (Opaque inputs: a transparent one's warning would be the run's first
# write, after both files are converted, where a signal cuts nothing short.)
mkdir in out; cp "$PNG" in/a.png; cp "$JPG" in/b.jpg
echo notes > out/.yuvconv-manifest.journal.notes; echo notes > out/.yuvconv-manifest.journal.Ab3dEf
mkdir d; cp "$PNG" d/.yuvconv-manifest.journal.Xy12zQ; snap
run in/ -o out/ -u -q
status 0
run d/.yuvconv-manifest.journal.Xy12zQ -o d/ -u --name 'x.{ext}' -q
status 0
[ "$(cat out/.yuvconv-manifest.journal.notes)" = notes ] || bad "a user's file named like a journal was changed"
[ "$(cat out/.yuvconv-manifest.journal.Ab3dEf)" = notes ] || bad "a user's file of a journal's exact name was changed"
cmp -s d/.yuvconv-manifest.journal.Xy12zQ "$PNG" || bad "an input named like a journal was changed"
# (Named like yuvconv's files, they would be taken for temporary ones left: checked above, then removed.)
rm out/.yuvconv-manifest.journal.notes out/.yuvconv-manifest.journal.Ab3dEf d/.yuvconv-manifest.journal.Xy12zQ
ALLOW=(out/a.nv12 out/b.nv12 out/.yuvconv-manifest out/.yuvconv-manifest.journal.* d/.yuvconv-manifest d/x.nv12 d/.yuvconv-manifest.journal.*)
settled
if strace -qq -o /dev/null true 2>/dev/null; then
  rm -rf o; "$BIN" -q in/ -o o/ -u --matrix bt601 2>/dev/null; cp o/.yuvconv-manifest "$META/manifest.stopped"
  strace -f -qq -o /dev/null -e trace=write -e inject=write:signal=SIGTERM:when=1 "$BIN" -q in/ -o o/ -u 2> "$ERR"; RC=$?
  [ "$RC" = 143 ] || bad "exit $RC (want 143: the signal)"
  cmp -s o/.yuvconv-manifest "$META/manifest.stopped" || bad "the manifest was replaced"
  run in/ -o o/ -u
  status 0; says '2 outputs of an earlier run that ended before writing it recorded from its journal'; says '0 converted, 2 kept'
  ls -a o | grep -q journal && bad "journal left after the manifest was written"
  # A line written just before an output's naming, the run killed before the naming (the first output's link fails
  # and kills: the journal's own link is the first), someone's file then put at that name: the line describes
  # another file, so nothing is recorded and that file is never replaced without --force (it was, as "altered").
  # Likewise a --force replacement killed before its rename: the old file stays someone's.
  rm -rf o2; strace -f -qq -o /dev/null -e inject=linkat:error=EIO:signal=KILL:when=2 "$BIN" in/ -o o2/ -u -j 1 -q 2> /dev/null
  echo USER > o2/a.nv12
  run in/ -o o2/ -u -q
  status 1; says 'a.nv12: is already there and not recorded'; [ "$(cat o2/a.nv12)" = USER ] || bad "someone's file replaced"
  rm -rf o3; mkdir o3; echo USER > o3/a.nv12
  strace -f -qq -o /dev/null -e inject=renameat,renameat2:error=EIO:signal=KILL:when=1 "$BIN" in/ -o o3/ -u --force -j 1 -q \
    2> /dev/null
  run in/ -o o3/ -u -q
  status 1; says 'a.nv12: is already there and not recorded'; [ "$(cat o3/a.nv12)" = USER ] || bad "someone's file replaced after --force was killed"
  rm -rf o2 o3
fi
end

begin nonblocking-stdout-stderr-slow-reader
# Standard output or error on a pipe left non-blocking (O_NONBLOCK belongs to the open pipe, shared with a parent
# that set it: Node's child_process, asyncio) whose reader is slow: the data failed with "Resource temporarily
# unavailable" (exit 1) once the pipe was full, and error lines were dropped without a word. Now both wait.
mkdir bad; for i in $(seq 400); do printf '\377\330\377\340broken' > "bad/j$i.jpg"; done; snap
r=$(python3 - "$BIN" "$JPG" "$(ref "$JPG" nv12)" <<'PY'
import fcntl, hashlib, os, subprocess, sys, time
binary, jpg, ref = sys.argv[1:4]
def slow(args, which):
    r, w = os.pipe()
    fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
    kw = {"stdout": w, "stderr": subprocess.DEVNULL} if which == 1 else {"stderr": w, "stdout": subprocess.DEVNULL}
    p = subprocess.Popen([binary] + args, **kw)
    os.close(w)
    time.sleep(1.0)
    got = b""
    while True:
        d = os.read(r, 4096)
        if not d: break
        got += d
        time.sleep(0.0005)
    return p.wait(), got
rc, data = slow([jpg, "-o", "-", "-q"], 1)
same = data == open(ref, "rb").read()
rc2, err = slow(["convert", "bad/", "-o", "o/", "-j", "2"], 2)
lines = err.decode(errors="replace").splitlines()
print(rc, int(same), rc2, sum(l.startswith("yuvconv: error: ") for l in lines), sum(l.startswith("  failed: ") for l in lines))
PY
)
[ "$r" = "0 1 1 400 400" ] || bad "non-blocking pipes: want '0 1 1 400 400' (data exit, same bytes, batch exit, error lines, failed lines), got '$r'"
ALLOW=(o); settled
end

begin no-proc
# Without /proc (a chroot or sandbox): Swift's CommandLine has no arguments there (it reads
# /proc/self/cmdline; the tool trapped with SIGILL), and outputs get temporary names instead of unnamed files.
if ! unshare -m true 2>/dev/null; then skipped "no mount namespace here"; else
cp "$PNG" a.png; snap
WRAP=(unshare -m sh -c 'mount -t tmpfs none /proc && exec "$@"' noproc); run a.png -o a.nv12 -q
status 0; ALLOW=(a.nv12); settled; same a.nv12 "$(ref "$PNG" nv12)"
end
fi

# slow_y4m NAME: a 4096x4096 Y4M of noise (about 4 s to PNG), made once and linked into the case's folder.
slow_y4m() {
  [ -f "$CRAFT/slow.y4m" ] || (printf 'YUV4MPEG2 W4096 H4096 C420jpeg\nFRAME\n'; head -c 25165824 /dev/urandom) > "$CRAFT/slow.y4m"
  ln "$CRAFT/slow.y4m" "$1"
}
# grown FILE BYTES: waits (10 s at most) until FILE holds BYTES: an output is being written.
grown() { local t; for t in $(seq 1000); do [ "$(stat -c %s "$1")" -ge "$2" ] && return; sleep 0.01; done; }
# noise_png NAME: a 4000x3000 PNG of noise rows (6.7 MB, a 12 MP picture that costs a JPEG encoder its
# work), made once and linked into the case's folder.
noise_png() {
  [ -f "$CRAFT/noise12.png" ] || python3 - "$CRAFT/noise12.png" <<'PY'
import zlib, struct, os, sys
def ch(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
w, h = 4000, 3000; noise = os.urandom(w * 3)
dat = b"".join(b"\0" + noise[(y * 7) % 64:] + noise[:(y * 7) % 64] for y in range(h))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + ch(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                              + ch(b"IDAT", zlib.compress(dat, 1)) + ch(b"IEND", b""))
PY
  ln "$CRAFT/noise12.png" "$1"
}

begin signal-after-cut-no-late-write
# `-o - >> f`: the handler cut f back to where the output began while a writer thread went on writing: bytes
# landed after the cut (4 of 8 runs here). strace delays the handler's final kill by 0.5 s, widening the window
# between the cut and the end of the process, where no write may happen.
if ! strace -qq -o /dev/null true 2>/dev/null; then skipped "no strace (or no ptrace) here"; else
slow_y4m big.y4m; snap
left=0
for k in 1 2 3 4 5 6 7 8; do
  echo prefix > f.out
  strace -f -qq -o /dev/null -e trace=tgkill -e inject=tgkill:delay_enter=500000 "$BIN" big.y4m -o - -f png -q >> f.out 2>/dev/null &
  grown f.out 20000
  kill -INT $(pgrep -f "^$BIN big.y4m") 2>/dev/null; wait
  [ "$(cat f.out)" = prefix ] || left=$((left + 1))
done
[ "$left" = 0 ] || bad "$left of 8 interrupted runs left output bytes after the cut"
rm -f f.out; settled
end
fi

begin signal-as-namespace-init
# As PID 1 of a PID namespace (`docker run` without --init) the kernel drops the default-action signal the
# handler re-raises: the run went on to the end after SIGTERM (exit 0, the whole PNG written after the cut).
# It now ends itself with the signal's status, the output cut back.
if ! unshare -fp true 2>/dev/null; then skipped "no PID namespace here"; else
slow_y4m big.y4m; snap
echo prefix > f.out
timeout -s KILL 30 unshare -fp "$BIN" big.y4m -o - -f png -q >> f.out 2>/dev/null & job=$!
grown f.out 20000
kill -TERM $(pgrep -f "^$BIN big.y4m") 2>/dev/null; wait $job; RC=$?
[ "$RC" = 143 ] || bad "exit $RC (want 143)"
[ "$(cat f.out)" = prefix ] || bad "f.out holds $(stat -c %s f.out) bytes, not the 7 it had"
rm -f f.out; settled
end
fi

begin update-signal-during-manifest-write
# A first signal while the manifest is being written stops that write (docs/cli.md): one during the copy of the
# merged lines was not looked at — the new manifest replaced the old and the run exited 0. strace sends SIGTERM
# at the run's first write(2) (on each thread), the manifest's: the outputs are kept, their inputs' times
# changed (a line rewritten, nothing converted: no journal line written), and outputs are written with pwrite.
if ! strace -qq -o /dev/null true 2>/dev/null; then skipped "no strace (or no ptrace) here"; else
mkdir in; cp "$PNG" in/a.png; cp "$PNGA" in/b.png
"$BIN" -q in/ -o o/ -u 2>/dev/null; touch -d 2020-01-01 in/a.png in/b.png; cp o/.yuvconv-manifest "$META/manifest.before"; snap
strace -f -qq -o /dev/null -e trace=write -e inject=write:signal=SIGTERM:when=1 "$BIN" -q in/ -o o/ -u 2> "$ERR"; RC=$?
[ "$RC" = 143 ] || bad "exit $RC (want 143: the signal)"
cmp -s o/.yuvconv-manifest "$META/manifest.before" || bad "the manifest was replaced"
says 'interrupted: the manifest is not written'
settled
end
fi

begin interrupted-batch-keeps-report-file
# An interrupted batch's report would cover part of the inputs: the report file stays as it was (here an
# earlier run's), and a report on standard output says so in its totals.
mkdir in; for i in $(seq 12); do cp "$CRAFT/slow.png" "in/s$i.png"; done; echo old > r.json; snap
sigrun SIGINT in/ -o out/ -j 2 -q --report json --report-file r.json --force
if [ "$RC" = hung ]; then bad "hung"
elif [ "$RC" = 130 ]; then [ "$(cat r.json)" = old ] || bad "exit 130 and r.json replaced: $(head -c 100 r.json)"
elif [ "$RC" = 0 ]; then tail -n 1 r.json | grep -q '"images": 12' || bad "r.json incomplete after a whole run"
else bad "exit $RC: $(errline)"; fi
ALLOW=(out out/s*.nv12 r.json); settled
end

begin ulimit-f-10k
cp "$JPG" a.jpg; snap
WRAP=(bash -c 'ulimit -f 10 && exec "$@"' ulimit); run a.jpg -o x.nv12
status 1; says 'x\.nv12|large|limit'; settled
end

# Out of descriptors (ulimit -n) in a batch of eight jobs: each failure says so. EMFILE opening the output
# folder was said as "the output folder … was moved or replaced during the run".
begin descriptors-run-out
# -j is held to the jobs the open-file limit holds (with more, files failed for "Too many open files" or not, by
# timing): under ulimit -n 14, -j 8 runs one or two jobs at a time, says so, and converts every file. Under a limit too
# low for one job, each file says why.
mkdir in; for i in $(seq 1 30); do cp "$JPG" in/p$i.jpg; done; snap
WRAP=(bash -c 'ulimit -n 14 && exec "$@"' ulimit); run convert in/ -o out/ -j 8
status 0; says 'warning: the open-file limit \(ulimit -n\) holds at most [12] jobs? at a time, not 8: -j [12]'
[ "$(ls out | wc -l)" = 30 ] || bad "$(ls out | wc -l) of 30 converted"
# Above 8192 the descriptors open were not counted: 8150 left open by a parent under a limit of 8200 failed files.
WRAP=(python3 -c 'import os, resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (8200, max(8200, resource.getrlimit(resource.RLIMIT_NOFILE)[1])))
for _ in range(8150): os.set_inheritable(os.open("/dev/null", os.O_RDONLY), True)
os.execv(sys.argv[1], sys.argv[1:])')
run convert in/ -o out3/ -j 64
status 0; says 'holds at most [0-9]+ jobs? at a time, not 64'
[ "$(ls out3 | wc -l)" = 30 ] || bad "$(ls out3 | wc -l) of 30 converted beside 8150 inherited descriptors"
WRAP=(bash -c 'ulimit -n 5 && exec "$@"' ulimit); run convert in/ -o out2/ -j 8 -q
status 1; says 'too many open files'
! LC_ALL=C grep -qa 'moved or replaced' "$ERR" || bad "says the folder moved: $(LC_ALL=C grep -a -m1 'moved or replaced' "$ERR")"
ALLOW=(out 'out/p*.nv12' out2 'out2/p*.nv12' out3 'out3/p*.nv12'); settled
end

# A manifest out of order is searched in a sorted copy in $TMPDIR; a copy that cannot be written (here over
# ulimit -f, as in a full $TMPDIR) is the temporary folder's problem: it told the user to remove the manifest.
begin update-temporary-copy-fails
cp "$PNG" a.png; run convert a.png -o u/ --update -q
line=$(LC_ALL=C grep -av '^#' u/.yuvconv-manifest | sed -n 2p); rest=${line#*$'\t'}
for i in $(seq 20000 -1 1); do printf 'zz%06d.nv12\t%s\n' "$i" "$rest"; done >> u/.yuvconv-manifest; snap
WRAP=(bash -c 'ulimit -f 256 && exec "$@"' ulimit); run convert a.png -o u/ --update -q
status 1; says 'TMPDIR'
! LC_ALL=C grep -qa 'remove it' "$ERR" || bad "advises removing the manifest: $(errline)"
settled
end

# Standard output open for reading only: refused before any work, --force or not (a batch converted everything,
# then failed on its report; -o - was told to use --force, which could not help).
begin stdout-read-only
mkdir in; cp "$JPG" in/a.jpg; echo kept > ro.txt; snap
yc in/a.jpg -o - -q --force 1<ro.txt 2> "$ERR"
status 2; says 'standard output is open for reading only'
yc convert in/ -o o/ --report json -q 1< /dev/null 2> "$ERR"
status 2; says 'standard output is open for reading only'
yc report in/a.jpg 1<ro.txt 2> "$ERR"
status 2; says 'standard output is open for reading only'
for args in "--help" "--version" "--man" "--completion zsh" "convert in/ -o o/ -n --force"; do
  yc $args 1<ro.txt 2> "$ERR"
  status 2; says 'standard output is open for reading only'
done
settled
end

# The same at the end: the merge of a large manifest through $TMPDIR fails (ulimit -f). Said as $TMPDIR's
# problem, with what it leaves (the new output unrecorded).
begin update-merge-copy-fails
mkdir in; cp "$PNG" in/a.png; run convert in/ -o u/ --update -q
line=$(LC_ALL=C grep -av '^#' u/.yuvconv-manifest | sed -n 2p); rest=${line#*$'\t'}
for i in $(seq 1 20000); do printf 'zz%06d.nv12\t%s\n' "$i" "$rest"; done >> u/.yuvconv-manifest
cp "$PNG" in/b.png; snap
WRAP=(bash -c 'ulimit -f 256 && exec "$@"' ulimit); run convert in/ -o u/ --update -q
status 1; says 'TMPDIR'; says 'journal keeps'; says '0 failed; the manifest failed \(above\)'
[ "$(cat u/.yuvconv-manifest.journal.* 2>/dev/null | grep -vc '^yuvconv-journal')" = 1 ] || bad "no journal of the output left"
rm -f u/.yuvconv-manifest.journal.*
ALLOW=(u/b.nv12); settled
end

# An input --update cannot hash (a FIFO): converted, and said not recorded (it was silent, and the next run
# refused the output as unrecorded with no word why).
begin update-fifo-input-unrecorded
mkfifo p.png; snap
( cat "$PNG" > p.png & ); run convert p.png -o u/ --update
status 0; says 'u/p\.nv12: not recorded in \.yuvconv-manifest: its input is not a regular file'
ALLOW=(u u/p.nv12); settled
end

# 12. Output errors and option conflicts.
begin report-to-dev-full
cp "$JPG" a.jpg; snap
yc report a.jpg > /dev/full 2> "$ERR"
status 1; settled
end

begin sparse-file-read-no-further-than-a-stream
# A JPEG's first marker and 100 GB of holes (nothing on disk) was read byte by byte for minutes (16 TB: hours);
# a PNG's likewise through skipped chunks. A file is read no further than a stream: 16 MiB + 8 bytes a pixel of
# the pixel limit. (The limit lowered, so that the case's own listing hashes 30 MB, not 2.2 GB.) A motion
# photo's video after the JPEG's end marker is never read, so it counts for nothing.
printf '\xff\xd8\xff' > z.jpg; truncate -s 30M z.jpg
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x02\0\0\0\x90\x91\x68\x36\x7f\xff\xff\xffprVt' > z.png
truncate -s 30M z.png; cp "$JPG" m.jpg; truncate -s +30M m.jpg; snap
run z.jpg -o z.nv12 --max-pixels 1000
status 1; within 2000; says 'z.jpg: the file is longer than the pixel limit lets one be'
run z.png -o z.nv12 --max-pixels 1000
status 1; within 2000; says 'z.png: the file is longer than the pixel limit lets one be'
run m.jpg -o m.nv12 --max-pixels 300000
status 0
# The picture's end marker 100 bytes before the limit (APP15 padding), then 5 MB of trailer: the read stops at
# the limit, so the picture converts (a read of whole 256 KiB blocks refused it).
pad_jpeg "$JPG" $((16 * 1048576 + 8 * 273280 - 100)) edge.jpg
head -c 5000000 /dev/zero >> edge.jpg
run edge.jpg -o e.nv12 --max-pixels 273280
status 0; ALLOW=(m.nv12 e.nv12 edge.jpg); settled
end

begin report-single-file-batch-options
# report, like convert, says that -r, -j and --fail-fast do nothing for one file (it said nothing).
cp "$JPG" a.jpg; snap
run report a.jpg -r -j 2 --fail-fast
status 0; says 'warning: --fail-fast, --jobs, --recursive apply to batches \(folders, lists, many inputs\); a single file ignores them'
settled
end

begin report-on-stderr-to-dev-full
# With the data on standard output the report goes to standard error; one that cannot be written there was
# lost with exit 0.
cp "$JPG" a.jpg; snap
yc a.jpg -o - --report json -q > /dev/null 2> /dev/full
status 1
yc a.jpg -o - --report json -q > /dev/null 2>&-
status 1; settled
end

begin alpha-keep-png
cp "$PNGA" a.png; snap
run a.png --alpha keep -o x.png
status 2; says 'alpha|keep'; settled
end

# 13. Names that are not UTF-8 are kept byte for byte.
begin non-utf8-in-folder
mkdir in; cp "$JPG" in/$'caf\xe9.jpg'; snap
run convert in/ -o o/
status 0; ALLOW=(o "o/caf"$'\xe9'".nv12"); settled
same o/$'caf\xe9.nv12' "$(ref "$JPG" nv12)"
end

begin non-utf8-argument
cp "$PNG" $'bad\xff.png'; snap
run $'bad\xff.png' -o x.nv12
status 0; ALLOW=(x.nv12); settled
same x.nv12 "$(ref "$PNG" nv12)"
end

begin non-utf8-output
cp "$PNG" a.png; snap
run a.png -o $'out\xff.nv12'
status 0; ALLOW=("out"$'\xff'".nv12"); settled
same $'out\xff.nv12' "$(ref "$PNG" nv12)"
end

# 14. Long names, unwritable folders, quiet and closed streams.
begin name-250-bytes
long=$(printf 'a%.0s' {1..246}).nv12
cp "$PNG" a.png; snap
run a.png -o "$long"
status 0; ALLOW=("$long"); settled
same "$long" "$(ref "$PNG" nv12)"
end

begin unwritable-folder
cp "$PNG" a.png; mkdir ro
if [ "$(id -u)" != 0 ]; then chmod 555 ro; ok=1
elif mount -t tmpfs -o ro,size=64k tmpfs ro 2>/dev/null; then MOUNTS+=("$D/ro"); ok=1
else ok=0; fi
if (( ok )); then
  snap
  run a.png -o ro/x.nv12
  status 1; names x.nv12; settled
  end
  if [ "$(id -u)" = 0 ]; then umount "$D/ro" && unset 'MOUNTS[-1]'; fi
else skipped "root without a read-only mount"; fi

begin quiet-stdin
cp "$JPG" in.jpg; snap
yc - -o x.jpg -q < in.jpg > "$OUT" 2> "$ERR"
status 0; quiet; ALLOW=(x.jpg); settled
same x.jpg "$(ref "$JPG" jpg)"
end

begin stdin-closed
snap
yc - -o x.nv12 <&- > "$OUT" 2> "$ERR"
status fail; says 'closed|standard input|stdin'
LC_ALL=C grep -qai empty "$ERR" && bad "says empty: $(errline)"
settled
end

# 15. Folders, devices, shards and streams that reach one file by another name.
begin output-folder-root
# `-o /` is the root folder, not the current one (it wrote ./NAME, replacing it with --force).
stem=hostile-root-$$
cp "$PNG" "$stem.png"; echo precious > "$stem.nv12"
if [ -w / ] && [ ! -e "/$stem.nv12" ]; then
  snap
  run "$stem.png" -o / --force -q
  status 0; settled
  same "/$stem.nv12" "$(ref "$PNG" nv12)"; rm -f "/$stem.nv12"
  end
else skipped "/ is not writable here"; fi

begin output-block-device
cp "$PNG" a.png
if mknod blk b 7 250 2>/dev/null; then
  snap
  run a.png -o blk
  status 1; names blk; says 'block device'; says 'force'; settled
  end
else skipped "cannot make a device node here"; fi

for k in 1 2; do
  # A clash between items of different shards: each shard is checked as the whole batch.
  begin "shard-$k-of-2-clash"
  mkdir d; cp "$JPG" d/a.jpg; cp "$JPG2" d/b.jpg; cp "$PNG" d/b.png; snap
  run convert d/ -o o/ --shard $k/2 --force
  status 2; says 'would both write'; settled
  end
done

begin report-file-is-redirected-stdout
cp "$PNG" a.png; : > out.bin; snap
yc a.png -o - --report json --report-file out.bin --force > out.bin 2> "$ERR"
status 2; says 'same file'; settled
end

begin output-fd-is-report-stdout
cp "$PNG" a.png; : > out.bin; snap
yc a.png -o /dev/fd/5 --report json > out.bin 5>&1 2> "$ERR"
status 2; says 'same file'; settled
end

begin output-link-onto-other-output
# o/a.nv12 is a link to o/b.nv12: a.jpg's output would land on b.png's.
cp "$JPG" a.jpg; cp "$PNG" b.png; mkdir o; ln -s b.nv12 o/a.nv12; snap
run convert a.jpg b.png -o o/ -j 1 --force
status 1; names o/a.nv12; says 'same file'; settled
end

for kind in sCAL pCAL; do
  begin "png-huge-$kind"
  cp "$CRAFT/huge-$kind.png" a.png; snap
  memwrap; run a.png -o o.nv12
  status fail; names a.png; rss_below 64; within 3000; settled
  end
done

# A short input costs what it holds, whatever its header claims, on the outputs that hold a picture: JPEG
# (the whole picture, to encode) and a stream (the chroma until the luma has gone out).
# (The JPEG output's picture is under --max-memory, which refuses this one from its header: raised here, so that
# what is held is what arrives.)
for o in x.jpg:jpeg -:nv12; do
  begin "claims-16k-to-${o#*:}"
  cp "$CRAFT/claims-16k.png" a.png; snap
  memwrap; yc a.png -o "${o%:*}" -f "${o#*:}" --max-memory 1G > "$OUT" 2> "$ERR"
  status 1; names a.png; says 'truncated|ends before'; rss_below 64; settled
  end
done
begin claims-16k-to-jpeg-under-the-default-limit
cp "$CRAFT/claims-16k.png" a.png; snap
memwrap; run a.png -o x.jpg
status 1; names a.png; says 'held whole, above the limit of 256 MiB for this file \(--max-memory\)'; rss_below 32; settled
end

# What a stream output holds (the chroma, with alpha the A plane too, until the luma has gone out) is a picture
# held whole in part: under --max-memory like the decoder's (a 522 KB PNG of 16384x16384 grey and alpha held
# 402 MB for a pipe whatever --max-memory said). 2 MiB of chroma against 1 MiB; on a file nothing is held.
for o in -:pipe /dev/null:device o.nv12:file; do
  begin "stream-held-planes-under-max-memory-${o#*:}"
  cp "$CRAFT/zeros2k.png" a.png; snap
  if [ "${o#*:}" = pipe ]; then yc a.png -o - --max-memory 1M > >(cat > /dev/null) 2> "$ERR"
  else run a.png -o "${o%:*}" --max-memory 1M; fi
  if [ "${o#*:}" = file ]; then status 0; ALLOW=(o.nv12)
  else status 1; names a.png; says 'chroma planes until the luma plane has gone out .* above the limit of 1 MiB for this file \(--max-memory\)'; fi
  settled
  end
done

# The same for a YUV input (raw or Y4M), whose frame is held whole: the output's planes after its luma, held for a
# stream beside it, were not counted (a 48 MP Y4M to 10-bit on a pipe held 46 MiB past the limit). A 2048x1024
# frame (3 MiB) and its 10-bit chroma (2 MiB) against 4 MiB.
for o in -:pipe /dev/null:device o.yuv420p10le:file; do
  for i in raw y4m; do
    begin "yuv-input-stream-held-planes-under-max-memory-${o#*:}-$i"
    if [ $i = raw ]; then head -c $((2048 * 1024 * 3 / 2)) /dev/zero > a.yuv420p; in=(a.yuv420p --size 2048x1024)
    else { printf 'YUV4MPEG2 W2048 H1024 F25:1 C420jpeg\nFRAME\n'; head -c $((2048 * 1024 * 3 / 2)) /dev/zero; } > a.y4m; in=(a.y4m); fi
    snap
    if [ "${o#*:}" = pipe ]; then yc "${in[@]}" -o - -f yuv420p10le --max-memory 4M > >(cat > /dev/null) 2> "$ERR"
    else run "${in[@]}" -o "${o%:*}" -f yuv420p10le --max-memory 4M; fi
    if [ "${o#*:}" = file ]; then status 0; ALLOW=(o.yuv420p10le)
    else status 1; names "${in[0]}"; says 'chroma planes until the luma plane has gone out .* above the limit of 4 MiB for this file \(--max-memory\)'; fi
    settled
    end
  done
done
# ... and before the frame is read, from the header (or --size): the frame was read, a pipe's whole frame taken, to
# be refused. Here the frame is cut short after 100 bytes, which the run would have said had it read it first.
for o in -:pipe /dev/null:device; do
  for i in raw y4m; do
    begin "yuv-input-stream-held-planes-refused-before-the-frame-${o#*:}-$i"
    if [ $i = raw ]; then in=(- --size 2048x1024); head -c 100 /dev/zero > a.in
    else in=(-); { printf 'YUV4MPEG2 W2048 H1024 F25:1 C420jpeg\nFRAME\n'; head -c 100 /dev/zero; } > a.in; fi
    snap
    if [ "${o#*:}" = pipe ]; then yc "${in[@]}" -o - -f yuv420p10le --max-memory 4M < a.in > >(cat > /dev/null) 2> "$ERR"
    else yc "${in[@]}" -o "${o%:*}" -f yuv420p10le --max-memory 4M < a.in > "$OUT" 2> "$ERR"; fi
    status 1; names '<stdin>'; says 'chroma planes until the luma plane has gone out .* above the limit of 4 MiB for this file \(--max-memory\)'
    settled
    end
  done
done

begin yuv-input-stream-held-planes-in-the-dry-run
# The dry run makes the same check before the frame: it said "convert" where the run refused.
head -c $((2048 * 1024 * 3 / 2)) /dev/zero > a.yuv420p; snap
run a.yuv420p --size 2048x1024 -o - -f yuv420p10le --max-memory 4M -n
status 1; grep -q '^refuse .*chroma planes until the luma plane has gone out' "$OUT" || bad "the dry run does not refuse: $(head -c 200 "$OUT")"
settled
end

begin yuv-input-pipe-frame-and-stream-planes-under-the-default-limit
# A 108 MP frame from a pipe (162 MB) to 10-bit on a pipe holds 97 MB of chroma beside it: counted in the budget
# of a file the frame's size, before the read as after it (the check before the read used the stream's 256 MiB
# and refused what the check after it admits).
snap
yc - --size 12000x9000 -o - -f yuv420p10le < <(head -c 162000000 /dev/zero) > /dev/null 2> "$ERR"
status 0; settled
end

begin jpeg-icc-empty-piece
cp "$CRAFT/icc-empty-piece.jpg" a.jpg; snap
run a.jpg -o o.nv12
status 0; ALLOW=(o.nv12); settled
LC_ALL=C grep -qai 'incomplete' "$ERR" && bad "warns: $(errline)"
same o.nv12 "$(ref "$here/Fixtures/colour/kodim23-p3.jpg" nv12)"
end

# 16. --update, descriptors and links: routes around the checks above.
begin update-unrecorded-file
# A plain file of the folder at an output's name, no manifest entry: not known to be yuvconv's, so never
# overwritten without --force (it was: someone's file replaced by the first --update run); listed as failed.
# With --force: converted again and recorded.
cp "$PNG" a.png; mkdir u; echo stale > u/a.nv12; snap
run convert a.png -o u/ --update -q
status 1; says "u/a.nv12: is already there and not recorded in the folder's .yuvconv-manifest"; settled
run convert a.png -o u/ --update -q --force
status 0; ALLOW=(u/a.nv12 u/.yuvconv-manifest); settled
same u/a.nv12 "$(ref "$PNG" nv12)"
end

# Two --update runs into one folder finishing together each merged into the manifest they read, and the later
# replace dropped the other's entries. A run now holds an exclusive flock on the folder from that read to the
# replace: shown by a holder (flock(1)) that keeps it for 1.5 s — the run waits for it, then records its entry.
begin update-waits-for-folder-lock
cp "$PNG" a.png; mkdir u
if command -v flock >/dev/null; then
  flock u sleep 1.5 & holder=$!
  for _ in $(seq 100); do flock -n u true || break; sleep 0.01; done   # the holder has it
  run convert a.png -o u/ --update -q
  wait $holder
  status 0; (( ELAPSED_MS >= 1000 )) || bad "did not wait for the folder's lock (${ELAPSED_MS} ms)"
  says 'waiting for another yuvconv run'
  grep -q 'a\.nv12' u/.yuvconv-manifest || bad "no manifest entry"
  same u/a.nv12 "$(ref "$PNG" nv12)"
  # The lock file a drop folder's run makes is --update's, like the manifest: no output may take its name (one
  # put there by rename would leave a holder locking the old file, and let the next run in beside it).
  run convert a.png -o u/ --update -q -f nv12 --name .yuvconv-manifest.lock
  status 2; says "is the name of --update's manifest's lock file"
  end
else skipped "no flock(1)"; fi

begin update-link-out-of-folder
cp "$PNG" a.png; echo 'my notes' > keep.txt; mkdir u; ln -s ../keep.txt u/a.nv12; snap
run convert a.png -o u/ --update
status 1; names u/a.nv12; ALLOW=(u/.yuvconv-manifest); settled
end

begin update-block-device
cp "$PNG" a.png; mkdir u
if mknod u/a.nv12 b 7 251 2>/dev/null; then
  snap
  run convert a.png -o u/ --update
  status 1; names u/a.nv12; ALLOW=(u/.yuvconv-manifest); settled
  end
else skipped "cannot make a device node here"; fi

begin folder-link-not-made-yet
# o/b is a link to o/a, which the batch makes: d/a/p and d/b/p would land on one file.
mkdir -p d/a d/b o; cp "$PNG" d/a/p.png; cp "$PNGA" d/b/p.png; ln -s a o/b; snap
run convert d/ -r -o o/ --name '{dir}/{stem}.nv12' --force
status 1; says 'same file'; settled
end

begin outputs-linked-to-one-device
cp "$PNG" a.png; cp "$PNGA" b.png; mkdir o; ln -s /dev/null o/a.nv12; ln -s /dev/null o/b.nv12; snap
run convert a.png b.png -o o/ --force -q
status 0; settled
end

begin descriptor-on-file-with-data
cp "$PNG" a.png; head -c 5000 /dev/urandom > old.bin; snap
yc a.png -o /dev/fd/3 3<>old.bin > "$OUT" 2> "$ERR"
status fail; says 'data where writing would start'; settled
end

begin descriptor-appending
cp "$PNG" a.png; head -c 5000 /dev/urandom > old.bin; snap
yc a.png -o - -q >> old.bin 2> "$ERR"
status 0; ALLOW=(old.bin); settled
[ "$(stat -c %s old.bin)" = $((5000 + $(stat -c %s "$(ref "$PNG" nv12)"))) ] || bad "old.bin is not its 5000 bytes and the frame"
end

begin batch-report-on-stdout-is-output
cp "$PNG" a.png; cp "$PNGA" b.png; mkdir o; : > o/a.nv12; snap
yc convert a.png b.png -o o/ --report json --force > o/a.nv12 2> "$ERR"
status 2; says 'report on standard output'; settled
end

begin output-is-stderr-file
# The output replaces the file standard error is open on: its messages would go to the replaced file. Refused, and
# the refusal is not written there either: the file's bytes are what it protects (exit 2 alone says it).
cp "$PNG" a.png; echo old > x.nv12; snap
yc a.png -o x.nv12 --force 2>> x.nv12 > "$OUT"
status 2; settled
[ "$(cat x.nv12)" = old ] || bad "x.nv12 changed: $(head -c 120 x.nv12)"
end

begin y4m-in-batch
# A Y4M stream in a batch: not "raw YUV needs --size" (which it was said to need), but what to do.
cp "$PNG" a.png; cp "$(ref "$PNG" y4m)" m.y4m; snap
run convert a.png m.y4m -o o/ -q
status 1; names m.y4m; says 'converts on its own'; ALLOW=(o o/a.nv12); settled
end

# 17. The third round: a recorded name whose folder became a link, disks and files behind the standard
# streams, the manifest and report files that a stream is open on, messages inside the data.
begin update-recorded-name-through-folder-link
mkdir -p src/sub important; cp "$PNG" src/sub/a.png
yc src/ -r -o u/ --name '{dir}/{stem}.{ext}' -u -q > /dev/null 2>&1
echo precious > important/a.nv12; rm -rf u/sub; ln -s ../important u/sub; snap
run src/ -r -o u/ --name '{dir}/{stem}.{ext}' -u
status 1; names u/sub/a.nv12; ALLOW=(u/.yuvconv-manifest); settled
end

begin stdout-block-device
cp "$PNG" a.png
if mknod blk b 7 253 2>/dev/null; then
  snap
  yc a.png -o - -q > blk 2> "$ERR"
  status 2; says 'block device'; settled
  end
else skipped "cannot make a device node here"; fi

begin report-stdout-over-file-data
cp "$PNG" a.png; seq 1 2000 > rep.txt; snap
yc report a.png --report csv 1<> rep.txt 2> "$ERR"
status 2; says 'data where writing would start'; settled
end

begin manifest-is-stderr-file
cp "$PNG" a.png; yc a.png -o o/ -u -q > /dev/null 2>&1; snap
yc a.png -o o/ -u --range limited 2>> o/.yuvconv-manifest > "$OUT"
status 2; ALLOW=(o/.yuvconv-manifest); settled
end

begin raw-input-output-is-stderr-file
cp "$(ref "$PNG" y4m)" in.y4m; : > y.nv12; snap
yc in.y4m -o y.nv12 --force 2>> y.nv12 > "$OUT"
status 2; ALLOW=(y.nv12); settled
end

begin report-file-is-stderr-file
cp "$PNG" a.png; : > r.json; snap
yc report a.png --report json --report-file r.json --force 2>> r.json > "$OUT"
status 2; ALLOW=(r.json); settled
end

begin data-and-stderr-one-file
cp "$PNG" a.png; snap
yc a.png -o - > out.nv12 2>&1
RC=$RC; ERR=out.nv12; status 2; says 'mixed into'; ALLOW=(out.nv12); settled
end

begin data-and-stderr-one-pipe-quiet
# With -q nothing but a warning goes to standard error: sharing standard output's pipe is allowed.
cp "$PNG" a.png; snap
yc -q a.png -o - 2>&1 | cat > out.nv12; RC=${PIPESTATUS[0]}
status 0; ALLOW=(out.nv12); settled
same out.nv12 "$(ref "$PNG" nv12)"
end

begin update-dry-run-says-refuse
cp "$PNG" a.png; mkdir o; echo mine > keep; ln -s ../keep o/a.nv12; snap
run a.png -o o/ -u -n
status 1; LC_ALL=C grep -q '^refuse a.png' "$OUT" || bad "the dry run does not refuse a.png: $(head -c 160 "$OUT")"; settled
end

begin name-dot-component
cp "$PNG" a.png; snap
run a.png "$PNGA" -o o/ --name '{stem}/.'
status 2; says "no '\.\.' or '\.'"; settled
end

# 18. The fourth round: what the report tells a reader, and options that would do nothing.
begin report-padded-file-no-ffmpeg-args
cp "$PNGA" a.png; snap
run a.png -f nv12 --align 64 -o x.nv12 --report json
status 0; ALLOW=(x.nv12); settled
LC_ALL=C grep -q '"ffmpeg_rawvideo_input": ""' "$OUT" || bad "a padded file's ffmpeg arguments are not empty: $(grep -o '"ffmpeg_rawvideo_input": "[^"]*' "$OUT")"
end

begin y4m-left-sited-to-jpeg-warns
printf 'YUV4MPEG2 W8 H6 C420mpeg2 XCOLORRANGE=FULL\nFRAME\n' > t.y4m; head -c 72 /dev/zero | tr '\0' '\200' >> t.y4m; snap
run t.y4m -o z.jpg
status 0; says 'left-sited.*centre-sited'; ALLOW=(z.jpg); settled
end

begin y4m-10bit-siting-from-chroma-loc
# A 10-bit Y4M (C420p10) has no siting tag. yuvconv's own left-sited one was read back as centre-sited and
# --chroma-loc left refused ("ignored"), so it came back as C420jpeg: --chroma-loc says where its chroma sits,
# as for a raw frame. A tagged 8-bit Y4M still keeps its tag and ignores a contradicting --chroma-loc.
printf 'YUV4MPEG2 W2 H2 F25:1 C420p10 XCOLORRANGE=FULL\nFRAME\n' > t.y4m; printf '\0\2\0\2\0\2\0\2\0\2\0\2' >> t.y4m; snap
run t.y4m -o l.y4m --depth 8 --chroma-loc left -q
status 0; quiet; head -1 l.y4m | grep -q ' C420mpeg2 ' || bad "no C420mpeg2: $(head -1 l.y4m | head -c 80)"
run l.y4m -o c.y4m --chroma-loc center -q
status 0; says 'left-sited \(C420mpeg2\).*--chroma-loc center is ignored'
head -1 c.y4m | grep -q ' C420mpeg2 ' || bad "the tag was not kept: $(head -1 c.y4m | head -c 80)"
ALLOW=(l.y4m c.y4m); settled
end

begin y4m-ratio-ffmpeg-cannot-read
# F and A values of 2^31 or more were copied into the output's header: FFmpeg reads them as signed 32-bit
# numbers (ffprobe: N/A, or 25/1). They are unreadable, written as 1:1 with a warning.
printf 'YUV4MPEG2 W2 H2 F2147483648:1 A1:4294967295 C420jpeg\nFRAME\n\x80\x80\x80\x80\x80\x80' > r.y4m; snap
run r.y4m -o o.y4m
status 0; says 'F2147483648:1 A1:4294967295 cannot be read'
head -1 o.y4m | grep -q ' F1:1 .*A1:1 ' || bad "header: $(head -1 o.y4m | head -c 80)"
ALLOW=(o.y4m); settled
end

begin y4m-more-frames-warns
# The frames after the first (or any bytes after it) were dropped without a word; a line end after the one
# frame is nothing.
printf 'YUV4MPEG2 W2 H2 F25:1 C420jpeg\nFRAME\n\x10\x10\x10\x10\x80\x80FRAME\n\xeb\xeb\xeb\xeb\x80\x80' > m.y4m
printf 'YUV4MPEG2 W2 H2 F25:1 C420jpeg\nFRAME\n\x10\x10\x10\x10\x80\x80\n' > one.y4m; snap
run m.y4m -o o.y4m
status 0; says 'goes on after its first frame'
run one.y4m -o p.y4m -q
status 0; quiet
# Line ends after the frame, however many, are nothing too: 16 were let by, 17 refused as "followed by ''" with
# the frame called the wrong size. Past them, the next FRAME line, or what is there instead, is read as it is.
{ printf 'YUV4MPEG2 W2 H2 F25:1 C420jpeg\nFRAME\n\x10\x10\x10\x10\x80\x80'; head -c 5000 /dev/zero | tr '\0' '\n'; } > nl.y4m
{ cat nl.y4m; printf 'FRAME\n\x10\x10\x10\x10\x80\x80'; } > nlf.y4m
{ cat nl.y4m; printf 'junk after\n'; } > nlj.y4m; snap
run nl.y4m -o q.y4m -q
status 0; quiet
run nlf.y4m -o r.y4m
status 0; says 'goes on after its first frame'
run nlj.y4m -o s.y4m
status 1; says "nlj\.y4m: the Y4M frame is followed by 'junk after\\\\x0A', not the next frame's header"
ALLOW=(o.y4m p.y4m q.y4m r.y4m); settled
end

begin y4m-frame-followed-by-samples
# A 10-bit frame under an 8-bit header (its C420p10 inside an unknown token, which FFmpeg reads and the format
# ignores) was converted as the first half of its bytes, with only a warning that the file goes on. What
# follows a frame must be the next FRAME line; more frames, and a line end, still convert.
printf 'YUV4MPEG2 W2 H2 Z_C420p10\nFRAME\n\x10\x00\x10\x00\x10\x00\x10\x00\x00\x02\x00\x02' > z.y4m
printf 'YUV4MPEG2 W2 H2 C420jpeg\nFRAME\n\x10\x10\x10\x10\x80\x80FRAME Ixyz\n\xeb\xeb\xeb\xeb\x80\x80' > p.y4m; snap
run z.y4m -o z.png
status 1; says "z\.y4m: the Y4M frame is followed by '.*not the next frame's header.*2x2 8-bit 4:2:0"
run p.y4m -o p.png
status 0; says 'goes on after its first frame'
# CR LF line ends, which the first frame's header may have too.
printf 'YUV4MPEG2 W2 H2 C420jpeg\r\nFRAME\r\n\x10\x10\x10\x10\x80\x80FRAME\r\n\x10\x10\x10\x10\x80\x80' > c.y4m
run c.y4m -o c.png
status 0; says 'goes on after its first frame'; ALLOW=(p.png c.y4m c.png); settled
end

begin yuv-input-ignores-sharp-chroma
# YUV input ignores --chroma-filter (a warning), but sharp chroma's conflicts were usage errors for it: to a
# 10-bit layout, with --depth 10 or with --chroma-loc left (which describes a raw frame's chroma).
printf 'YUV4MPEG2 W2 H2 C420jpeg\nFRAME\n\x10\x10\x10\x10\x80\x80' > s.y4m
head -c 6 /dev/zero | tr '\0' '\200' > f.nv12; snap
run s.y4m -o s.p010 --chroma-filter sharp
status 0; says 'chroma-filter.*ignored'
run s.y4m -o t.y4m --depth 10 --chroma-filter sharp
status 0; says 'chroma-filter.*ignored'
run f.nv12 -s 2x2 -o u.y4m --chroma-loc left --chroma-filter sharp
status 0; says 'chroma-filter.*ignored'; ALLOW=(s.p010 t.y4m u.y4m); settled
end

begin jpeg-sequential-scan-header-zeroes
# A baseline JPEG whose scan header's Ss/Se/Ah/Al bytes are 0/0/0/0, not 0/63/0/0 (some encoders write them
# so; libjpeg ignores them there, as djpeg, Pillow and ffmpeg do) was refused as damaged, while
# --allow-truncated gave exactly the untouched file's pixels. It converts, with a warning, to those pixels.
python3 -c "
import sys; d=bytearray(open(sys.argv[1],'rb').read()); i=d.find(b'\\xff\\xda'); L=d[i+2]<<8|d[i+3]
d[i+2+L-3:i+2+L]=b'\\0\\0\\0'; open('zero.jpg','wb').write(d)" "$JPG"
yc "$JPG" -o ref.nv12 -q; snap
run zero.jpg -o z.nv12
status 0; says 'scan header has spectral or approximation values.*ignored'; cmp -s z.nv12 ref.nv12 || bad "pixels differ from the untouched file's"
ALLOW=(z.nv12); settled
end

begin jpeg-after-its-end-marker-said
# What follows a JPEG's end marker was dropped without a word: a second picture (MPO, two JPEGs back to back,
# with a zero between them as some writers leave) or other data (a motion photo's video). Padding is nothing,
# and a stream is not read past the picture.
cat "$JPG" > mpo.jpg; printf '\0' >> mpo.jpg; cat "$JPG" >> mpo.jpg
cp "$JPG" video.jpg; head -c 5000 /dev/urandom >> video.jpg
cp "$JPG" pad.jpg; printf '\0\0\0\0' >> pad.jpg
# Padding is looked for in the first 4 KiB: 4096 zero bytes, or a stray second end marker, are nothing; a JPEG
# after 4000 zero bytes is still another picture; a marker after the end marker is said as such.
cp "$JPG" pad4k.jpg; head -c 4096 /dev/zero >> pad4k.jpg
cp "$JPG" eoi2.jpg; printf '\377\331' >> eoi2.jpg
cp "$JPG" far.jpg; head -c 4000 /dev/zero >> far.jpg; cat "$JPG" >> far.jpg
# Past 4 KiB of padding what follows is not looked at: not called a video (it was, for a JPEG after 5000 zeros).
cp "$JPG" farther.jpg; head -c 5000 /dev/zero >> farther.jpg; cat "$JPG" >> farther.jpg
cp "$JPG" scan.jpg; printf '\377\304\0\3\0' >> scan.jpg; snap
run mpo.jpg -o m.nv12
status 0; says 'holds another JPEG after its picture'
run video.jpg -o v.nv12
status 0; says '5000 bytes follow the picture.s end marker'
run pad.jpg -o p.nv12 -q
status 0; quiet
run pad4k.jpg -o p4.nv12 -q
status 0; quiet
run eoi2.jpg -o e2.nv12 -q
status 0; quiet
run far.jpg -o far.nv12
status 0; says 'holds another JPEG after its picture'
run farther.jpg -o farther.nv12
status 0; says "$((5000 + $(stat -c %s "$JPG"))) bytes follow the picture.s end marker, the first 4096 of them padding \\(zero or FF bytes\\); not converted"
! grep -q video "$ERR" || bad "what follows 4 KiB of padding called a video"
run scan.jpg -o scan.nv12
status 0; says '5 bytes follow the picture.s end marker, starting with a JPEG marker \(FF C4\)'
yc - -o s.nv12 < video.jpg > "$OUT" 2> "$ERR"; RC=$?
status 0; says '5000 bytes follow'
ALLOW=(m.nv12 v.nv12 p.nv12 p4.nv12 e2.nv12 far.nv12 farther.nv12 scan.nv12 s.nv12); settled
end

begin png-after-its-end-said
# What follows a PNG's IEND was dropped without a word, where a JPEG's trailer is said: another PNG appended, or
# other data. Zero padding is nothing, and a stream is not read past the picture; both PNG readers alike.
cat "$PNG" "$PNG" > two.png
cp "$PNG" data.png; head -c 5000 /dev/urandom >> data.png
cp "$PNG" pad.png; head -c 512 /dev/zero >> pad.png; snap
run two.png -o t.nv12
status 0; says 'holds another PNG after its picture'
run data.png -o d.nv12
status 0; says '5000 bytes follow the PNG.s IEND chunk'
WRAP=(env YUVCONV_PNG_LIBPNG=1); run data.png -o dl.nv12; WRAP=()
status 0; says '5000 bytes follow the PNG.s IEND chunk'
run pad.png -o p.nv12 -q
status 0; quiet
cat data.png | timeout -s KILL 20 "$BIN" - -o s.nv12 -q > "$OUT" 2> "$ERR"; RC=$?
status 0; quiet
same d.nv12 "$(ref "$PNG" nv12)"
ALLOW=(t.nv12 d.nv12 dl.nv12 p.nv12 s.nv12); settled
end

begin png-routes-agree-on-data-after-rows
# Compressed image data after the last row: counted from the first read after it, 8 KiB reads on both PNG
# readers (libpng's unit). yuvconv's own reader took 64 KiB at a time, so 80 KB of junk there converted on its
# route and was refused on libpng's (both refused past 131,007 and 73,663 bytes): now both accept 70,000 and
# refuse 80,000. And an XMP packet over 1 MiB stored uncompressed was applied (turned) where the same packet
# compressed is ignored: both ignored, with a warning.
python3 - <<'PY'
import struct, zlib
def ch(k, d): return struct.pack('>I', len(d)) + k + d + struct.pack('>I', zlib.crc32(k + d))
raw = b''.join(b'\0' + bytes(range(48)) for _ in range(16))
hdr = b'\x89PNG\r\n\x1a\n' + ch(b'IHDR', struct.pack('>IIBBBBB', 16, 16, 8, 2, 0, 0, 0))
for n in (70000, 80000):
    open(f'j{n}.png', 'wb').write(hdr + ch(b'IDAT', zlib.compress(raw) + (bytes(range(256)) * 400)[:n]) + ch(b'IEND', b''))
pkt = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       b'<rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/></rdf:RDF></x:xmpmeta>')
pkt += b' ' * (2 << 20)
for comp, name in ((0, 'xs.png'), (1, 'xc.png')):
    body = b'XML:com.adobe.xmp\0' + bytes([comp, 0]) + b'\0\0' + (zlib.compress(pkt) if comp else pkt)
    open(name, 'wb').write(hdr + ch(b'iTXt', body) + ch(b'IDAT', zlib.compress(raw)) + ch(b'IEND', b''))
PY
snap
for route in own libpng; do
  [ $route = libpng ] && WRAP=(env YUVCONV_PNG_LIBPNG=1) || WRAP=()
  run j70000.png -o a-$route.nv12 -q
  status 0
  run j80000.png -o b-$route.nv12 -q
  status 1; says 'image data goes on more than 64 KiB past its last row \(a decompression bomb, or damage\): refused$'
done
WRAP=()
for f in xs xc; do
  run $f.png -o $f.nv12
  status 0; says 'XMP packet .*(longer than|past) 1 MiB: ignored'; says "$f.png: 16x16 "
done
ALLOW=(a-own.nv12 a-libpng.nv12 xs.nv12 xc.nv12); settled
end

begin apng-default-image-said
# An animated PNG's default image was converted without a word: the other frames are not converted, and an
# APNG whose default image is no frame of the animation (no fcTL before its IDAT) shows viewers another picture.
python3 - <<'PY'
import struct, zlib
def ch(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
W, H = 16, 8
row = lambda px: b''.join(b'\0' + px * W for _ in range(H))
head = b'\x89PNG\r\n\x1a\n' + ch(b'IHDR', struct.pack('>IIBBBBB', W, H, 8, 2, 0, 0, 0)) + ch(b'acTL', struct.pack('>II', 1, 0))
fctl = lambda n: ch(b'fcTL', struct.pack('>IIIIIHHBB', n, W, H, 0, 0, 1, 10, 0, 0))
open('hidden.png', 'wb').write(head + ch(b'IDAT', zlib.compress(row(b'\xff\0\0'))) + fctl(0)
                               + ch(b'fdAT', struct.pack('>I', 1) + zlib.compress(row(b'\0\0\xff'))) + ch(b'IEND', b''))
open('first.png', 'wb').write(head + fctl(0) + ch(b'IDAT', zlib.compress(row(b'\xff\0\0'))) + ch(b'IEND', b''))
PY
snap
run hidden.png -o h.nv12
status 0; says 'animated PNG .APNG. whose default image is no frame of the animation'
run first.png -o f.nv12
status 0; says 'animated PNG .APNG.: its default image, the animation.s first frame, is converted'
ALLOW=(h.nv12 f.nv12); settled
end

begin raw-frame-memory-from-a-pipe
# A raw frame from a pipe was reserved 64 MiB and grown by doubling: an 80 MiB frame held 139–143 MiB at its
# last growth. The whole frame, admitted, is reserved at once (pages cost memory as bytes arrive): 121–124 MiB,
# hence the 133 MiB line between the two. And a JPEG output's planes were checked only after the frame was read: refused now
# before it is, at the process's own size.
snap
memwrap
yc - --size 8192x6826 --pix-fmt nv12 -o /dev/null -q < <(head -c 83877888 /dev/zero) > "$OUT" 2> "$ERR"
status 0; rss_below 133
memwrap
yc - --size 4096x4096 --pix-fmt yuv420p -o o.jpg --max-memory 60M < <(head -c 25165824 /dev/zero) > "$OUT" 2> "$ERR"
status 1; says 'holding the picture for the encoder needs .* above the limit of 60 MiB'; rss_below 30
# A JPEG too wide for the format, from the size given, before the frame is read (it read the frame first).
yc - --size 70000x2 --pix-fmt yuv420p -o w.jpg < <(head -c 1000 /dev/zero) > "$OUT" 2> "$ERR"
status 1; says 'a JPEG holds at most 65500 pixels a side'
settled
end

begin y4m-range-contradicted-warns
# XCOLORRANGE wins over --range, as the header wins over --size, --pix-fmt and --chroma-loc; those said so, this
# one was dropped in silence. A --range that agrees says nothing.
printf 'YUV4MPEG2 W2 H2 C420jpeg XCOLORRANGE=LIMITED\nFRAME\n\x10\xeb\x80\x80\x80\x80' > lr.y4m; snap
run lr.y4m --range full -o x.png -q
status 0; says 'XCOLORRANGE=LIMITED.*--range full is ignored'
run lr.y4m --range limited -o y.png -q
status 0; quiet; ALLOW=(x.png y.png); settled
end

begin single-file-update-warns
cp "$PNG" a.png; snap
run a.png -o x.nv12 --update
status 0; says 'update.*single file'; ALLOW=(x.nv12); settled
end

# 19. The fifth round: the report on standard error, data on another descriptor, standard error on a batch
# output, report files of --update runs.
begin report-on-stderr-over-file-data
cp "$PNG" a.png; printf 'PRECIOUS-%.0s' $(seq 400) > old; snap
yc a.png -o - -q --report json 2<> old > /dev/null
status 2; settled
end

begin jpeg-missing-only-its-end-marker
# A baseline JPEG missing only FF D9 (or padding bits) has every pixel: it converts, with a warning, to the same
# bytes as the whole file (it was refused as cut short). A byte fewer, a progressive file without its end
# marker, a file whose later scan holds every component (scans {Y}, {Y, Cb, Cr}, {Cb}) cut after it, and a
# baseline file declaring 16384 rows whose data ends early stay refused (the last quickly: the decoder stops at
# the first bit it needs past the end). (Arithmetic-coded files are refused by the same rule; making one needs
# cjpeg, which this script does not assume.)
python3 -c "
import struct
d=open('$JPG','rb').read(); assert d[-2:]==b'\xff\xd9'
open('noeoi.jpg','wb').write(d[:-2]); open('short.jpg','wb').write(d[:-3])
p=open('$here/Fixtures/synthetic/progressive-rocket.jpg','rb').read(); open('prog.jpg','wb').write(p[:-2])
i=d.find(b'\xff\xc0'); t=bytearray(d[:-2]); t[i+5:i+7]=struct.pack('>H',16384); open('tall.jpg','wb').write(bytes(t))"
cp "$JPG" whole.jpg; cp "$here/Fixtures/synthetic/scans-y-all-cb-cut.jpg" scans.jpg; snap
run scans.jpg -o e.nv12
status 1; names scans.jpg; says 'cut short'
run noeoi.jpg -o a.nv12
status 0; says 'noeoi.jpg.*without its end-of-image marker'
same a.nv12 "$(ref whole.jpg nv12)"
run short.jpg -o b.nv12
status 1; names short.jpg; says 'cut short'
run prog.jpg -o c.nv12
status 1; names prog.jpg; says 'cut short'
run tall.jpg -o d.nv12
status 1; names tall.jpg; says 'cut short'; within 1500
ALLOW=(a.nv12); settled
end

begin data-descriptor-shares-stderr
cp "$PNG" a.png; snap
yc a.png -o /dev/fd/3 3> d.nv12 2>&3
status 2; ALLOW=(d.nv12); settled
end

begin data-shares-stderr-quiet-warning
# With -q, standard error sharing the data's file is silenced: a warning (a truncated JPEG) stays out of the data.
head -c 3000 "$JPG" > t.jpg; snap
yc t.jpg --allow-truncated -o - -q > out.nv12 2>&1
status 0; ALLOW=(out.nv12); settled
same out.nv12 "$(ref t.jpg nv12 --allow-truncated)"
end

begin damaged-jpeg-advice-only-when-it-can-work
# libjpeg's damage warnings are errors at the first one. Before the first scan there is no image: no advice
# (it advised --allow-truncated, and with the option "no image" came instead). In the image data the advice
# says what the option does and that a worse file stays refused. A 7 KB file declaring 16384x16384 whose
# scans are empty fails at once (decoding on past damage made it take half a minute and gigabytes).
head -c 3000 "$JPG" > cut.jpg; head -c 300 "$JPG" > head.jpg
python3 -c "
import struct
d=bytearray(open('$JPG','rb').read()); s=d.find(b'\xff\xda'); e=bytearray(d)
e[s+600:s+604]=b'\xff\x17\x00\x04'; open('bad.jpg','wb').write(e)
for i in range(s+5000, s+5040):
    if 0xff not in (d[i-1], d[i], d[i+1]): d[i]^=0x5a
open('flip.jpg','wb').write(d)
# The bomb: a progressive file's segments, its SOF saying 16384x16384, its scans without data, the first
# scan's header 300 times more.
p=open('$here/Fixtures/synthetic/progressive-rocket.jpg','rb').read(); i=2; out=bytearray(b'\xff\xd8'); first=None
while p[i+1]!=0xD9:
    n=struct.unpack('>H',p[i+2:i+4])[0]; seg=bytearray(p[i:i+2+n]); m=p[i+1]; i+=2+n
    if m==0xC2: seg[5:9]=struct.pack('>HH',16384,16384)
    if m==0xDA:
        first=first or bytes(seg)
        while not (p[i]==0xFF and p[i+1]!=0 and not 0xD0<=p[i+1]<=0xD7): i+=1
    out+=seg
open('bomb.jpg','wb').write(bytes(out)+first*300+b'\xff\xd9')"
snap
run cut.jpg -o a.nv12
status 1; names cut.jpg; says 'cut short.*allow-truncated decodes past'
run cut.jpg -o a.nv12 --allow-truncated -q
status 0
run head.jpg -o b.nv12
status 1; names head.jpg; LC_ALL=C grep -q 'allow-truncated' "$ERR" && bad "advises --allow-truncated: $(errline)"
run bad.jpg -o c.nv12 --allow-truncated -q
status 1; names bad.jpg; says 'marker'
run flip.jpg -o d.nv12
status 1; names flip.jpg; says 'allow-truncated'
run flip.jpg -o d.nv12 --allow-truncated -q
status 0
run bomb.jpg -o e.nv12
status 1; names bomb.jpg; within 1500
ALLOW=(a.nv12 d.nv12); settled
end

begin batch-stderr-on-an-output
cp "$PNG" a.png; mkdir o; echo keep > o/a.nv12; snap
yc a.png -o o/ --update 2>> o/a.nv12 > "$OUT"
status 2; ALLOW=(o/a.nv12); settled
LC_ALL=C grep -q '^keep$' o/a.nv12 || bad "o/a.nv12 was replaced"
end

begin report-file-in-folder-to-make
cp "$PNG" a.png; snap
run a.png "$PNGA" -o out/ -q --report json --report-file out/r.json
status 0; ALLOW=(out out/a.nv12 out/basn6a08.nv12 out/r.json); settled
end

begin update-rerun-replaces-its-report
cp "$PNG" a.png; yc a.png -o o/ -u -q --report json --report-file o/r.json > /dev/null 2>&1; snap
run a.png -o o/ -u -q --report json --report-file o/r.json
status 0; ALLOW=(o/r.json o/.yuvconv-manifest); settled
end

begin update-report-file-over-a-photo
# --update remakes its report each run, and replaced any plain file at the report's name without --force: a
# photo there became JSON. Only a report (any format, or an empty file) is replaced; anything else is refused.
cp "$PNG" a.png; cp "$PNG" photo.png; printf 'my notes\n' > notes.csv; snap
run a.png -o o/ -u -q --report json --report-file photo.png
status 1; names photo.png; says 'exists'; settled
run a.png -o o/ -u -q --report csv --report-file notes.csv --dry-run
status 1; names notes.csv; settled
end

begin jpeg-output-with-perturbed-malloc
# The JPEG output's picture is reserved, not zeroed: every byte must be written before it is read.
cp "$JPG" a.jpg; snap
WRAP=(env MALLOC_PERTURB_=165); run a.jpg -o x.jpg
status 0; ALLOW=(x.jpg); settled
same x.jpg "$(ref "$JPG" jpg)"
end

# 20. The sixth round: permissions under many jobs and of replaced files, an output folder moved or replaced
# while a batch runs.
begin many-jobs-keep-the-umask
# The umask belongs to the process: a thread that changed it for a moment gave another's file 0666 (a race:
# before the fix about one run in five of these left such files).
for i in $(seq 300); do cp "$CRAFT/tiny.png" "p$i.png"; done; snap
loose= mask=$(umask)
for k in 1 2 3 4 5 6; do
  rm -rf out; umask 022; yc . -o out/ -q -j 16 > /dev/null 2> "$ERR"; umask "$mask"; status 0
  loose+=$(find out -perm /022 -printf '%m %P ' | head -c 200)
done
[ -z "$loose" ] || bad "outputs looser than the umask allows: $loose"
ALLOW=(out out/* out/.yuvconv-manifest); settled
end

begin replaced-file-keeps-its-mode
cp "$PNG" a.png; echo old > a.nv12; chmod 600 a.nv12
owner=; if [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1; then chown nobody a.nv12; owner=nobody; fi; snap
run a.png -o a.nv12 --force -q
status 0; ALLOW=(a.nv12); settled
[ "$(stat -c %a a.nv12)" = 600 ] || bad "a 0600 file came back $(stat -c %a a.nv12)"
[ -z "$owner" ] || [ "$(stat -c %U a.nv12)" = "$owner" ] || bad "owner $owner became $(stat -c %U a.nv12)"
same a.nv12 "$(ref "$PNG" nv12)"
end

begin output-folder-moved-mid-batch
# The files in flight finish in the folder they were opened in; no temporary file is left in the moved folder;
# the files after fail instead of going to a new folder at the old path.
mkdir in; for i in $(seq 40); do cp "$CRAFT/slow.png" "in/s$i.png"; done; snap
timeout -s KILL "$LIMIT" "$BIN" in -o od/ -q -j 2 > "$OUT" 2> "$ERR" & pid=$!
for _ in $(seq 100); do [ -n "$(ls od 2> /dev/null)" ] && break; sleep 0.05; done
mv od moved; wait $pid; RC=$?
status 1; says 'moved or replaced'
[ ! -e od ] || bad "a new od/ was made: $(ls od | head -c 100)"
done_in_moved=$(ls moved | wc -l); failed=$(LC_ALL=C grep -c '^  failed: ' "$ERR")
(( done_in_moved + failed == 40 )) || bad "$done_in_moved in moved/ and $failed failed, not 40 in all"
ALLOW=(moved moved/*); settled
end

begin output-folder-replaced-by-link-mid-batch
mkdir in elsewhere; for i in $(seq 40); do cp "$CRAFT/slow.png" "in/s$i.png"; done; snap
timeout -s KILL "$LIMIT" "$BIN" in -o od/ -q -j 2 > "$OUT" 2> "$ERR" & pid=$!
for _ in $(seq 100); do [ -n "$(ls od 2> /dev/null)" ] && break; sleep 0.05; done
mv od real; ln -s elsewhere od; wait $pid; RC=$?
status 1; says 'moved or replaced'
[ -z "$(ls elsewhere)" ] || bad "outputs went through the link: $(ls elsewhere | head -c 100)"
ALLOW=(real real/* od); settled
end

begin picture-beyond-a-memory-limit
# The picture a JPEG output holds cannot be had (--max-memory raised past it): that file fails with the reason,
# the batch goes on and writes its report and manifest (the process used to abort).
mkdir in; cp "$PNG" in/a.png; cp "$CRAFT/claims16k.png" in/z.png; snap
WRAP=(prlimit --as=400000000 --); run in -o out/ -q --name '{stem}.jpg' --update --report json --report-file out/r.json --max-memory 1G
status 1; says 'z.png.*out of memory'
[ -f out/.yuvconv-manifest ] && [ -f out/r.json ] && [ -f out/a.jpg ] || bad "no manifest, report or a.jpg: $(ls -A out | head -c 100)"
ALLOW=(out out/* out/.yuvconv-manifest); settled
end

begin icc-profile-bombs
# A float LUT ('mpet') reads its elements through a table of positions whose lengths LittleCMS ignores: 100,000
# entries at one small matrix ran for minutes, 20 at one 3 MB colour table took 200 MiB (also with every length
# 0), a colour table of 15 inputs costs 32,768 reads a colour; such profiles are refused. A colour table is
# allocated from its header before its data: a 948-byte profile took 497 MiB (LittleCMS's memory now has a
# budget). Zero, equal or negated colorants blacked out or greyed the picture. Each is a warning and the samples
# as stored: the bytes of --color-management off, at once and in little memory.
python3 - <<'PY'
import struct, zlib
def s15(x): return struct.pack('>i', int(round(x * 65536)))
def xyz(x, y, z): return b'XYZ \0\0\0\0' + s15(x) + s15(y) + s15(z)
def tagged(tags):
    off = 132 + 12 * len(tags); table = data = b''
    for sig, body in tags:
        body += b'\0' * (-len(body) % 4); table += sig + struct.pack('>II', off + len(data), len(body)); data += body
    head = (struct.pack('>I', off + len(data)) + b'lcms' + struct.pack('>I', 0x04300000) + b'mntrRGB XYZ ' + b'\0' * 12
            + b'acsp' + b'\0' * 24 + struct.pack('>I', 0) + s15(0.9642) + s15(1.0) + s15(0.8249) + b'\0' * 48)
    return head + struct.pack('>I', len(tags)) + table + data
def matrix_trc(prim=((0.4361, 0.2225, 0.0139), (0.3851, 0.7169, 0.0971), (0.1431, 0.0606, 0.7141))):
    u = 'Bomb'.encode('utf-16-be'); curv = b'curv\0\0\0\0' + struct.pack('>IH', 1, int(1.8 * 256)) + b'\0\0'
    return [(b'desc', b'mluc\0\0\0\0' + struct.pack('>II', 1, 12) + b'enUS' + struct.pack('>II', len(u), 28) + u),
            (b'wtpt', xyz(0.9642, 1.0, 0.8249))] + [(c + b'XYZ', xyz(*p)) for c, p in zip((b'r', b'g', b'b'), prim)] \
           + [(c + b'TRC', curv) for c in (b'r', b'g', b'b')]
def matf(i, o): return b'matf\0\0\0\0' + struct.pack('>HH', i, o) + struct.pack('>f', 1.0) * (i * o + o)
def clut(i, o, grid): return b'clut\0\0\0\0' + struct.pack('>HH', i, o) + bytes([grid] * i + [0] * (16 - i)) + b'\0' * (grid ** i * o * 4)
def mpet(elements, table, lengths=None):   # table: indices into elements, one position entry each
    start = 16 + 8 * len(table); at = []; body = b''
    for e in elements: at.append((start + len(body), len(e) if lengths is None else lengths)); body += e
    return (b'mpet\0\0\0\0' + struct.pack('>HHI', 3, 3, len(table)) + b''.join(struct.pack('>II', *at[k]) for k in table) + body)
def mab_clut_header(i, o, grid):   # lutAtoBType declaring a 16-bit colour table of grid^i entries, no data
    return b'mAB \0\0\0\0' + bytes([i, o, 0, 0]) + struct.pack('>IIIII', 0, 0, 0, 32, 0) + bytes([grid] * i + [0] * (16 - i)) + bytes([2, 0, 0, 0])
def png(name, profile):
    c = lambda t, d: struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
    rows = b''.join(b'\0' + bytes((x * 37 + y * 11 + k * 5) % 256 for x in range(16) for k in range(3)) for y in range(16))
    open(name, 'wb').write(b'\x89PNG\r\n\x1a\n' + c(b'IHDR', struct.pack('>IIBBBBB', 16, 16, 8, 2, 0, 0, 0))
                           + c(b'iCCP', b'x\0\0' + zlib.compress(profile, 9)) + c(b'IDAT', zlib.compress(rows)) + c(b'IEND', b''))
png('many.png', tagged(matrix_trc() + [(b'D2B1', mpet([matf(3, 3)], [0] * 100000))]))
png('shared.png', tagged(matrix_trc() + [(b'D2B1', mpet([clut(3, 3, 64)], [0] * 20))]))
png('wide.png', tagged(matrix_trc() + [(b'D2B1', mpet([matf(3, 15), clut(15, 3, 2)] * 8, list(range(16))))]))
png('zero.png', tagged(matrix_trc(((0, 0, 0),) * 3)))
png('alike.png', tagged(matrix_trc(((0.3, 0.3, 0.3),) * 3)))
# LittleCMS ignores the position table's lengths: all 0, they hid the sharing.
png('shared0.png', tagged(matrix_trc() + [(b'D2B1', mpet([clut(3, 3, 64)], [0] * 64, lengths=0))]))
# A colour table is allocated from its header before its data is read: 255^3 entries of 15 outputs, 497 MiB.
png('alloc.png', tagged(matrix_trc() + [(b'A2B1', mab_clut_header(3, 15, 255))]))
# Negated colorants span a space but add up to minus white: every colour black.
png('negative.png', tagged(matrix_trc(((-0.4361, -0.2225, -0.0139), (-0.3851, -0.7169, -0.0971), (-0.1431, -0.0606, -0.7141)))))
PY
snap
for f in many shared wide shared0 alloc zero alike negative; do
  memwrap; run $f.png -o $f.nv12
  status 0; within 3000; rss_below 64
  case $f in many|shared|wide|shared0) says 'float LUT';; alloc) says 'cannot be transformed';; *) says 'no colour space';; esac
  says 'colours used as stored'
  same $f.nv12 "$(ref $f.png nv12 --color-management off)"
done
ALLOW=(many.nv12 shared.nv12 wide.nv12 shared0.nv12 alloc.nv12 zero.nv12 alike.nv12 negative.nv12); settled
end

begin list-on-closed-standard-input
# `--files-from -` with standard input closed read an empty list: "0 converted", exit 0 — a pipeline whose list
# producer was missing looked green. It is an error, as `yuvconv -` on a closed standard input is.
snap
yc convert --files-from - -o out/ <&- > "$OUT" 2> "$ERR"
status 1; says '<stdin>: cannot read the list: standard input is closed'
yc report --files-from - -0 <&- > "$OUT" 2> "$ERR"
status 1; says 'standard input is closed'
settled
end

begin report-interrupted-says-not-measured
# `yuvconv report` interrupted while it waited on a FIFO's idle writer said the file was "interrupted before it was
# finished (nothing written)", a conversion's words: report writes nothing of an image. It says "not measured".
cp "$PNG" a.png; mkfifo f; snap
sleep 30 > f & w=$!
"$BIN" report a.png f > "$OUT" 2> "$ERR" & pid=$!
sleep 1.5; kill -INT $pid; wait $pid; r=$?
kill $w 2> /dev/null; wait $w 2> /dev/null
[ "$r" = 130 ] || bad "exit $r (130 wanted)"; says 'f: interrupted before it was measured'
LC_ALL=C grep -q 'nothing written' "$ERR" "$OUT" && bad "said nothing written: $(errline)"
settled
end

begin deep-name-template-plans-in-time
# A --name of many folder levels: the plan asked each level's folder whether it folds case, and each asked walked
# up to the nearest folder that exists, splitting the path at every step — the cube of the depth (1,000 levels:
# 18 s; 2,100, a path over the system's 4,095 bytes: still planning after 2 minutes, before that was refused).
# The same through {dir} from an input tree 700 levels deep (6.6 s).
cp "$PNG" a.png; deep=$(printf 'd/%.0s' $(seq 2100)); mid=$(printf 'd/%.0s' $(seq 1500))
p=in; for _ in $(seq 700); do p=$p/x; done; mkdir -p "$p"; cp "$PNG" "$p/a.png"; snap
run convert a.png -o o1/ --name "${deep}{stem}.nv12" -q
status 1; says 'its path is 4209 bytes; a path can have at most 4095'; within 10000
run convert a.png -o o2/ --name "${mid}{stem}.nv12" -n
status 0; within 10000
run convert a.png -o o2/ --name "${mid}{stem}.nv12" -q
status 0; within 10000
run convert in/ -r -o o3/ --name '{dir}/{stem}.{ext}' -q
status 0; within 10000
[ -f "o3/${p#in/}/a.nv12" ] || bad "the mirrored output is missing"
rm -rf o2 o3; settled
end

begin fifo-output-waits-for-its-reader
# An output FIFO whose reader opens it just after yuvconv starts (`yuvconv a.png -o p & consumer < p`) failed at
# once ("no process is reading the FIFO"), where an input FIFO waits 5 s for its writer. It now waits the same
# 5 s; with no reader by then it fails, naming the wait.
cp "$PNG" a.png; mkfifo p q; "$BIN" a.png -o ref.nv12 -q; snap
( sleep 1; cat p > got.nv12 ) &
run a.png -o p -f nv12 -q
wait
status 0; quiet; cmp -s got.nv12 ref.nv12 || bad "the reader got other bytes"
run a.png -o q -f nv12
status 1; names q; says 'no process opened the FIFO to read it within 5 s'
(( ELAPSED_MS >= 4500 )) || bad "gave up after ${ELAPSED_MS} ms"
ALLOW=(got.nv12); settled
end

begin unix-socket-as-output-or-input
# A Unix socket was "no process is reading the FIFO" (open() gives ENXIO for both) as an output, and "No such
# device or address" as an input: it is a socket, which open() cannot reach.
cp "$PNG" a.png
python3 -c "import socket, time; s = socket.socket(socket.AF_UNIX); s.bind('sock'); s.listen(1); time.sleep(30)" &
spid=$!
for _ in $(seq 50); do [ -S sock ] && break; sleep 0.1; done
snap
run a.png -o sock -f nv12
status 1; names sock; says 'is a socket'
run a.png -o sock -f nv12 --force
status 1; says 'is a socket'
run sock -o b.nv12
status 1; names sock; says 'is a socket'
settled
kill $spid 2>/dev/null; wait $spid 2>/dev/null
end

begin lut-profile-under-address-space-limits
# A JPEG whose ICC profile holds a 16 MB colour table (lut16, 140^3 grid) in 257 APP2 pieces, under a series of
# address-space limits: where the system refused LittleCMS the table's memory (within its own budget) the profile
# was said to be one that "cannot be transformed", exit 0, colours used as stored — the bytes depended on the
# limit (80-100 MB here); a CMYK JPEG's profile too (72-96 MB). Every limit now converts managed, or fails the
# file as out of memory.
"$BIN" "$PNG" -o plain.jpg -q
python3 - "$here/Fixtures/colour/kodim23-cmyk.jpg" <<'PY'
import struct, sys
s15 = lambda x: struct.pack('>i', round(x * 65536))
ent = 256
table = b''.join(struct.pack('>H', i * 65535 // (ent - 1)) for i in range(ent))

def lut_profile_app2(inputs, grid, header):
    """APP2 pieces of a v2 profile (`header`: class, colour space, PCS) whose A2B0 is a lut16 of `inputs`
    channels, `grid` points a side, all zeros."""
    lut = (b'mft2\0\0\0\0' + bytes([inputs, 3, grid, 0]) + b''.join(s15(v) for v in (1, 0, 0, 0, 1, 0, 0, 0, 1))
           + struct.pack('>HH', ent, ent) + table * inputs + bytes(grid ** inputs * 3 * 2) + table * 3)
    tags = [(b'wtpt', b'XYZ \0\0\0\0' + s15(.9642) + s15(1) + s15(.8249)), (b'A2B0', lut)]
    off = 132 + 12 * len(tags); tab = dat = b''
    for sig, body in tags:
        body += b'\0' * (-len(body) % 4); tab += sig + struct.pack('>II', off + len(dat), len(body)); dat += body
    icc = (struct.pack('>I', off + len(dat)) + b'lcms' + struct.pack('>I', 0x02100000) + header + b'\0' * 12
           + b'acsp' + b'\0' * 28 + s15(.9642) + s15(1) + s15(.8249) + b'\0' * 48 + struct.pack('>I', len(tags)) + tab + dat)
    n = (len(icc) + 65518) // 65519
    return b''.join(b'\xff\xe2' + struct.pack('>H', 16 + len(p)) + b'ICC_PROFILE\0' + bytes([i + 1, n]) + p
                    for i, p in enumerate(icc[k * 65519:(k + 1) * 65519] for k in range(n)))

jpeg = open('plain.jpg', 'rb').read()
open('lut.jpg', 'wb').write(jpeg[:2] + lut_profile_app2(3, 140, b'mntrRGB XYZ ') + jpeg[2:])
# The same for a CMYK JPEG (a CMYK profile's transform is made where the decoder starts, not by the plan): a
# printer profile, 4 inputs, a 40^4 grid (15 MB), in place of the fixture's own.
app2 = lut_profile_app2(4, 40, b'prtrCMYKXYZ ')
d = open(sys.argv[1], 'rb').read()
out, i = d[:2], 2
while True:   # the markers before the first scan, the fixture's profile pieces left out
    m, L = d[i + 1], int.from_bytes(d[i + 2:i + 4], 'big')
    if m == 0xDA: break
    if not (m == 0xE2 and d[i + 4:i + 16] == b'ICC_PROFILE\0'): out += d[i:i + 2 + L]
    i += 2 + L
open('lutc.jpg', 'wb').write(out[:2] + app2 + out[2:] + d[i:])
PY
snap
run lut.jpg -o lut.jpg.nv12 -q
status 0; quiet
run lutc.jpg -o lutc.jpg.nv12 -q
status 0; quiet
check_limits() {  # FILE: every limit converts FILE managed (its unlimited bytes) or fails it as out of memory
  local managed=0
  for kb in $(seq 40000 4000 160000); do
    prlimit --as=$((kb * 1024)) -- "$BIN" --version > /dev/null 2>&1 || continue
    WRAP=(prlimit --as=$((kb * 1024)) --); run "$1" -o u.nv12 --force
    status done
    if (( RC == 0 )); then
      grep -q 'cannot be transformed\|colours used as stored\|converted without it' "$ERR" && bad "$1 at $kb KB: $(errline)"
      cmp -s u.nv12 "$1.nv12" && managed=$((managed + 1)) || bad "$1 at $kb KB: other bytes than without a limit"
    else
      says "$1: cannot allocate .*out of memory"
    fi
  done
  WRAP=()
  (( managed > 0 )) || bad "$1: no limit tried was enough to convert"
}
check_limits lut.jpg
check_limits lutc.jpg
ALLOW=(lut.jpg.nv12 lutc.jpg.nv12 u.nv12); settled
end

begin address-space-limits-never-a-signal
# Under an address-space limit (ulimit -v) a 12 MP JPEG stopped the process with Swift's "failed to allocate"
# (SIGABRT, exit 134) where a band buffer was refused; every limit now converts or fails with the reason.
head -c $((4032 * 3024 * 3 / 2)) /dev/urandom > big.yuv
"$BIN" big.yuv --size 4032x3024 -o big.jpg -q 2> /dev/null; rm -f big.yuv; snap
for o in nv12 png jpg y4m; do
  for kb in 16000 20000 22500 25000 30000 40000; do
    # Below what the loader needs to map the libraries (about 18 MiB here) no program starts at all.
    prlimit --as=$((kb * 1024)) -- "$BIN" --version > /dev/null 2>&1 || continue
    WRAP=(prlimit --as=$((kb * 1024)) --); run big.jpg -o "u.$o" --force -q
    status done
    (( RC == 0 )) || says 'big.jpg|u\.'"$o"
  done
done
# The JPEG encoder's file copied into an array that could not fail: SIGABRT in a window of limits (74-75 MB
# here) where the picture fitted but the copy did not.
for kb in $(seq 64000 1000 84000); do
  WRAP=(prlimit --as=$((kb * 1024)) --); run big.jpg -o u.jpg --force -q
  status done
  (( RC == 0 )) || says 'big.jpg|u\.jpg'
done
# Sharp chroma's own arrays, a batch's planning and two jobs at once trapped where a plain conversion did not:
# every conversion asks for room to work in before any work, the process for room to start.
cp "$PNG" small.png
for kb in 19000 20000 21000 22000 23000 24000 26000 30000; do
  prlimit --as=$((kb * 1024)) -- "$BIN" --version > /dev/null 2>&1 || continue
  WRAP=(prlimit --as=$((kb * 1024)) --); run big.jpg -o s.nv12 --chroma-filter sharp --force -q
  status done
  run big.jpg small.png -o batch/ -j 2 --force -q
  status done
done
WRAP=(); ALLOW=(u.nv12 u.png u.jpg u.y4m s.nv12 small.png batch batch/*); settled
end

begin a-refused-buffer-fails-its-file-not-the-batch
# A conversion's buffer refused under an address-space limit (after libjpeg took 96 MiB of coefficients, in a
# window of about a MiB) ended the whole batch: exit 1, the next file never converted, no summary, no report or
# manifest. Every limit from where the small file fits to where both do: the small one converts, the batch
# says what failed.
cp "$CRAFT/prog33mp-colour.jpg" a.jpg; cp "$PNG" b.png; snap
for kb in $(seq 100000 256 150000); do
  rm -rf o
  WRAP=(prlimit --as=$((kb * 1024)) --); run a.jpg b.png -o o/ -j 1 -q
  status done
  [ -f o/b.nv12 ] || bad "under $kb KiB the batch ended before b.png: $(errline)"
  (( RC == 0 )) && break
  says 'converted, .* failed'
  [ -n "$WHY" ] && break
done
(( RC == 0 )) || bad "both never converted up to 150000 KiB"
WRAP=(); rm -rf o; settled
end

begin odd-align-on-10-bit-layouts
# --align 3 with p010 or yuv420p10le made a file whose rows begin inside 16-bit words (exit 0); an odd alignment
# is a usage error for them, and stays fine for 8-bit layouts.
cp "$PNG" a.png; snap
run a.png -o a.p010 --align 3
status 2; says 'odd --align.*p010'
cp a.png b.png
run a.png b.png -o out/ -f yuv420p10le --align 5 --force
status 2; says 'odd --align.*yuv420p10le'
run a.png -o b.nv12 --align 3
status 0
run a.png -o c.p010 --align 6
status 0
ALLOW=(b.png b.nv12 c.p010); settled
end

begin profile-text-cannot-drive-the-terminal
# A profile's description is the file's text: an escape sequence or a newline in it is shown as \xNN.
cp "$CRAFT/icc-escape.jpg" a.jpg; snap
run a.jpg -o a.nv12 --report csv --report-file r.csv
status 0; ALLOW=(a.nv12 r.csv); settled
LC_ALL=C grep -q $'\x1b' "$ERR" r.csv && bad "an escape character reached standard error or the report"
says 'x1B\[31mRED\\x07\\x0A'
end

begin option-values-cannot-drive-the-terminal
cp "$PNG" a.png; snap
run a.png -o a.nv12 --matrix $'\e]0;pwn\a\e[31mX'
status 2; settled
LC_ALL=C grep -q $'\x1b' "$ERR" && bad "an escape character reached standard error"
WRAP=(env YUVCONV_CPU=$'avx2\nforged line'); run a.png -o a.nv12
status 2; settled
[ "$(grep -c . "$ERR")" = 2 ] || bad "the message is not one line and its hint: $(errline)"
WRAP=(); run a.png -o a.nv12 --pix-fmt $'nv12\r\nyuvconv: error: forged'
status 2; settled
[ "$(grep -c . "$ERR")" = 2 ] || bad "a CR LF split the message: $(errline)"
end

begin y4m-signature-and-no-frame
printf 'YUV4MPEG W5 H3 C420jpeg\nFRAME\n' > a.y4m; head -c 27 /dev/zero >> a.y4m
printf 'YUV4MPEG2 W6 H4 C420jpeg\n' > b.y4m; snap
run a.y4m -o a.nv12
status 1; names a.y4m; says 'not a Y4M stream'
run b.y4m -o b.nv12
status 1; names b.y4m; says 'no frame'
settled
end

begin p010-given-yuv420p10le-data
python3 -c "import struct; open('d.p010','wb').write(struct.pack('<6H', 100, 200, 300, 400, 512, 512))"; snap
run d.p010 --size 2x2 --pix-fmt p010 -o d.nv12
status 1; names d.p010; says 'below 1024'; settled
end

begin output-name-too-long-fails-that-file
# Refused before any of its work or folders, and the dry run says the same (it said "convert" and exit 0).
mkdir in; cp "$PNG" "in/$(printf 'a%.0s' $(seq 200)).png"; snap
run in -o out/ --name '{stem}{stem}.nv12' -n
status 1; grep -q '^refuse .*at most 255' "$OUT" || bad "the dry run does not refuse it: $(head -c 200 "$OUT")"
run in -o out/ --name '{stem}{stem}.nv12'
status 1; says 'at most 255'
run in -o out/ --name "$(printf '{stem}/%.0s' $(seq 22)){stem}.nv12"
status 1; says 'at most 4095'
[ ! -e out ] || bad "folders were made: $(find out | head -c 100)"
settled
end

begin output-name-too-long-fails-that-file-alone
# A 255-byte input name, legal, whose output name (.nv12 for .png) is 256 bytes: that file fails, the others of the
# batch are converted (the whole batch was refused before any work, exit 1 and nothing converted).
mkdir in; long="in/$(printf 'L%.0s' $(seq 251)).png"; cp "$PNG" "$long"; cp "$PNG" in/a.png; cp "$PNG" in/b.png; snap
run in -o out/ -j 2 -n
status 1; grep -q '^refuse .*at most 255' "$OUT" || bad "the dry run does not refuse it: $(head -c 200 "$OUT")"
grep -q '^convert in/a.png' "$OUT" || bad "the dry run does not convert a.png: $(head -c 200 "$OUT")"
run in -o out/ -j 2
status 1; says 'at most 255'; says '2 converted.* 1 failed'
same out/a.nv12 "$(ref in/a.png nv12)"; same out/b.nv12 "$(ref in/b.png nv12)"
ALLOW=(out out/a.nv12 out/b.nv12); settled
end

begin raw-input-from-proc
# A /proc file says 0 bytes whatever it holds: it is read as a stream (this one holds exactly a 2x2 frame).
[ "$(head -c 100 /proc/sys/kernel/ostype 2>/dev/null)" = Linux ] || { skipped "no /proc/sys/kernel/ostype"; }
if [ "$(head -c 100 /proc/sys/kernel/ostype 2>/dev/null)" = Linux ]; then
  snap
  run /proc/sys/kernel/ostype --size 2x2 -o o.nv12 -q
  status 0; ALLOW=(o.nv12); settled
  printf 'Linux\n' | cmp -s o.nv12 - || bad "o.nv12 is not the file's six bytes"
  end
fi

begin png-exif-after-the-image-data
# Too late to turn the rows already converted: said, not ignored in silence (both PNG routes).
cp "$CRAFT/late-exif.png" a.png; cp "$CRAFT/late-exif16.png" b.png; snap
run a.png -o a.nv12
status 0; says 'a.png: an eXIf chunk after the image data'
run b.png -o b.nv12
status 0; says 'b.png: an eXIf chunk after the image data'
ALLOW=(a.nv12 b.nv12); settled
end

begin exif-orientation-out-of-range-beats-xmp
# EXIF has the tag, with 9: as stored (as Pillow reads it), XMP's 6 not asked.
cp "$CRAFT/exif9-xmp6.png" a.png; snap
run a.png -o a.nv12
status 0; ALLOW=(a.nv12); settled
LC_ALL=C grep -q 'a.png: 5x3 ' "$ERR" || bad "not converted as stored: $(errline)"
end

begin drop-box-folder
# A folder one may write to but not list (0733): outputs go there as a plain create would put them.
if [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1 && command -v runuser > /dev/null; then
  mkdir box; chmod 0733 box; cp "$PNG" a.png; chmod 644 a.png; chmod 755 .; chmod 711 "$WORK" "$WORK/cases"; snap
  WRAP=(runuser -u nobody --); run a.png -o box/a.nv12 -q
  chmod 700 "$WORK" "$WORK/cases"
  status 0; ALLOW=(box/a.nv12); settled
  WRAP=(); same box/a.nv12 "$(ref "$PNG" nv12)"
  end
else skipped "needs root and the user nobody"; fi

begin unreadable-subfolder
# A subfolder a -r walk cannot read (its permissions): its images are left out with an error naming it, every
# other file is converted, and the run fails (exit 1) once done. It stopped the whole walk: nothing converted.
mkdir -p tree/ok tree/secret; cp "$PNG" tree/ok/a.png; cp "$PNG" tree/secret/b.png; chmod 700 tree/secret
mkdir o; chmod 777 o; snap
if [ "$(id -u)" = 0 ]; then
  if id nobody > /dev/null 2>&1 && command -v runuser > /dev/null; then
    chmod -R go+rX tree/ok; chmod 755 . tree; chmod 711 "$WORK" "$WORK/cases"; WRAP=(runuser -u nobody --)
  else WRAP=(false); fi
else chmod 000 tree/secret; fi
locked=$(stat -c %a tree/secret)
if [ "${WRAP[0]:-}" = false ]; then skipped "needs the user nobody to be refused a folder"
else
  for cmd in convert report dry-run shard fail-fast listable; do
    case $cmd in
      convert) run convert tree -r -o o/ ;;
      report) run report tree -r ;;
      dry-run) run convert tree -r -o o/x/ -n ;;
      # Shards must find the same files (one that could not read a folder shared out the rest otherwise), and
      # --fail-fast starts nothing after a failure: both stop before any file.
      shard) run convert tree -r -o o/s/ --shard 1/1 ;;
      fail-fast) run convert tree -r -o o/f/ --fail-fast ;;
      # A folder that lists but cannot be entered (r without x): its images were "skipped" with exit 0.
      listable) chmod 444 tree/secret; run convert tree -r -o o/l/; chmod "$locked" tree/secret ;;
    esac
    status 1; names tree/secret
    case $cmd in
      shard|fail-fast) says 'the run stops before any file'; [ ! -e o/s ] && [ ! -e o/f ] || bad "$cmd: something was converted" ;;
      listable) says 'cannot look at the files in the folder'; [ -e o/l/a.nv12 ] || bad "listable: a.png not converted" ;;
      *) says 'cannot read the folder' ;;
    esac
    [ $cmd = report ] && { LC_ALL=C grep -q 'tree/ok/a.png' "$OUT" || bad "report: tree/ok/a.png not measured"; }
    [ $cmd = dry-run ] && { LC_ALL=C grep -q 'tree/ok/a.png' "$OUT" || bad "dry run: tree/ok/a.png not listed"; }
  done
  rm -rf o/l
  [ "$(id -u)" = 0 ] && chmod 700 "$WORK" "$WORK/cases"
  chmod 700 tree/secret
  WRAP=(); ALLOW=(o o/a.nv12); settled
  same o/a.nv12 "$(ref "$PNG" nv12)"
  end
fi

begin batch-input-swapped-for-a-fifo
# A listed file removed and a FIFO made at its name mid-batch: refused as not the file listed. The FIFO often gets
# the freed inode number back, and passed for the file (it was read, whatever a writer sent). strace slows each
# output's naming so the swap lands before the fifth file.
if ! strace -qq -o /dev/null true 2>/dev/null; then skipped "no strace (or no ptrace) here"; else
mkdir in; for i in 1 2 3 4 5 6; do cp "$PNG" in/f$i.png; done; snap
strace -f -qq -o /dev/null -e trace=linkat -e inject=linkat:delay_enter=400000 "$BIN" convert in/ -o out/ -j 1 -q \
  > "$OUT" 2> "$ERR" &
pid=$!
sleep 0.6; rm in/f5.png; mkfifo in/f5.png
( timeout 5 sh -c "cat '$PNGA' > in/f5.png" ) &
wait $pid; RC=$?; wait
status 1; names in/f5.png; says 'is now a FIFO, not the file the run listed'
[ -e out/f5.nv12 ] && bad "the FIFO swapped in was read"
rm -f in/f5.png; cp "$PNG" in/f5.png
ALLOW=(out 'out/*'); settled
end
fi

begin input-written-while-read
# A JPEG written into while it was read (its tail replaced in place by another's): the output mixed the two
# pictures, exit 0. strace holds the read after the input's first 256 KiB (counted in a first, untouched run).
if ! strace -qq -o /dev/null true 2>/dev/null; then skipped "no strace (or no ptrace) here"; else
/usr/bin/python3 - <<'PY'
import random, struct, zlib
for name, seed in (("n1.png", 1), ("n2.png", 2)):
    rnd = random.Random(seed); w, h = 700, 500
    rows = b"".join(b"\0" + bytes(rnd.getrandbits(8) for _ in range(3 * w)) for _ in range(h))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    open(name, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                           + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b""))
PY
yc n1.png -o a.jpg -q; yc n2.png -o b.jpg -q; cp a.jpg in.jpg; snap
strace -f -qq -o "$META/$NAME.reads" -e trace=read "$BIN" in.jpg -o /dev/null -q
k=$(awk '/= 262144$/ { print NR; exit }' "$META/$NAME.reads")
held_read in.jpg $((k + 1)) dd if=b.jpg of=in.jpg bs=4096 skip=75 seek=75 conv=notrunc status=none
status 1; names in.jpg; says 'changed while it was read'
[ -e o.nv12 ] && bad "an output of two pictures was written"
cp a.jpg in.jpg
ALLOW=(in.jpg); settled
end
fi

begin force-keeps-a-file-put-between-the-last-look-and-the-rename
# --force looked at the name, then renamed over it: a file put there between the two (a file moved there, a hard
# link, a symbolic link) was replaced, exit 0. The names are now swapped in one step and the file that was there
# looked at again: anything else is put back. strace holds the rename.
if ! strace -qq -o /dev/null true 2>/dev/null; then skipped "no strace (or no ptrace) here"; else
cp "$PNG" a.png; echo precious > victim; snap
for kind in moved hardlink symlink; do
  echo "was there" > out.nv12
  strace -f -qq -o /dev/null -e trace=renameat,renameat2 -e inject=renameat,renameat2:delay_enter=500000:when=1 \
    "$BIN" a.png -o out.nv12 --force -q > "$OUT" 2> "$ERR" & pid=$!
  sleep 0.25
  case $kind in
    moved) echo theirs > t; mv t out.nv12 ;;
    hardlink) rm out.nv12; ln victim out.nv12 ;;
    symlink) rm out.nv12; ln -s victim out.nv12 ;;
  esac
  wait $pid; RC=$?
  status 1; says 'out.nv12: was replaced by another file during the run'
  case $kind in
    moved) [ "$(cat out.nv12)" = theirs ] || bad "$kind: the file moved there was replaced" ;;
    hardlink) [ "$(cat out.nv12)" = precious ] || bad "$kind: the link was replaced" ;;
    symlink) [ -L out.nv12 ] || bad "$kind: the symbolic link was replaced" ;;
  esac
  rm -f out.nv12
done
[ "$(cat victim)" = precious ] || bad "the victim was written"
ALLOW=(); settled
end
fi

begin input-copied-up-while-read
# overlayfs (container storage) copies a file up when another process changes its mode: the descriptor being read
# then reports another inode number, the bytes unchanged, and the picture failed as "changed while it was read".
# Its size and times decide, not its number. (A hard-linked lower file is copied up under a new number.)
if ! strace -qq -o /dev/null true 2>/dev/null; then skipped "no strace (or no ptrace) here"; else
mkdir L U W M
/usr/bin/python3 - <<'PY'
import random, struct, zlib
rnd = random.Random(4); w, h = 700, 500
rows = b"".join(b"\0" + bytes(rnd.getrandbits(8) for _ in range(3 * w)) for _ in range(h))
chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
open("L/h.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                            + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b""))
PY
ln L/h.png L/h2.png
if ! mount -t overlay overlay -o lowerdir=L,upperdir=U,workdir=W M 2>/dev/null; then skipped "no overlayfs mount here"; else
snap
strace -f -qq -o "$META/$NAME.reads" -e trace=read "$BIN" M/h.png -o /dev/null -q
k=$(awk '/= 262144$/ { print NR; exit }' "$META/$NAME.reads")
held_read M/h.png $((k + 1)) chmod 600 M/h.png
status 0; quiet
same o.nv12 "$(ref L/h.png nv12)"
umount M
ALLOW=(o.nv12 'U' 'U/*' 'W' 'W/*' 'W/*/*' 'M/*'); settled
fi
end
fi

begin y4m-input-written-while-read
# A Y4M input written into while its frame was read: the frame mixed two versions of the file, exit 0 (an image
# input was refused so; raw YUV and Y4M inputs were not). strace holds the read after the frame's first 40 KiB.
if ! strace -qq -o /dev/null true 2>/dev/null; then skipped "no strace (or no ptrace) here"; else
/usr/bin/python3 - <<'PY'
import random
rnd = random.Random(3); w, h = 600, 400
open("in.y4m", "wb").write(b"YUV4MPEG2 W600 H400 F25:1 Ip A1:1 C420jpeg\nFRAME\n" + bytes(rnd.getrandbits(8) for _ in range(w * h * 3 // 2)))
PY
cp in.y4m kept.y4m; snap
strace -f -qq -o "$META/$NAME.reads" -e trace=read "$BIN" in.y4m -o /dev/null -f nv12 -q
k=$(awk '/read\(3, .*= 8192$/ { print NR; exit }' "$META/$NAME.reads")
held_read in.y4m $((k + 5)) dd if=/dev/zero of=in.y4m bs=4096 seek=60 count=10 conv=notrunc status=none
status 1; names in.y4m; says 'changed while it was read'
[ -e o.nv12 ] && bad "an output of two versions was written"
cp kept.y4m in.y4m
ALLOW=(in.y4m); settled
end
fi

begin update-input-changed-after-its-hash
# --update hashes an input, then converts it: one rewritten between the two (a photo being synced) gave a manifest
# line whose input was not the output's (its size not the report's), which no run could read back: the output
# stayed unrecorded, and every later --update refused it until --force. strace holds the run before the read.
if ! strace -qq -o /dev/null true 2>/dev/null; then skipped "no strace (or no ptrace) here"; else
mkdir src; cp "$PNG" src/p.png; snap
strace -f -qq -o /dev/null -e trace=linkat -e inject=linkat:delay_enter=800000 "$BIN" convert src/ -o out/ -u -q \
  > "$OUT" 2> "$ERR" & pid=$!
sleep 0.4; cat "$PNGA" > src/p.png
wait $pid; RC=$?
status 1; names src/p.png; says 'its input changed between its hashing'
[ -e out/p.nv12 ] && bad "written from an input the manifest does not describe"
run convert src/ -o out/ -u -q
status 0; same out/p.nv12 "$(ref "$PNGA" nv12)"
run convert src/ -o out/ -u
status 0; says '0 converted, 1 kept'
ALLOW=(src/p.png out 'out/*' out/.yuvconv-manifest); settled
end
fi

begin messages-name-what-was-given
# Messages about the command line say what was given: --version with --help dropped without a word; a folder with
# -o - was "many inputs"; a batch's failure to make an output's folder was listed under the output alone; a file
# with data on standard output went unnamed; a Y4M input given -s alone was told of --pix-fmt too.
cp "$PNG" a.png; mkdir -p tr/sub to; cp "$PNG" tr/sub/x.png; echo file > to/sub; printf data > old; snap
run --version --help
status 0; says '--version does nothing with --help; it is ignored'
run tr/ -o -
status 2; says 'a batch \(more than one file, a folder or a list\) writes its outputs into a folder, not to standard output'
# Two files and no -o at all: the missing folder, not standard output (no -o -, no -- was given).
run a.png tr/sub/x.png
status 2; says 'no output folder given: a batch'
# An environment value that is not UTF-8 is shown as it was given, \xNN, not as U+FFFD.
YUVCONV_CPU=$'a\xffb' yc a.png -o e.nv12 > "$OUT" 2> "$ERR"
status 2; says 'YUVCONV_CPU=a\\xFFb names no tier'
run convert tr/ -r -o to/ --name '{dir}/{stem}.{ext}' -q
status 1; says 'tr/sub/x.png: cannot write to/sub/x.nv12: to/sub is not a folder'
yc a.png -o - -f nv12 -q 1<>old 2> "$ERR"
status 2; says 'standard output is open on a file with data where writing would start \(.*/old\)'
run a.png -o a.y4m -q
run a.y4m -o a.nv12 -s 32x32
status 0; says '--size is ignored'; LC_ALL=C grep -q 'pix-fmt' "$ERR" && bad "names --pix-fmt: $(errline)"
ALLOW=(a.y4m a.nv12); settled
end

begin png-critical-chunk-after-image-data
# A critical chunk PNG does not define (ABCD) fails a file before the image data, and passed in silence after it,
# on both routes; so did a PLTE after the data (libpng's "out of place" reached no one). Now said.
/usr/bin/python3 - <<'PY'
import struct, zlib
def ch(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
sig = b"\x89PNG\r\n\x1a\n"; ih = ch(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
idat = ch(b"IDAT", zlib.compress(b"".join(b"\0" + bytes(12) for _ in range(4)))); end = ch(b"IEND", b"")
open("before.png", "wb").write(sig + ih + ch(b"ABCD", b"xx") + idat + end)
open("after.png", "wb").write(sig + ih + idat + ch(b"ABCD", b"xx") + end)
open("plte.png", "wb").write(sig + ih + idat + ch(b"PLTE", bytes(30)) + end)
PY
snap
for route in 0 1; do
  YUVCONV_PNG_LIBPNG=$route yc before.png -o b$route.nv12 > "$OUT" 2> "$ERR"
  status 1; says 'a chunk libpng does not know \(ABCD\)'
  YUVCONV_PNG_LIBPNG=$route yc after.png -o a$route.nv12 > "$OUT" 2> "$ERR"
  status 0; says 'after.png: the PNG has a critical chunk yuvconv does not know \(ABCD\) after its image data'
  YUVCONV_PNG_LIBPNG=$route yc plte.png -o p$route.nv12 > "$OUT" 2> "$ERR"
  status 0; says 'plte.png: the PNG has a PLTE chunk after its image data'
done
ALLOW=(a0.nv12 a1.nv12 p0.nv12 p1.nv12); settled
end

begin small-stack-limit
# `ulimit -s 64` (hard and soft): a single conversion passed, every batch died of SIGSEGV — the main thread's
# batch frames and each worker's (glibc gives threads the stack limit) overran 64 KiB. The command now runs on a
# stack of at least 2 MiB and its workers get one too.
cp "$JPG" r.jpg; cp "$PNG" b.png; cp "$PNGA" c.png; snap
WRAP=(bash -c 'ulimit -s 64 && exec "$@"' _)
run convert r.jpg b.png c.png -j 3 -o o/ -q
status 0
run convert r.jpg b.png -j 1 -o p/ --name '{stem}.png' --metrics --report json --chroma-filter sharp -q
status 0
WRAP=(); ALLOW=(o 'o/*' p 'p/*'); settled
same o/r.nv12 "$(ref "$JPG" nv12)"
end

begin update-report-replaced-mid-run
# --update may replace its report file without --force because it is a report; a file put at that name during
# the run (the user's notes, a link) is not one: it was renamed over at the end. Kept now, and the run fails.
cp "$PNG" a.png; cp "$PNGA" b.png; mkfifo p
yc convert a.png -o out/ --update -q --report json --report-file rep.json > "$OUT" 2> "$ERR"
status 0; snap
( sleep 1; echo "my notes" > notes.txt; mv notes.txt rep.json; timeout 5 sh -c 'cat b.png > p' ) &
LIMIT=20; run convert a.png p -o out/ --update -q --report json --report-file rep.json
wait
status 1; names rep.json; says 'was replaced during the run by another file, which is kept'
[ "$(cat rep.json)" = "my notes" ] || bad "the file put there was overwritten: $(head -c 60 rep.json)"
ALLOW=(rep.json out/p.nv12 out/.yuvconv-manifest); settled
end

begin overlay-views-are-one-file
# An overlay file system shows its layer's file under the overlay's device, with the same inode number, size and
# times: one file, two identities. With --force an output written through one view replaced the input read through
# the other (single files and batches, upper and lower layers). Refused now as any other way to one file is.
mkdir lower upper wk ov; cp "$JPG" upper/p.jpg; cp "$PNG" lower/q.png
if [ "$(id -u)" = 0 ] && mount -t overlay overlay -o lowerdir="$D/lower",upperdir="$D/upper",workdir="$D/wk" "$D/ov" 2> /dev/null; then
  MOUNTS+=("$D/ov")
  before=$(sha256sum upper/p.jpg lower/q.png)
  for args in "ov/p.jpg -o upper/p.jpg" "upper/p.jpg -o ov/p.jpg" "ov/q.png -o lower/q.png -f png" \
              "convert upper/ -o ov/ --name {name} -f jpeg" "convert ov/ -o lower/ --name {name} -f png"; do
    run $args --force -q
    status 1; says 'refusing to overwrite an input'
  done
  [ "$(sha256sum upper/p.jpg lower/q.png)" = "$before" ] || bad "an input was replaced through the other view"
  # Copied up (a chmod through the overlay): the overlay keeps the lower file's inode number, the upper layer's copy
  # has its own; only the size and times are the file's.
  cp "$PNG" lower/c.png; chmod 600 ov/c.png; before=$(sha256sum upper/c.png)
  for args in "ov/c.png -o upper/c.png -f png" "upper/c.png -o ov/c.png -f png"; do
    run $args --force -q
    status 1; says 'refusing to overwrite an input'
  done
  [ "$(sha256sum upper/c.png)" = "$before" ] || bad "a copied-up input was replaced through the other view"
  # Standard error on the other view of a raw input: a usage error's line went into it.
  head -c 1536 /dev/urandom > upper/x.nv12; before=$(sha256sum upper/x.nv12)
  timeout -s KILL 20 "$BIN" upper/x.nv12 --size 32x32 -o y.nv12 --bogus 2>> ov/x.nv12; RC=$?
  status 2; [ "$(sha256sum upper/x.nv12)" = "$before" ] || bad "a message went into the input through the other view"
  timeout -s KILL 20 "$BIN" - --size 32x32 -o y.nv12 --bogus < upper/x.nv12 2>> ov/x.nv12; RC=$?
  status 2; [ "$(sha256sum upper/x.nv12)" = "$before" ] || bad "a message went into standard input's file through the other view"
  run ov/p.jpg -o p.nv12 -q
  status 0
  umount "$D/ov" && unset 'MOUNTS[-1]'
  rm -rf wk ov p.nv12 lower/c.png upper/c.png upper/x.nv12
  end
else skipped "needs root and overlayfs"; fi

begin unwritable-folder-leaks-nothing
# Every file of a batch into a folder it cannot create in says why; no descriptor is left open per file (it
# was: from the 27th file on, "Too many open files"). A folder that takes no file at all (read-only, no
# permission) is refused once before any work; one that runs out of room for files (no inode left) is met
# file by file.
mkdir in ro; for i in $(seq 40); do cp "$CRAFT/tiny.png" "in/p$i.png"; done; snap
mount -t tmpfs -o size=64k,nr_inodes=1 tmpfs ro 2> /dev/null && MOUNTS+=("$D/ro")
if ! touch ro/.probe 2> /dev/null; then
  WRAP=(prlimit --nofile=24 --); run in -o ro/ -j 1
  status 1; settled
  LC_ALL=C grep -q 'Too many open files' "$ERR" && bad "descriptors ran out: $(LC_ALL=C grep -m1 'Too many' "$ERR")"
  [ "$(LC_ALL=C grep -c '^yuvconv: error: in/p[0-9]*.png: cannot write ro/p' "$ERR")" = 40 ] || bad "not 40 failures: $(errline)"
  end
else rm -f ro/.probe; skipped "no read-only folder"; fi
umount "$D/ro" 2> /dev/null

begin read-only-output-folder-once
# An output folder the user may not write in (mode 555), or whose missing folder cannot be made there: one error
# before any work, for the run and its dry run alike (each file failed on its own, 2 lines a file, and a dry run
# listed a refusal a file). A subfolder there that takes files still gets its outputs (each file says its own).
if [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1 && command -v runuser > /dev/null; then
  mkdir -p in/sub ro ro2/sub; for i in 1 2 3; do cp "$CRAFT/tiny.png" "in/p$i.png"; done; cp "$CRAFT/tiny.png" in/sub/q.png
  chown nobody ro2/sub; chmod 555 ro ro2; chmod -R go+rX in; chmod 755 .; chmod 711 "$WORK" "$WORK/cases"; snap
  WRAP=(runuser -u nobody --)
  for args in "in -r -o ro/" "in -r -o ro/sub/" "in -r -o ro/ -n"; do
    run $args
    status 1
    [ "$(LC_ALL=C grep -c . "$ERR")" = 1 ] || bad "$args: not one line: $(errline)"
    says 'cannot (create a file in|make the folder) ro'
  done
  settled
  run in/ -r -o ro2/ --name '{dir}/{stem}.{ext}' -q
  status 1; [ -f ro2/sub/q.nv12 ] || bad "the writable subfolder got nothing: $(errline)"
  # A re-run into a read-only folder that holds every output already writes nothing: skipped (or kept), exit 0.
  mkdir full fullu; chown nobody full fullu
  run in -r -o full/ -q; run in -r -o fullu/ -u -q; chmod 555 full fullu
  run in -r -o full/ -q
  status 0
  run in -r -o fullu/ -u -q
  status 0
  # An input touched (same content): --update keeps its output and would record the new time, which saves the next
  # run reading it again. A folder that takes no manifest failed that run and every later one, exit 1, under a report
  # that said nothing failed: a warning now, in the run and its dry run.
  touch -d '+2 seconds' in/p1.png
  for n in -n ""; do
    run in -r -o fullu/ -u -q $n
    status 0; says 'fullu/\.yuvconv-manifest.*nothing was converted: only the new times of inputs kept as up to date go unrecorded'
  done
  chmod 700 "$WORK" "$WORK/cases"
  end
else skipped "needs root and the user nobody"; fi

begin update-manifest-name-too-long
# An output folder whose path leaves no room for --update's manifest name (PATH_MAX): said as such, not as a
# manifest that cannot be read ("make it readable, or remove it", with no manifest there).
cp "$PNG" a.png; deep=.; for i in $(seq 17); do deep=$deep/$(printf 'd%.0s' {1..238}); done; deep=$deep/$(printf 'e%.0s' {1..20})
mkdir -p "$deep"; snap   # 4086 bytes: room for a.nv12 (4093), none for /.yuvconv-manifest (4104 > PATH_MAX - 1)
run a.png -o "$deep/" -u
status 1; says 'shorter path'; LC_ALL=C grep -q 'make it readable' "$ERR" && bad "advice for a manifest that is not there: $(errline)"
settled
end

begin no-op-options-warned
# Options that change nothing for this conversion draw a warning naming them: --alpha for inputs with no alpha
# (a JPEG, an RGB PNG; a batch says it once at its end when none had any), --chroma-loc for raw YUV in and out
# (the samples stay where they are, no tag carries it). Both passed in silence.
cp "$JPG" a.jpg; cp "$PNG" b.png; cp "$PNGA" c.png; head -c 1536 /dev/urandom > f.yuv; snap
run a.jpg -o a.nv12 --alpha flatten
status 0; says 'warning: --alpha flatten applies to input with alpha.*this one has none'
# About the options, not the file: no name before it (a warning under a file's name is one its report counts).
LC_ALL=C grep -q 'a.jpg: --alpha' "$ERR" && bad "said under the file's name: $(errline)"
run a.jpg b.png -o o/ --alpha premultiply -q
status 0; says '--alpha premultiply applies to input with alpha.*none of this run.s inputs has any'
run a.jpg c.png -o o2/ --alpha keep -q
status 0; LC_ALL=C grep -q -- '--alpha' "$ERR" && bad "warned with an input that has alpha: $(errline)"
run f.yuv -s 32x32 -o g.yv12 --chroma-loc left -q
status 0; says '--chroma-loc says where YUV input.s chroma sits'
ALLOW=(a.nv12 'o' 'o/*' 'o2' 'o2/*' g.yv12); settled
end

begin option-naming-a-file-twice
# A second --files-from or --report-file took the place of the first without a word: the first list's files were
# never converted, the first report never written. Refused like a second -o; and a --name that starts with '/'
# (made inside the folder, not at the absolute path it spells).
cp "$PNG" a.png; cp "$PNG" b.png; echo a.png > l1; echo b.png > l2; snap
run convert --files-from l1 --files-from l2 -o o/
status 2; says 'only one --files-from'
run report --files-from l1 --files-from l2
status 2; says 'only one --files-from'
run a.png b.png -o o/ --report json --report-file r1.json --report-file r2.json
status 2; says 'only one --report-file'
run a.png b.png -o o/ --name '/tmp/{stem}.{ext}'
status 2; says "starts with '/'"
settled
end

begin full-disk-leaves-no-partial-output
# Standard output on a file of a disk that fills: a report's lines there are whole (half a JSON line was left),
# and image data leaves none of itself (its partial frame was left after the file's earlier bytes).
mkdir full; for i in $(seq 200); do cp "$PNG" "p$i.png"; done
if mount -t tmpfs -o size=32k tmpfs full 2> /dev/null; then
  MOUNTS+=("$D/full")
  timeout -s KILL 20 "$BIN" report p*.png --report json > full/r.jsonl 2> "$ERR"; RC=$?
  status 1; says 'no space left'
  python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' full/r.jsonl 2> /dev/null || bad "a partial report line"
  rm full/r.jsonl; printf 'HDR\n' > full/x.yuv
  timeout -s KILL 20 "$BIN" "$FX/photos/kodim23.png" -o - >> full/x.yuv 2> "$ERR"; RC=$?
  status 1; says 'no space left'
  [ "$(stat -c %s full/x.yuv)" = 4 ] || bad "x.yuv is $(stat -c %s full/x.yuv) bytes, not the 4 it had"
  umount "$D/full"
  end
else skipped "no tmpfs"; fi

begin raw-frame-beyond-a-memory-limit
head -c 96000000 /dev/zero > z.nv12; snap
WRAP=(prlimit --as=100000000 --); run z.nv12 --size 8000x8000 -o a.nv21
status 1; names z.nv12; says 'out of memory'
WRAP=(prlimit --as=400000000 --); run z.nv12 --size 8000x8000 -o a.jpg
status 1; says 'out of memory'
settled
end

begin turned-pictures-beyond-a-memory-limit-two-jobs
# Two jobs asking for whole pictures at once: each file fails or converts, the batch writes its report.
python3 - <<'PY'
import zlib, struct
def ch(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
w = h = 8000; row = b"\0" + bytes((i * 7) & 255 for i in range(w * 3)); c = zlib.compressobj(9)
dat = b"".join(c.compress(row) for _ in range(h)) + c.flush()
ex = b"MM\0\x2a\0\0\0\x08" + struct.pack(">H", 1) + struct.pack(">HHII", 0x112, 3, 1, 6 << 16) + b"\0" * 4
open("rot.png", "wb").write(b"\x89PNG\r\n\x1a\n" + ch(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + ch(b"eXIf", ex)
                           + ch(b"IDAT", dat) + ch(b"IEND", b""))
PY
mkdir in; for i in 1 2 3 4; do cp rot.png "in/r$i.png"; done; rm rot.png; snap
WRAP=(prlimit --as=800000000 --); run in -o out/ -j 2 -q -u --report json --report-file out/r.json
status done
[ -f out/r.json ] || bad "no report: $(errline)"
ALLOW=(out out/* out/.yuvconv-manifest); settled
end

begin jobs-under-address-limit
# Many jobs under an address-space limit that holds a few conversions: every file converts — the batch
# starts only as many jobs as the limit holds and a job waits for room the others hold (it failed 85–99 of
# 100 files with "cannot allocate … for a conversion to work in", and `report` 296 of 300).
for i in $(seq 100); do cp "$PNG" "p$i.png"; done; snap
WRAP=(prlimit --as=400000000 --); LIMIT=60; run . -o out/ -j 64 -q
status 0
n=$(ls out 2>/dev/null | wc -l); [ "$n" = 100 ] || bad "$n of 100 converted: $(errline)"
run report . -j 64 --report csv
status 0
n=$(grep -c '\.png,true,' "$OUT"); [ "$n" = 100 ] || bad "report: $n of 100 measured: $(errline)"
ALLOW=(out out/*); settled
end

begin jobs-under-address-limit-to-jpeg
# The same with JPEG outputs, whose picture is held and encoded after its conversion: a job keeps its room
# until its output is written, and one refused memory for a picture waits for the others (4 of 16 converted).
noise_png n.png
mkdir in; for i in $(seq 16); do ln n.png "in/b$i.png"; done; rm n.png; snap
WRAP=(prlimit --as=150000000 --); LIMIT=60; run in -o out/ -j 64 -f jpeg -q
status 0
n=$(ls out 2>/dev/null | wc -l); [ "$n" = 16 ] || bad "$n of 16 converted: $(errline)"
ALLOW=(out out/*); settled
end

begin jobs-under-address-limit-turned
# 12 MP JPEGs turned by their EXIF orientation, many jobs under a limit that holds one conversion: each turned
# picture is held whole, and freed it must not stay in the heap where the next conversion's room cannot be
# had (3-4 of 12 converted, "cannot allocate 48 MiB for a conversion to work in").
noise_png n.png
"$BIN" n.png -o n.jpg -q
python3 - <<'PY'
import struct
j = open("n.jpg", "rb").read()
tiff = b"MM\0\x2a\0\0\0\x08" + struct.pack(">H", 1) + struct.pack(">HHIHH", 0x112, 3, 1, 6, 0) + b"\0" * 4
app1 = b"Exif\0\0" + tiff
open("t.jpg", "wb").write(j[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + j[2:])
PY
mkdir in; for i in $(seq 12); do ln t.jpg "in/t$i.jpg"; done; rm n.png n.jpg t.jpg; snap
WRAP=(prlimit --as=150000000 --); LIMIT=60; run in -o out/ -j 64 -q
status 0
n=$(ls out 2>/dev/null | wc -l); [ "$n" = 12 ] || bad "$n of 12 converted: $(errline)"
ALLOW=(out out/*); settled
end

begin y4m-header-tab-escaped
# A Y4M header whose words are split by tabs: the message quotes them with each tab as \x09, never raw (file
# bytes in a message are escaped, tabs and newlines too).
printf 'YUV4MPEG2\tW3\tH3\nFRAME\n' > tab.y4m; head -c 15 /dev/zero >> tab.y4m; snap
run tab.y4m -o x.nv12
status 1
names tab.y4m
says 'YUV4MPEG2\\x09W3'
if LC_ALL=C grep -q "$(printf '\t')" "$ERR"; then bad "a raw tab in the message: $(errline | cat -A)"; fi
settled
end

begin output-subfolder-replaced-by-link-mid-batch
# A {dir} folder swapped for a link to elsewhere while the batch runs: nothing is written or made through it,
# even with --force (files went there, replacing with --force; then a folder was still made there).
# (Sixteen files in a: the swap must come while some are still to be written, on a busy machine too.)
mkdir -p in/a in/b elsewhere; for i in $(seq 16); do cp "$CRAFT/slow.png" "in/a/$i.png"; done
for i in 1 2 3; do cp "$CRAFT/slow.png" "in/b/$i.png"; done
echo VICTIM > elsewhere/keep; snap
timeout -s KILL "$LIMIT" "$BIN" in/ -r -o out/ --name '{dir}/x/{stem}.nv12' -j 1 -q --force > "$OUT" 2> "$ERR" & pid=$!
for _ in $(seq 200); do [ -n "$(ls out/a 2> /dev/null)" ] && break; sleep 0.05; done
mv out/a real; ln -s ../elsewhere out/a; wait $pid; RC=$?
status 1; says 'out/a was replaced'
ALLOW=(out out/* out/*/* out/*/*/* real real/* real/*/*); settled
end

begin output-subfolder-replaced-before-its-first-use
# The same swap before the run first writes into the folder — out/b a real folder when the plan looked at it,
# a link to elsewhere by the time b's files come — once followed it: b's outputs were made in elsewhere, exit 0.
mkdir -p in/a in/b out/b elsewhere; for i in $(seq 16); do cp "$CRAFT/slow.png" "in/a/$i.png"; done
cp "$CRAFT/slow.png" in/b/1.png; echo VICTIM > elsewhere/keep; snap
timeout -s KILL "$LIMIT" "$BIN" in/ -r -o out/ --name '{dir}/{stem}.nv12' -j 1 -q > "$OUT" 2> "$ERR" & pid=$!
for _ in $(seq 200); do [ -n "$(ls out/a 2> /dev/null)" ] && break; sleep 0.05; done
mv out/b real; ln -s ../elsewhere out/b; wait $pid; RC=$?
status 1; says 'out/b was replaced'
ALLOW=(out out/* out/*/* real); settled
end

begin output-subfolder-made-a-link-before-its-first-use
# A folder missing when the run began is the run's to make: a link put in its place meanwhile is not followed.
mkdir -p in/a in/b elsewhere; for i in $(seq 16); do cp "$CRAFT/slow.png" "in/a/$i.png"; done
cp "$CRAFT/slow.png" in/b/1.png; echo VICTIM > elsewhere/keep; mkdir out; snap
timeout -s KILL "$LIMIT" "$BIN" in/ -r -o out/ --name '{dir}/{stem}.nv12' -j 1 -q > "$OUT" 2> "$ERR" & pid=$!
for _ in $(seq 200); do [ -n "$(ls out/a 2> /dev/null)" ] && break; sleep 0.05; done
ln -s ../elsewhere out/b; wait $pid; RC=$?
status 1; says 'out/b is not a folder the run made or found'
ALLOW=(out out/* out/*/*); settled
end

begin manifest-after-the-folder-was-replaced
# The manifest is written only into the folder the batch began with: not over elsewhere's file of that name.
# (24 inputs: with 6, a run beside another load could finish them all before the folder was moved: exit 0.)
mkdir in elsewhere; for i in $(seq 24); do cp "$CRAFT/slow.png" "in/$i.png"; done
echo VICTIM > elsewhere/.yuvconv-manifest; snap
timeout -s KILL "$LIMIT" "$BIN" in -o out/ -j 1 -q -u > "$OUT" 2> "$ERR" & pid=$!
for _ in $(seq 200); do [ -n "$(ls out 2> /dev/null)" ] && break; sleep 0.05; done
mv out moved; ln -s elsewhere out; wait $pid; RC=$?
# (--update's own check may meet it first: the output then "is reached through a symbolic link"; on a loaded
# machine the manifest's merge may read the file now at its name first, and refuse it as "not a yuvconv
# manifest" — its write goes through the folder the run began with, which would refuse it too.)
status 1; says 'moved or replaced|reached through a symbolic link|was replaced during the run by a file that is not'
[ "$(cat elsewhere/.yuvconv-manifest)" = VICTIM ] || bad "the other folder's file was changed"
# The journal stays with the outputs it records, in the folder the run began with.
rm -f moved/.yuvconv-manifest.journal.*
ALLOW=(out moved moved/*); settled
end

begin report-file-name-too-long
mkdir in; cp "$PNG" in/a.png; snap
n=$(printf 'a%.0s' $(seq 251)).json
run in -o out/ -n --report json --report-file "out/$n"
status 1; says 'at most 255'
run in -o out/ -q --report json --report-file "out/$n"
status 1; says 'at most 255'
[ ! -e out ] || bad "work was done: $(ls -A out | head -c 100)"
settled
end

begin replaced-file-keeps-its-acl
# With an access ACL the group bits are its mask: copied as the group's own, the owning group could read.
cp "$PNG" a.png; echo secret > o.nv12; chmod 600 o.nv12
if command -v setfacl > /dev/null && id nobody > /dev/null 2>&1 && setfacl -m u:nobody:r o.nv12 2> /dev/null; then
  snap
  run a.png -o o.nv12 --force -q
  status 0; ALLOW=(o.nv12); settled
  [ "$(getfacl -cp o.nv12 2> /dev/null | grep -c '^user:nobody:r--$')" = 1 ] || bad "the ACL entry is gone: $(getfacl -cp o.nv12 | tr '\n' ' ')"
  [ "$(getfacl -cp o.nv12 2> /dev/null | grep '^group::')" = 'group::---' ] || bad "the group gained access: $(getfacl -cp o.nv12 | tr '\n' ' ')"
  end
else skipped "no setfacl, or no ACLs here"; fi

begin signal-while-the-output-is-made
# SIGALRM within the first milliseconds, 150 times: the temporary file is registered for removal before it
# exists (it was registered after, and the handlers installed after it too: about 1 run in 130 left it).
cp "$JPG" a.jpg; snap
left=$(early_signals 150 0.006 '.out.png.yuvconv-*' a.jpg -o out.png --force)
[ "$left" = 0 ] || bad "$left of 150 runs left a temporary file"
ALLOW=(out.png); settled
end

begin output-subfolder-link-from-the-start
# A link in the output tree that was there before the run (a year's folder on another disk) is followed as
# it always was: only a folder that changes during the run fails its files.
mkdir -p in/2024 disk2/2024 out; cp "$PNG" in/2024/a.png; cp "$PNGA" in/2024/b.png; ln -s "$D/disk2/2024" out/2024; snap
run in/ -r -o out/ --name '{dir}/{stem}.nv12' -q
status 0; ALLOW=(disk2/2024/a.nv12 disk2/2024/b.nv12); settled
same disk2/2024/a.nv12 "$(ref "$PNG" nv12)"
end

begin manifest-with-impossible-numbers
# A hand-edited manifest line with a width of 0 (or a count near 2^63) stopped the process when a report was
# asked for: such a line is malformed, its output converted again. (Its checksum made anew, as someone who knows
# the format would: the checks behind it are what this tests.)
cp "$PNG" a.png; yc a.png -o out/ -u -q > /dev/null 2>&1
python3 -c "
import zlib; p='out/.yuvconv-manifest'; L=open(p).read().split('\n'); f=L[2].split('\t'); f[18]='0'; f[28]='9223372036854775807'
f[-1]='%08x' % zlib.crc32('\t'.join(f[:-1]).encode()); L[2]='\t'.join(f); open(p,'w').write('\n'.join(L))"
snap
run a.png -o out/ -u --report json --report-file out/r.json
status 0; says 'not a picture|not a count'; ALLOW=(out/*.nv12 out/.yuvconv-manifest out/r.json); settled
end

begin manifest-line-over-1-mib
# A manifest line over 1 MiB was dropped whole, its output's name with it: the warning said the output would be
# converted again, and the run then refused it as a file yuvconv never made (exit 1). The name before the
# first tab stands: the line cannot be used, the output is converted again, as the warning says.
cp "$PNG" a.png; yc a.png -o out/ -u -q > /dev/null 2>&1
python3 -c "
p='out/.yuvconv-manifest'; L=open(p,'rb').read().split(b'\\n'); f=L[2].split(b'\\t'); f[-1]=b'A'*(1<<20); L[2]=b'\\t'.join(f); open(p,'wb').write(b'\\n'.join(L))"
cp "$PNG" b.png; yc b.png -o out/ -u -q > /dev/null 2>&1
snap
# Another input's run rewrites the manifest: the cut line must stay, as its name, or a.nv12 is refused next.
run b.png -o out/ -u --force
status 0
run a.png -o out/ -u
status 0; says 'line 3: .*any output it recorded is converted again'; says 'converted 1|1 converted'; ALLOW=(out/a.nv12 out/b.nv12 out/.yuvconv-manifest); settled
end

begin manifest-with-impossible-measures
# The quality columns took any number: 1e19 dB stopped every --update --report run (SIGILL in the report's
# formatting), nan and an SSIM of 7 were "up to date" and reported. Now the line is malformed, converted again.
cp "$PNG" a.png; yc a.png -o out/ -u --metrics --report json --report-file first.json -q > /dev/null 2>&1
python3 -c "
import zlib; p='out/.yuvconv-manifest'; L=open(p).read().split('\n'); f=L[2].split('\t'); f[31]='1e19'
f[-1]='%08x' % zlib.crc32('\t'.join(f[:-1]).encode()); L[2]='\t'.join(f); open(p,'w').write('\n'.join(L))"
snap
run a.png -o out/ -u --report json --report-file out/r.json
status 0; says 'quality measure'; ALLOW=(out/*.nv12 out/.yuvconv-manifest out/r.json); settled
python3 -c "import json; [json.loads(l) for l in open('out/r.json')]" 2>/dev/null || bad "the report is not JSON lines"
end

begin folder-walk-names-what-it-cannot-reach
# Links to nothing, link loops and files below a path too long for the system were left out in silence.
mkdir l; cp "$PNG" l/ok.png; ln -s nowhere.png l/dang.png; ln -s self.png l/self.png
python3 - <<'PY'
import os
fd = os.open("l", os.O_RDONLY)
for i in range(20):
    n = ("L%02d" % i) * 80; os.mkdir(n, dir_fd=fd); nf = os.open(n, os.O_RDONLY, dir_fd=fd); os.close(fd); fd = nf
os.close(fd)
PY
snap
run l -r -o out/
status done; ALLOW=(out out/*); settled
says 'dang.png \(a link to nothing\)'; says 'self.png \(a link loop\)'; says 'longer than the system allows'
end

begin report-counts-each-file-once
mkdir in; cp "$PNG" in/a.png; snap
run report in/a.png ./in/a.png
status 2; says 'given twice'; settled
run report in in/a.png
status 2; says 'given twice'; settled
end

begin signal-in-a-two-job-batch
# A signal while two jobs make files: the other thread may be making its file while the handler sweeps.
# No new name is registered once a signal is ending the process, and the sweep is repeated (it was: about 1
# run in 10 left files).
mkdir in; for i in 1 2 3 4 5 6 7 8; do cp "$JPG" "in/r$i.jpg"; cp "$PNG" "in/p$i.png"; done; snap
left=$(early_signals 40 0.04 'out/.*.yuvconv-*' in -o out/ -j 2 -q --force)
[ "$left" = 0 ] || bad "$left of 40 runs left a temporary file"
ALLOW=(out out/*); settled
end

begin report-folder-with-a-second-name-for-a-file
# Two names of one file in a folder are two inputs, for report as for convert; one file given twice under
# one name is refused by every shard alike.
mkdir in; cp "$PNG" in/a.png; cp "$PNGA" in/b.png; ln in/a.png in/c.png; snap
run report in
status 0; settled
for s in 1/2 2/2; do
  run report in in/a.png --shard $s
  status 2; says 'given twice'
done
settled
end

begin output-folder-alias-made-mid-batch
# out/b made a link to out/a mid-run, with --force: in/b/1.png's output would replace in/a/1.png's.
mkdir -p in/a in/b; for i in $(seq 40); do cp "$CRAFT/slow.png" "in/a/$i.png"; done; cp "$PNG" in/b/1.png; snap
timeout -s KILL "$LIMIT" "$BIN" in/ -r -o out/ --name '{dir}/{stem}.nv12' -j 1 -q --force > "$OUT" 2> "$ERR" & pid=$!
for _ in $(seq 400); do [ -d out/a ] && break; sleep 0.01; done
ln -s a out/b; wait $pid; RC=$?
# (out/ is the run's own: a link made in it is not followed at all — or, met as a second name, refused as one.)
status 1; says 'is the folder|not followed'
ALLOW=(out out/* out/*/*); settled
same out/a/1.nv12 "$(ref "$D/in/a/1.png" nv12)"
end

begin report-backup-tree-with-links
# A backup tree deduplicated with links (one image in two folders under one name): two inputs, as convert
# with {dir} converts both.
mkdir -p photos/2023 photos/backup; cp "$PNG" photos/2023/img.png; ln photos/2023/img.png photos/backup/img.png
ln -s ../2023/img.png photos/backup/sym.png; snap
run report -r photos/ --report csv
status 0; settled
[ "$(LC_ALL=C grep -c 'img.png\|sym.png' "$OUT")" = 3 ] || bad "not three rows: $(head -c 200 "$OUT")"
end

begin output-folder-link-to-itself
# out/latest -> . used as the only folder of the outputs: one name, no clash.
mkdir out; ln -s . out/latest; cp "$PNG" a.png; cp "$PNGA" b.png; snap
run a.png b.png -o out/ --name 'latest/{stem}.nv12' -q
status 0; ALLOW=(out/a.nv12 out/b.nv12); settled
same out/a.nv12 "$(ref "$PNG" nv12)"
end

begin png-taller-than-libpng-limit
# The height's limit is said without the width's reason (a row's length; the rows stream): it gave it.
cp "$CRAFT/tall2m.png" a.png; snap
run a.png -o a.nv12
status 1; names a.png; says "taller than 1,000,000 pixels, the most a side yuvconv reads \(libpng's limit\) \(libpng"
settled
end

begin png-wider-than-libpng-limit
# 2,000,000x2 is a valid PNG, wider than the 1,000,000 a side libpng reads (kept: memory follows a row's
# length): said so, not called damaged. A raw frame that wide can be written as a PNG (the format allows it).
cp "$CRAFT/wide2m.png" a.png; cp "$CRAFT/wide2m.y4m" w.y4m; snap
run a.png -o a.nv12
status 1; names a.png; says 'wider than 1,000,000 pixels'
LC_ALL=C grep -qa damaged "$ERR" && bad "called damaged: $(errline)"
settled
run w.y4m -o w.png -q
status 0; ALLOW=(w.png); settled
[ "$(head -c 24 w.png 2>/dev/null | tail -c 8 | od -An -tx1 | tr -d ' \n')" = 001e848000000002 ] || bad "w.png is not 2000000x2"
end

begin jpeg-output-too-wide
# A JPEG holds at most 65500 pixels a side: said before the conversion, naming the sizes; nothing left.
cp "$CRAFT/wide70k.y4m" a.y4m; cp "$CRAFT/wide70k.png" b.png; snap
run a.y4m -o a.jpg
status 1; names a.y4m; says 'at most 65500 pixels a side.*70000x2'; settled
run b.png -o b.jpg
status 1; names b.png; says 'at most 65500 pixels a side.*70000x2'; settled
end

begin folder-at-output-name
# A folder (or a link to one) where an output goes is no output already there: a failure naming it, not a skip
# and a green run.
cp "$PNG" a.png; cp "$PNG" b.png; mkdir -p out/a.nv12; ln -s .. out/b.nv12; snap
run a.png b.png -o out/
status 1; names out/a.nv12; names out/b.nv12; settled
run a.png -o out/ -u
status 1; names out/a.nv12; settled
end

begin convert-without-inputs
# `yuvconv convert -o out/` with nothing to convert (an empty $FILES in a script) is a usage error, as for report.
snap
run convert -o out/
status 2; settled
end

begin update-dry-run-report-file
# --update makes its report anew each run: its dry run agrees (it refused the existing report file, exit 1).
cp "$PNG" a.png; snap
run a.png -o out/ -u -q --report csv --report-file out/r.csv
status 0
run a.png -o out/ -u -n --report csv --report-file out/r.csv
status 0; ALLOW=(out out/a.nv12 out/r.csv out/.yuvconv-manifest); settled
end

begin report-totals-count-skipped
# Every input is accounted for in the totals: images + failed + skipped (+ not started).
cp "$PNG" a.png; cp "$PNG" b.png; mkdir out; cp "$(ref "$PNG" nv12)" out/a.nv12; snap
run a.png b.png -o out/ --report json -q
status 0; ALLOW=(out/b.nv12); settled
tail -n 1 "$OUT" | grep -q '"images": 1, "failed": 0, "skipped": 1, "not_started": 0' || bad "totals: $(tail -n 1 "$OUT" | head -c 120)"
head -n 1 "$OUT" | grep -q '"file": "a.png", "ok": true, "skipped": ' || bad "no line for the skipped a.png: $(head -n 1 "$OUT" | head -c 120)"
end

begin raw-frame-that-looks-like-an-image
# A raw frame of exactly the size given whose first luma bytes are FF D8 FF (bright pixels) or spell
# "YUV4MPEG2 " is raw YUV, not a damaged JPEG or Y4M; a real JPEG given a --size it does not match is still
# read as the JPEG (with a warning).
python3 -c "
import random
r = random.Random(5); y = bytearray(r.randrange(256) for _ in range(64 * 48)); c = bytes(r.randrange(256) for _ in range(64 * 24))
y[0:3] = b'\xff\xd8\xff'; open('a.nv12', 'wb').write(bytes(y) + c)
y[0:10] = b'YUV4MPEG2 '; open('b.yuv', 'wb').write(bytes(y) + c)
y[0:10] = b'\x10\x20\x30YUV4MPE'; open('c.nv12', 'wb').write(bytes(y) + c)"
cp "$JPG" d.jpg; snap
run a.nv12 -s 64x48 -o a.png -q
status 0; ALLOW=(a.png); settled
run b.yuv -s 64x48 --pix-fmt nv12 -o b.png -q
status 0; ALLOW=(a.png b.png); settled
# The same samples after the first three: the same picture below the top row's first pixels.
yc c.nv12 -s 64x48 -o c.png -q 2> "$ERR"; status 0
run d.jpg -s 64x48 -o d.nv12
status 0; says 'ignore'; same d.nv12 "$(ref "$JPG" nv12)"
# A real JPEG whose byte count happens to be one frame of the --size given is still the JPEG.
cp "$JPG" e.jpg; truncate -s $((320 * 240 * 3 / 2)) e.jpg
run e.jpg -s 320x240 -o e.nv12
status 0; says 'ignore'; same e.nv12 "$(ref "$D/e.jpg" nv12)"
# Read as raw, the frame's samples are the frame's: its luma, moved to another layout, is its first 64x48 bytes.
yc a.nv12 -s 64x48 -o a.yuv -q 2> "$ERR"; status 0
cmp -s <(head -c 3072 a.yuv) <(head -c 3072 a.nv12) || bad "a.nv12's luma is not a.yuv's"
# The same frame on standard input, from a pipe and from the file, is the same raw frame (it was "a marker
# libjpeg does not know"); a real JPEG of that byte count on a pipe is still the JPEG.
yc - -s 64x48 -o f.png -q < <(cat a.nv12) 2> "$ERR"; status 0; cmp -s f.png a.png || bad "from a pipe: not a.nv12's picture"
yc - -s 64x48 -o g.png -q < a.nv12 2> "$ERR"; status 0; cmp -s g.png a.png || bad "from standard input: not a.nv12's picture"
yc - -s 320x240 -o h.nv12 < <(cat e.jpg) 2> "$ERR"; status 0; says 'ignore'; same h.nv12 "$(ref "$D/e.jpg" nv12)"
# A JPEG on a pipe its writer keeps open, with a --size it does not match: read as the JPEG from its first bytes,
# not after a frame's worth or the pipe's end (it waited the 3 s, holding a frame of 16384x16384).
yc - -s 16384x16384 -o i.nv12 -q < <(cat "$JPG"; sleep 3) 2> "$ERR"; status 0; within 2000
same i.nv12 "$(ref "$JPG" nv12)"
end

begin quiet-keeps-option-warnings
# -q drops the per-image lines only: a warning that an option did nothing still prints (cli.md), or a user who
# gave --size to a JPEG would not learn it was ignored.
cp "$JPG" a.jpg; snap
run a.jpg -s 64x48 -o a.nv12 -q
status 0; says 'ignore'; ALLOW=(a.nv12); settled
run a.jpg -o b.nv12 -q --quality 80
status 0; says 'quality'; ALLOW=(a.nv12 b.nv12); settled
# Standard error shared with the data (-o - -q > f 2>&1) is silenced: the warning must not land in the frame.
yc a.jpg -o - -q --quality 80 > c.nv12 2>&1
status 0; ALLOW=(a.nv12 b.nv12 c.nv12); settled; same c.nv12 "$(ref "$JPG" nv12)"
end

begin closed-pipe-and-closed-stdout-for-text
# --help, --man and a dry run write text to standard output: a reader that closes the pipe is a write error
# (exit 1), never death by SIGPIPE (141); a standard output closed at start loses the text, an error too.
cp "$PNG" a.png; snap
for args in "--help" "--man" "a.png -o b.nv12 -n"; do
  # The reader closes its end at once, before the tool has started writing.
  ( timeout -s KILL 20 "$BIN" $args 2> "$ERR" | { exec 0<&-; sleep 0.3; }; exit "${PIPESTATUS[0]}" ); RC=$?
  ELAPSED_MS=0; status done
  yc $args >&- 2> "$ERR"; status 1; says 'standard output is closed'
done
settled
end

begin jpeg-pipe-writer-stays-open
# A JPEG on a pipe whose writer keeps it open after the image (a coprocess, a camera between frames) is
# converted when its last byte arrives, as PNG and Y4M are: the source read 256 KiB with fread, which waits
# for the buffer to fill or the writer to close.
cp "$JPG" a.jpg; snap
t0=$(date +%s%N)
(cat a.jpg; sleep 3) | { timeout -s KILL 20 "$BIN" - -o b.nv12 -q 2> "$ERR"; echo $? > "$META/$NAME.rc"; date +%s%N > "$META/$NAME.t"; }
RC=$(cat "$META/$NAME.rc"); ELAPSED_MS=$(( ($(cat "$META/$NAME.t") - t0) / 1000000 ))
status 0; within 2000; same b.nv12 "$(ref "$JPG" nv12)"; ALLOW=(b.nv12); settled
end

begin wide-gamut-outputs-carry-their-profile
# A PNG or JPEG output whose colours are Display P3 or BT.2020 carries that profile (iCCP; APP2 ICC_PROFILE):
# untagged, every viewer showed them as sRGB (73-86 code values off). sRGB outputs stay untagged, and a
# tagged output read back by yuvconv is transformed from its profile.
cp "$here/Fixtures/colour/kodim23-p3.jpg" a.jpg; snap
run a.jpg -o p3.png --primaries p3 -q
status 0
run a.jpg -o p3.jpg --primaries p3 -q
status 0
run a.jpg -o bt.png --matrix bt2020 -q
status 0
run a.jpg -o srgb.png -q
status 0; ALLOW=(p3.png p3.jpg bt.png srgb.png); settled
python3 - 2> "$META/$NAME.py" <<'PY' || bad "profiles: $(tail -n 1 "$META/$NAME.py")"
import sys
def chunks(d):
    i, out = 8, []
    while i + 8 <= len(d):
        n = int.from_bytes(d[i:i + 4], "big"); out.append(d[i + 4:i + 8]); i += 12 + n
    return out
p3, bt, srgb, jpg = (open(f, "rb").read() for f in ("p3.png", "bt.png", "srgb.png", "p3.jpg"))
assert b"iCCP" in chunks(p3) and p3.find(b"Display P3\0") > 0, "p3.png has no Display P3 iCCP"
assert b"iCCP" in chunks(bt) and bt.find(b"BT.2020\0") > 0, "bt.png has no BT.2020 iCCP"
assert b"iCCP" not in chunks(srgb), "srgb.png is tagged"
assert jpg.find(b"\xff\xe2") > 0 and jpg.find(b"ICC_PROFILE\0\x01\x01") > 0, "p3.jpg has no APP2 profile"
PY
# From YUV input too: a BT.2020 frame drawn as a PNG or JPEG carries BT.2020's profile.
yc bt.png --matrix bt2020 -o bt.y4m -q 2> "$ERR"; status 0
yc bt.y4m --matrix bt2020 -o bt2.png -q 2> "$ERR"; status 0
yc bt.y4m --matrix bt2020 -o bt2.jpg -q 2> "$ERR"; status 0
LC_ALL=C grep -qa 'BT.2020' bt2.png && LC_ALL=C grep -qa 'ICC_PROFILE' bt2.jpg || bad "a BT.2020 Y4M drawn back is untagged"
ALLOW=(p3.png p3.jpg bt.png srgb.png bt.y4m bt2.png bt2.jpg); settled
run p3.png -o back.nv12 --report json
status 0; grep -q '"color_management": "Display P3 .* sRGB"' "$OUT" || bad "p3.png read back: $(grep -o '"color_management": "[^"]*"' "$OUT")"
end

begin png-cicp-exif-prefix-and-profile-names
# A cICP chunk (PNG's third edition, ahead of iCCP/sRGB) is applied when it is a space yuvconv converts
# (Display P3 with the sRGB curve) and said when it is not (BT.2020 PQ: HDR) - it was ignored without a word;
# an eXIf that keeps JPEG's "Exif\0\0" prefix is read (Pillow and exiftool do); a profile's description is
# shown in UTF-8 (LittleCMS's ASCII reader made "Ecran" with an acute E into a lone byte).
python3 - "$here/Fixtures/colour/DisplayP3.icc" <<'PY'
import struct, sys, zlib
def chunk(t, x): return struct.pack(">I", len(x)) + t + x + struct.pack(">I", zlib.crc32(t + x))
def png(w, h, extra):
    raw = b"".join(b"\0" + bytes((x * 40 + y * 9) % 256 for x in range(3 * w)) for y in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + extra
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
open("p3.png", "wb").write(png(5, 3, chunk(b"cICP", bytes([12, 13, 0, 1]))))
open("pq.png", "wb").write(png(5, 3, chunk(b"cICP", bytes([9, 16, 0, 1]))))
tiff = b"MM\0\x2a\0\0\0\x08\0\x01" + b"\x01\x12\0\x03\0\0\0\x01\0\x06\0\0" + b"\0\0\0\0"
open("exif.png", "wb").write(png(5, 3, chunk(b"eXIf", b"Exif\0\0" + tiff)))
icc = bytearray(open(sys.argv[1], "rb").read())
i = icc.find("Display P3".encode("utf-16-be")); icc[i:i + 20] = "\u00c9cran P3 \u65e5\u672c".encode("utf-16-be")[:20]
open("desc.png", "wb").write(png(5, 3, chunk(b"iCCP", b"x\0\0" + zlib.compress(bytes(icc)))))
icc[i:i + 20] = "P3\u202egnp\u2028x\u0085y\u009bz".encode("utf-16-be")[:20]
open("bidi.png", "wb").write(png(5, 3, chunk(b"iCCP", b"x\0\0" + zlib.compress(bytes(icc)))))
PY
snap
run p3.png -o p3.nv12 --report json
status 0; grep -q '"color_management": "PNG cICP Display P3 .* sRGB"' "$OUT" || bad "p3.png: $(grep -o '"color_management": "[^"]*"' "$OUT")"
run pq.png -o pq.nv12
status 0; says 'cICP .*primaries 9, transfer 16'
run exif.png -o exif.nv12 --report json
status 0; grep -q '"width": 3, "height": 5' "$OUT" || bad "exif.png not turned: $(grep -o '"width": [0-9]*, "height": [0-9]*' "$OUT")"
run desc.png -o desc.nv12 --report json
status 0; LC_ALL=C grep -q $'"color_management": "\xc3\x89cran P3 \xe6\x97\xa5' "$OUT" || bad "desc.png: $(grep -o '"color_management": "[^"]*"' "$OUT" | cat -v)"
# Characters that reorder or split a line (U+202E, U+2028) and C1 controls are escaped in reports too.
run bidi.png -o bidi.nv12 --report json
status 0; grep -q '"color_management": "P3\\\\u{202E}gnp\\\\u{2028}x\\\\u{85}y ' "$OUT" || bad "bidi.png: $(grep -o '"color_management": "[^"]*"' "$OUT" | cat -v)"
# The whole cICP warning (it was cut off: "transfer 13 o").
run pq.png -o pq2.nv12
says 'transfer 13 or 8\); colours used as stored'
# yuvconv report says it too (it only counted it in "warnings").
run report pq.png
status 0; says 'pq.png: the PNG.s cICP'

ALLOW=(p3.nv12 pq.nv12 pq2.nv12 exif.nv12 desc.nv12 bidi.nv12); settled
end

begin png-iccp-and-srgb-either-order
# A PNG holding both iCCP and sRGB: the profile wins whatever the order (PNG's precedence). With sRGB first,
# libpng refused the profile ("iCCP: too many profiles") and the same picture came out in other colours.
python3 - "$here/Fixtures/colour/DisplayP3.icc" <<'PY'
import struct, sys, zlib
def chunk(t, x): return struct.pack(">I", len(x)) + t + x + struct.pack(">I", zlib.crc32(t + x))
raw = b"".join(b"\0" + bytes((x * 40 + y * 9) % 256 for x in range(3 * 8)) for y in range(4))
iccp = chunk(b"iCCP", b"P3\0\0" + zlib.compress(open(sys.argv[1], "rb").read())); srgb = chunk(b"sRGB", b"\0")
for name, extra in (("a.png", iccp + srgb), ("b.png", srgb + iccp)):
    open(name, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 4, 8, 2, 0, 0, 0)) + extra
                           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
PY
snap
run a.png -o a.nv12 -q
status 0
run b.png -o b.nv12
status 0; LC_ALL=C grep -q 'Display P3' "$ERR" || bad "b.png: $(errline)"; ALLOW=(a.nv12 b.nv12); settled
cmp -s a.nv12 b.nv12 || bad "the two orders give different bytes"
end

begin nonblocking-stdin-slow-writer
# Standard input left non-blocking by the parent (O_NONBLOCK on the pipe), its writer slow: no data yet is
# not the end of the file (a JPEG was "damaged", a PNG "Resource temporarily unavailable").
cp "$JPG" a.jpg; cp "$PNG" a.png; snap
for f in a.jpg a.png; do
  python3 - "$BIN" "$f" "$META/$NAME.out.nv12" <<'PY' 2> "$ERR"; RC=$?
import fcntl, os, subprocess, sys, time
r, w = os.pipe()
fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_NONBLOCK)
data = open(sys.argv[2], "rb").read()
p = subprocess.Popen(["timeout", "-s", "KILL", "20", sys.argv[1], "-", "-o", sys.argv[3], "-q", "--force"], stdin=r)
os.close(r)
try:
    os.write(w, data[:1000]); time.sleep(0.3); os.write(w, data[1000:])
except BrokenPipeError:
    pass
os.close(w)
sys.exit(p.wait())
PY
  ELAPSED_MS=0; status 0
  same "$META/$NAME.out.nv12" "$(ref "$D/$f" nv12)"
done
rm -f "$META/$NAME.out.nv12"; settled
end

begin y4m-xyscss-alone
# XYSCSS=420P10 with no C tag is 10-bit (as FFmpeg reads it), not 8-bit words read as bytes; a C tag and an
# XYSCSS of another depth contradict each other and are refused.
python3 -c "import struct,sys; sys.stdout.buffer.write(b'YUV4MPEG2 W2 H2 F25:1 Ip A1:1 XYSCSS=420P10 XCOLORRANGE=FULL\nFRAME\n'+struct.pack('<6H',1023,1023,1023,1023,512,512))" > a.y4m
printf 'YUV4MPEG2 W2 H2 F25:1 C420jpeg XYSCSS=420P10\nFRAME\n' > b.y4m; head -c 12 /dev/zero >> b.y4m; snap
run a.y4m -o a.yuv420p10le -q
status 0; ALLOW=(a.yuv420p10le); settled
[ "$(od -An -tx1 a.yuv420p10le | tr -d ' \n')" = ff03ff03ff03ff0300020002 ] || bad "a.yuv420p10le: $(od -An -tx1 a.yuv420p10le | tr -d '\n')"
run b.y4m -o b.nv12
status 1; names b.y4m; says 'C420jpeg and XYSCSS=420P10'; ALLOW=(a.yuv420p10le); settled
# A value in another case, or one that names no colour space, is no contradiction (FFmpeg reads them).
printf 'YUV4MPEG2 W2 H2 F25:1 C420jpeg XYSCSS=420jpeg\nFRAME\n' > c.y4m; head -c 6 /dev/zero >> c.y4m
run c.y4m -o c.nv12 -q
status 0; ALLOW=(a.yuv420p10le c.y4m c.nv12); settled
# Values match in their own case, as FFmpeg matches them: XYSCSS=420p10 alone is 8-bit (ffprobe: yuv420p), with a
# warning; it was read as 10-bit and refused as cut short.
printf 'YUV4MPEG2 W2 H2 F25:1 XYSCSS=420p10\nFRAME\n\020\040\060\100\120\140' > d.y4m
run d.y4m -o d.yuv420p
status 0; says 'XYSCSS=420p10 is ignored, as FFmpeg ignores it'; ALLOW=(a.yuv420p10le c.y4m c.nv12 d.y4m d.yuv420p); settled
[ "$(od -An -tx1 d.yuv420p | tr -d ' \n')" = 102030405060 ] || bad "d.yuv420p: $(od -An -tx1 d.yuv420p | tr -d '\n')"
# By prefix, as FFmpeg matches them: XYSCSS=422p10 is 4:2:2 (ffprobe: yuv422p), refused as C422 is (it was read as
# 8-bit 4:2:0 with a warning that FFmpeg ignores it); XYSCSS=420P10X is 10-bit (it was read as 8-bit, no word).
printf 'YUV4MPEG2 W4 H2 F25:1 XYSCSS=422p10\nFRAME\n' > f.y4m; head -c 16 /dev/zero >> f.y4m
run f.y4m -o f.png
status 1; names f.y4m; says 'XYSCSS=422p10 is not supported'; ALLOW=(a.yuv420p10le c.y4m c.nv12 d.y4m d.yuv420p f.y4m); settled
python3 -c "import struct,sys; sys.stdout.buffer.write(b'YUV4MPEG2 W2 H2 XYSCSS=420P10X\nFRAME\n'+struct.pack('<6H',1,2,3,4,5,6))" > g.y4m
run g.y4m -o g.yuv420p10le -q
status 0; ALLOW=(a.yuv420p10le c.y4m c.nv12 d.y4m d.yuv420p f.y4m g.y4m g.yuv420p10le); settled
[ "$(od -An -tx1 g.yuv420p10le | tr -d ' \n')" = 010002000300040005000600 ] || bad "g.yuv420p10le: $(od -An -tx1 g.yuv420p10le | tr -d '\n')"
end

begin y4m-keeps-rate-and-aspect
# Y4M to Y4M keeps the frame rate and pixel aspect (an anamorphic frame would play stretched without it).
printf 'YUV4MPEG2 W4 H2 F30000:1001 It A10:11 C420mpeg2 XCOLORRANGE=LIMITED\nFRAME\n' > a.y4m; head -c 12 /dev/zero >> a.y4m; snap
run a.y4m -o b.y4m -q
status 0; ALLOW=(b.y4m); settled
head -n 1 b.y4m | grep -q ' F30000:1001 It A10:11 C420mpeg2 ' || bad "b.y4m header: $(head -n 1 b.y4m)"
end

begin align-to-stream-holds-tight-chroma
# To a pipe the chroma waits for the luma plane: held tight, padded as it goes out. Padded, a 1-pixel-wide
# picture's 50,000 chroma rows took 1 KiB each (100 MiB here; 4 GB for 1x999999 with --align 4096).
cp "$CRAFT/tall100k.png" a.png; snap
memwrap; yc a.png -o - -f yuv420p --align 1024 -q > "$META/$NAME.bytes" 2> "$ERR"
status 0; rss_below 60; settled
[ "$(stat -c %s "$META/$NAME.bytes")" = $((100000 * 1024 + 2 * 50000 * 1024)) ] || bad "not the padded frame's size"
WRAP=(); yc a.png -o b.yuv -f yuv420p --align 1024 -q 2> "$ERR"
cmp -s b.yuv "$META/$NAME.bytes" || bad "the piped frame differs from the file"
rm -f b.yuv "$META/$NAME.bytes"
end

begin dry-run-agrees-on-inputs
# The dry run refuses what the run would fail on before converting: a missing input, a folder in a list, an
# output name that is a link into a folder that does not exist; its exit status is the run's.
cp "$PNG" a.png; mkdir sub; cp "$PNG" sub/b.png; printf 'a.png\nmissing.png\nsub\n' > list
mkdir o2; ln -s /nonexistent-yuvconv/x o2/a.nv12; snap
run convert --files-from list -o out/ -n
status 1; LC_ALL=C grep -q '^refuse missing.png' "$OUT" || bad "missing.png not refused: $(head -c 200 "$OUT")"
LC_ALL=C grep -q '^refuse sub ' "$OUT" || bad "sub not refused"
run a.png -o o2/ -n
status 1; LC_ALL=C grep -q '^refuse a.png' "$OUT" || bad "the dangling link not refused: $(head -c 200 "$OUT")"
settled
end

begin names-that-reorder-lines
# A name holding U+202E (right-to-left override) or U+2028 (line separator) would reorder or split the line
# that shows it (a terminal, a CI log viewer): shown as \u{NNNN} in messages and reports.
cp "$PNG" $'rtl\u202egnp.exe.png'; cp "$PNG" $'y\u2028z.png'; snap
run $'rtl\u202egnp.exe.png.missing' -o x.nv12
status 1; says 'rtl\\u\{202E\}gnp'
LC_ALL=C grep -qa $'\u202e\|\u2028' "$ERR" && bad "stderr holds the raw characters"
run $'y\u2028z.png.missing' -o x.nv12
status 1; says 'y\\u\{2028\}z'
LC_ALL=C grep -qa $'\u202e\|\u2028' "$ERR" && bad "stderr holds the raw characters"
run report $'rtl\u202egnp.exe.png' --report json
status 0; LC_ALL=C grep -qa $'\u202e' "$OUT" && bad "the report holds U+202E raw"
settled
end

begin csv-formula-names
# A name a spreadsheet would run as a formula (=HYPERLINK(...)) is defused in CSV with a leading '.
cp "$PNG" '=HYPERLINK("http:evil","x").png'; cp "$PNG" '@x.png'; snap
run report '=HYPERLINK("http:evil","x").png' '@x.png' --report csv
status 0; settled
LC_ALL=C grep -q "^\"'=HYPERLINK" "$OUT" || bad "=HYPERLINK not defused: $(sed -n 2p "$OUT" | head -c 80)"
LC_ALL=C grep -q "^'@x.png," "$OUT" || bad "@x.png not defused"
end

begin update-manifest-named-as-input
# The manifest named as an input of an --update run: refused before any work (it was found only at the end,
# after b.png was converted and left out of the manifest).
cp "$PNG" a.png; cp "$PNG" b.png
yc a.png -o o/ -u -q 2>/dev/null; snap
run b.png o/.yuvconv-manifest -o o/ -u
status 1; names o/.yuvconv-manifest; settled
end

begin png-huge-exif
# An eXIf chunk is bounded like the other chunks yuvconv reads (8 MiB): one of 200 MB is skipped with a
# warning, not held (it took 390 MiB and 4.6 s).
cp "$CRAFT/bigexif.png" a.png; snap
memwrap; run a.png -o a.nv12
status 0; rss_below 60; within 3000; says 'eXIf'; ALLOW=(a.nv12); settled
end

begin force-in-append-only-folder
# A folder whose entries cannot be renamed or removed (chattr +a): a new output is linked straight to its name
# (with --force too), and replacing one is refused before a temporary name is made (one was left behind).
mkdir ap
if ! chattr +a ap 2>/dev/null; then skipped "no chattr +a here"; else
cp "$PNG" a.png; snap
run a.png -o ap/new.nv12 --force -q
status 0
run a.png -o ap/new.nv12 --force -q
status 1; names ap/new.nv12; says 'append-only'
ALLOW=(ap/new.nv12); settled
chattr -a ap
end
fi

begin report-rawvideo-args-only-for-raw
# ffmpeg's rawvideo options describe raw planes: for a PNG or JPEG output they are empty, and a Y4M gets only the
# colour tags (rawvideo options fed to ffmpeg with a Y4M gave a picture at 11 dB, without an error).
cp "$PNG" in.png; snap
for f in png jpg; do
  run in.png -o "a.$f" -q --report json
  status 0
  LC_ALL=C grep -q '"ffmpeg_rawvideo_input": ""' "$OUT" || bad "a.$f: $(grep -o '"ffmpeg_rawvideo_input": "[^"]*"' "$OUT" | head -c 80)"
done
# A Y4M gets the tags its header lacks, and no rawvideo options.
run in.png -o a.y4m -q --report json
LC_ALL=C grep -q '"ffmpeg_rawvideo_input": "-color_range pc -colorspace bt709 ' "$OUT" || bad "a.y4m: $(grep -o '"ffmpeg_rawvideo_input": "[^"]*"' "$OUT" | head -c 80)"
run in.png -o a.nv12 -q --report json
LC_ALL=C grep -q '"ffmpeg_rawvideo_input": "-f rawvideo' "$OUT" || bad "a.nv12 has no rawvideo options"
ALLOW=(a.y4m a.png a.jpg a.nv12); settled
end

begin one-stream-two-names
# One pipe or FIFO under two names (- and /dev/stdin, a FIFO and a link to it) would hand each job part of its
# bytes and fail both as damaged: refused before any work.
cp "$PNG" a.png; mkfifo f; ln -s f fl; snap
yc report - /dev/stdin < <(cat a.png) > "$OUT" 2> "$ERR"
status 2; says 'one stream'
run report f fl
status 2; says 'one stream'; settled
# The same in a list: the FIFO listed twice (or under its link), /dev/stdin listed when the list is standard
# input. Each failed as "damaged" or "no writer"; refused (exit 2) like the operands.
printf 'f\nfl\n' > list
run convert --files-from list -o o/ -q
status 2; says 'one stream'
yc convert --files-from - -o o/ -q < <(printf '/dev/stdin\n') > "$OUT" 2> "$ERR"
status 2; says 'one stream'
ALLOW=(list); settled
end

begin png-exif-damaged-or-twice
# A damaged eXIf (bad CRC) is not acted on; of two eXIf chunks the first counts, with a warning for the second.
cp "$CRAFT/exif-bad-crc.png" a.png; cp "$CRAFT/exif-twice.png" b.png; cp "$CRAFT/exif-none.png" c.png; snap
run a.png -o a.nv12 -q
status 0; same a.nv12 "$(ref "$PWD/c.png" nv12)"
run b.png -o b.nv12 -q
status 0; says 'second eXIf'; same b.nv12 "$(ref "$CRAFT/exif6.png" nv12)"
ALLOW=(a.nv12 b.nv12); settled
end

begin align-to-stream-every-layout
# Padded frames to a pipe equal the same frames written to a file: bi-planar, plane padding, an A plane.
cp "$PNGA" a.png; snap
for args in "-f nv12 --align 64 --align-height 16" "-f nv21 --align 7 --alpha keep" "-f yv12 --align-height 5 --alpha keep" "-f p010 --align 128 --align-height 3"; do
  yc a.png -o - $args -q > "$META/$NAME.pipe" 2> "$ERR"
  status 0
  yc a.png -o b.out $args -q --force 2> "$ERR"
  cmp -s b.out "$META/$NAME.pipe" || bad "$args: the piped frame differs from the file"
done
rm -f b.out; settled
end

begin sigint-delivered-twice
# `timeout -s INT` sends SIGINT to the child and again to its process group: the same signal twice within
# 250 ms is one request to stop (the second ended the run at once, losing its summary, report and manifest).
mkdir in; for i in $(seq 100); do cp "$CRAFT/slow.png" "in/s$i.png"; done; snap
r=$(python3 - "$BIN" <<'PY' 2> "$ERR"
import glob, signal, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "in/", "-o", "out/", "-j", "1", "-q"], stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
# Once the batch is under way (a fixed 0.3 s was past the end of 30 files on a fast machine: exit 0, "30 converted").
for _ in range(2000):
    if glob.glob("out/s*.nv12") or p.poll() is not None: break
    time.sleep(0.005)
p.send_signal(signal.SIGINT); time.sleep(0.001); p.send_signal(signal.SIGINT)
err = p.communicate(timeout=20)[1]
sys.stderr.buffer.write(err)
print(p.returncode)
PY
)
[ "$r" = 130 ] || bad "exit $r (a negative one: killed by the second signal)"
says 'not started \(interrupted\)'
ALLOW=(out out/s*.nv12); settled
end

begin update-hash-interrupted
# --update hashes an input whose time changed (and every input it converts): a valid JPEG with a 1 GiB sparse
# tail took 3.5 s to hash, and SIGINT was not looked at meanwhile (planning: the run went on to "1 skipped" and
# exit 0; converting: exit 130 only after the whole hash). Now the hash stops at the signal. And a manifest with
# two lines for one output trusts neither (the later one won, keeping an output made with other options).
mkdir in; cp "$JPG" in/s.jpg; truncate -s 1G in/s.jpg; cp "$PNG" in/a.png; snap
run in/ -o out/ --update -q
status 0
cp out/.yuvconv-manifest kept
python3 -c "
import re, sys, zlib
L = open('kept').read().split('\\n'); out = L[:2]
for l in L[2:]:
    out.append(l)
    if l:
        f = re.sub(r'(\\t[^\\t]*matrix=[^\\t]*)', r'\\1x', l, count=1).split('\\t')
        f[-1] = '%08x' % zlib.crc32('\\t'.join(f[:-1]).encode()); out.append('\\t'.join(f))
open('out/.yuvconv-manifest', 'w').write('\\n'.join(out))"
run in/ -o out/ --update --dry-run
status 0; says 'a second entry for the same output'
LC_ALL=C grep -q '^replace in/s.jpg' "$OUT" || bad "two entries, dry run: $(head -c 120 "$OUT")"
mv kept out/.yuvconv-manifest
touch in/s.jpg
# The dry run stopped by SIGINT in that hash: the lines decided and the summary come out (it printed nothing).
r=$(python3 - "$BIN" <<'PY' 2> "$ERR"
import signal, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "in/", "-o", "out/", "--update", "-n"], stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
time.sleep(0.3)
p.send_signal(signal.SIGINT)
out, err = p.communicate(timeout=60)
sys.stderr.buffer.write(out + err)
print(p.returncode)
PY
)
[ "$r" = 130 ] || bad "dry run stopped by SIGINT: exit $r (130 wanted)"
says '^skip in/a.png'; says '1 not decided \(interrupted\)'
r=$(python3 - "$BIN" <<'PY' 2> "$ERR"
import signal, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "in/", "-o", "out/", "--update", "-q"], stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
time.sleep(0.3)
t = time.monotonic(); p.send_signal(signal.SIGINT)
err = p.communicate(timeout=60)[1]
sys.stderr.buffer.write(err)
print(p.returncode, int((time.monotonic() - t) * 1000))
PY
)
[ "${r% *}" = 130 ] || bad "exit ${r% *} after SIGINT during the hash (130 wanted)"
(( ${r#* } < 3000 )) || bad "ended ${r#* } ms after SIGINT"
says 'not started \(interrupted\)'
cmp -s out/s.nv12 "$(ref "$JPG" nv12)" || bad "the output kept was altered"
LC_ALL=C grep -q '^s\.nv12	' out/.yuvconv-manifest || bad "the manifest entry of the output kept was dropped"
# SIGINT while the write waits for another run's lock on the folder: the manifest is not written (it was written
# without the lock, beside the run holding it, and the run exited 0).
rm -f in/s.jpg out/s.nv12; cp "$PNG" in/p.png; cp out/.yuvconv-manifest kept
flock out sleep 8 & holder=$!
sleep 0.2
r=$(python3 - "$BIN" <<'PY' 2> "$ERR"
import signal, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "in/", "-o", "out/", "--update", "-q"], stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
time.sleep(1.5)
p.send_signal(signal.SIGINT)
err = p.communicate(timeout=60)[1]
sys.stderr.buffer.write(err)
print(p.returncode)
PY
)
kill $holder 2>/dev/null; wait $holder 2>/dev/null
[ "$r" = 130 ] || bad "SIGINT while waiting for the lock: exit $r (130 wanted)"
cmp -s kept out/.yuvconv-manifest || bad "the manifest was written after SIGINT during the wait for the lock"
# (Not written: the run's journal stays, with p.nv12's line, for the next run to record.)
LC_ALL=C grep -q '^p\.nv12	' out/.yuvconv-manifest.journal.* 2>/dev/null || bad "no journal of p.nv12 left"
rm -f kept out/.yuvconv-manifest.journal.*
ALLOW=(in in/s.jpg in/p.png out out/s.nv12 out/a.nv12 out/p.nv12 out/.yuvconv-manifest); settled
end

begin header-messages
# A JPEG whose frame header gives a width of 0 was said to give "its height in a DNL marker"; a {dir} that is
# `..` (a folder given without its trailing slash) blamed only the template.
python3 - "$JPG" w0.jpg <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = 2
while b[i + 1] not in (0xC0, 0xC1, 0xC2): i += 2 + int.from_bytes(b[i + 2:i + 4], "big")
b[i + 7:i + 9] = b"\0\0"
open(sys.argv[2], "wb").write(b)
PY
mkdir -p sub/in; cp "$PNG" sub/in/a.png; snap
run w0.jpg -o x.nv12
status 1; says 'w0.jpg.*gives a width, height or number of components of 0'
cd sub/in; yc .. -r -o ../out/ --name '{dir}/{stem}.png' > "$OUT" 2> "$ERR"; cd "$D"
status 2; says "\\{dir\\} includes a folder given without a trailing '/'"
# The picture on standard output, the report on standard error: the report alone there (the per-image line
# came first, so the JSON Lines did not parse).
# A Y4M header that gives a tag twice with two values was read by its last one (W8 … W16 read as 16 wide).
{ printf 'YUV4MPEG2 W8 H16 W16 C420jpeg\nFRAME\n'; head -c 384 /dev/zero; } > twice.y4m
run twice.y4m -o t.png
status 1; says 'twice.y4m: the Y4M header gives W twice, as W8 and W16'
# The same value twice is one value; a C tag and an XYSCSS that site chroma differently are a contradiction.
{ printf 'YUV4MPEG2 W8 H16 W08 C420jpeg XFOO=1 XFOO=2\nFRAME\n'; head -c 192 /dev/zero; } > same.y4m
run same.y4m -o s.png -q
status 0
{ printf 'YUV4MPEG2 W8 H16 C420jpeg XYSCSS=420MPEG2\nFRAME\n'; head -c 192 /dev/zero; } > sited.y4m
run sited.y4m -o t.png
status 1; says 'C420jpeg and XYSCSS=420MPEG2 say different colour spaces'
# Only the first XMP iTXt is read: 1,000 compressed packets of 1 KB that each inflate past the 1 MiB cap took
# 2.5 s when every one was inflated.
python3 - "$PNG" flood.png <<'PY'
import struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
png = open(sys.argv[1], "rb").read()
packet = chunk(b"iTXt", b"XML:com.adobe.xmp\0\1\0\0\0" + zlib.compress(b" " * ((1 << 20) + 16), 9))
open(sys.argv[2], "wb").write(png[:33] + packet * 1000 + png[33:])
PY
run flood.png -o f.nv12
status 0; within 1000; says 'inflates past 1 MiB'
# A template's own '..' is not blamed on {dir}.
yc sub/in/ -r -o out/ --name '{dir}/../{stem}.png' > "$OUT" 2> "$ERR"
status 2; LC_ALL=C grep -q 'trailing' "$ERR" && bad "the {dir} hint for a template's own '..': $(errline)"
cp "$PNG" a.png
run a.png -o - --report json
status 0; python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$ERR" 2>/dev/null \
  || bad "the report on standard error is not JSON Lines: $(errline)"
run a.png -o x.nv12 --report json --report-file /dev/stderr
status 0; python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$ERR" 2>/dev/null \
  || bad "--report-file /dev/stderr is not JSON Lines: $(errline)"
ALLOW=(a.png twice.y4m same.y4m sited.y4m s.png x.nv12 flood.png f.nv12); settled
end

begin png-damaged-profiles-read-twice-at-most
# A PNG's iCCP chunks are not read after two damaged ones: one whose CRC fails does not shut out a later one, and
# libpng inflates each one it keeps, up to 8 MiB; 300 damaged profiles of 8 KB each took 5.4 s (2.2 s a MB of file, colour management off too).
python3 - "$PNG" iccp.png <<'PY'
import struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
n = 8_000_000
head = bytearray(132); struct.pack_into(">I", head, 0, n); head[4:8] = b"lcms"; struct.pack_into(">I", head, 8, 0x02100000)
head[12:24] = b"mntrRGB XYZ "; head[36:40] = b"acsp"; struct.pack_into(">iii", head, 68, 63190, 65536, 54061)
c = chunk(b"iCCP", b"p\0\0" + zlib.compress(bytes(head) + bytes(n - 132), 9))
c = c[:-4] + bytes(b ^ 0xFF for b in c[-4:])
png = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(png[:33] + c * 300 + png[33:])
PY
snap
for cm in auto off; do
  run iccp.png -o i-$cm.nv12 --color-management $cm
  status 0; within 1500; same i-$cm.nv12 "$(ref "$PNG" nv12 --color-management off)"
done
ALLOW=(iccp.png i-auto.nv12 i-off.nv12); settled
end

begin jpeg-icc-pieces-after-the-header
# The ICC profile is joined from the APP2 pieces before the first scan; pieces between progressive scans were
# copied and held, unused, until the end: 255 of 64 KB took 16 MiB more (peak 30 MiB against 14).
python3 - "$FX/jpeg/jpegsuite/progressive_huffman/32x32x8_ycbcr.jpg" late.jpg <<'PY'
import struct, sys
j = open(sys.argv[1], "rb").read()
second = j.index(b"\xff\xda", j.index(b"\xff\xda") + 2)
pieces = b"".join(b"\xff\xe2" + struct.pack(">H", 2 + 14 + 65000) + b"ICC_PROFILE\0" + bytes([i, 255]) + bytes(65000)
                  for i in range(1, 256))
open(sys.argv[2], "wb").write(j[:second] + pieces + j[second:])
PY
snap
memwrap; run late.jpg -o l.nv12
status 0; rss_below 24
same l.nv12 "$(ref "$FX/jpeg/jpegsuite/progressive_huffman/32x32x8_ycbcr.jpg" nv12)"
ALLOW=(l.nv12); settled
end

begin signals-blocked-by-the-parent
# A signal mask is inherited across exec like an ignored disposition: with SIGTERM and SIGINT blocked by the
# parent, a batch took no notice of either until it had converted every file.
mkdir in; for i in $(seq 300); do ln "$here/Fixtures/corpus/photos/kodim23.png" in/k$i.png 2>/dev/null ||
  cp "$here/Fixtures/corpus/photos/kodim23.png" in/k$i.png; done; snap
for sig in TERM INT; do
r=$(python3 - "$BIN" "$sig" <<'PY' 2>> "$ERR"
import signal, subprocess, sys, time
sig = getattr(signal, "SIG" + sys.argv[2])
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
p = subprocess.Popen([sys.argv[1], "convert", "in/", "-o", "out/", "-j", "1", "-q"], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
time.sleep(0.3)
t = time.monotonic(); p.send_signal(sig)
try:
    p.wait(timeout=10); print(p.returncode, "%.0f" % ((time.monotonic() - t) * 1000))
except subprocess.TimeoutExpired:
    p.kill(); p.wait(); print("hang")
PY
)
set -- $r
{ [ "$1" = -$(kill -l $sig) ] || [ "$1" = $((128 + $(kill -l $sig))) ]; } && (( ${2:-99999} < 1000 )) ||
  bad "SIG$sig with it blocked by the parent: exit ${1:-?} after ${2:-?} ms (ended within 1 s wanted)"
rm -rf out
done
ALLOW=(out 'out/*'); settled
end

begin sigint-ignored-by-the-parent
# A background job of a script inherits SIGINT ignored; yuvconv honours it anyway, from the start: a batch still
# reading its list (or a large manifest) took no notice of SIGINT until its first file.
mkfifo list; snap
r=$(python3 - "$BIN" <<'PY' 2> "$ERR"
import os, signal, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "--files-from", "list", "-o", "out/", "-q"], stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
w = os.open("list", os.O_WRONLY)   # a writer that sends nothing: the run waits for its list
time.sleep(0.3)
p.send_signal(signal.SIGINT)
try:
    p.wait(timeout=5); print(p.returncode)
except subprocess.TimeoutExpired:
    p.kill(); p.wait(); print("hang")
os.close(w)
PY
)
[ "$r" = -2 ] || [ "$r" = 130 ] || bad "SIGINT while reading the list: $r (ended by SIGINT wanted)"
settled
end

begin output-names-in-each-other
# A name template that makes one output's name another's folder (`o/p/a.nv12` and `o/p/a.nv12/x.nv12`, or
# `--name '{dir}'`): refused before any work, the dry run too (it planned both, and the run failed one with
# "is a directory" or "was replaced during the run", whichever came first). A file where a folder is wanted
# says so (not "replaced during the run"). A hidden name that is an extension (`.png`) is that format (it got
# raw NV12). A 10-bit Y4M to Y4M stays 10-bit (it became 8-bit without a word).
mkdir -p p/a.nv12 q/sub; cp "$PNG" p/a.png; cp "$PNG" p/a.nv12/x.png; cp "$PNG" q/a.png; cp "$PNG" q/sub/b.png; snap
run p -r -o o/ --name '{dir}/{stem}.{ext}' -n
status 2; says 'o/p/a.nv12 would be both a file this run writes and the folder of o/p/a.nv12/x.nv12'
run p -r -o o/ --name '{dir}/{stem}.{ext}'
status 2; says 'would be both a file this run writes and the folder'
run q -r -o o2/ --name '{dir}'
status 2; says 'o2/q would be both a file this run writes and the folder of o2/q/sub'
settled
mkdir -p r/s o3/r; cp "$PNG" r/s/x.png; : > o3/r/s; snap
run r -r -o o3/ --name '{dir}/{stem}.{ext}'
status 1; says 'o3/r/s is not a folder'; LC_ALL=C grep -q 'replaced' "$ERR" && bad "says replaced: $(errline)"
settled
cp "$PNG" a.png; snap
run a.png -o .png -q
status 0; [ "$(head -c 8 .png | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || bad ".png is not a PNG"
run a.png -o t10.y4m --depth 10 -q
status 0
run t10.y4m -o .y4m -q
status 0; head -c 80 .y4m | LC_ALL=C grep -q 'C420p10' || bad "10-bit Y4M to Y4M: $(head -c 60 .y4m)"
ALLOW=(.png t10.y4m .y4m); settled
end

begin run-files-in-each-other
# The nesting refused for outputs, with the run's other files and folders already there (review): an output
# that is an existing folder holding another output, the report file as an output's folder or inside an
# output, --update's manifest as an output's folder — each converted everything and then failed (exit 1, the
# dry run 0). A link to nothing or a loop where a {dir} folder goes is not a folder (it said "removed" or
# "replaced during the run").
mkdir -p p/a.nv12 o/p/a.nv12 q/sub; cp "$PNG" p/a.png; cp "$PNG" p/a.nv12/x.png; cp "$PNG" q/sub/b.png; snap
run p -r -o o/ --name '{dir}/{stem}.{ext}' --force
status 2; says 'both a file this run writes and the folder'
run q -r -o o2/ --name '{dir}/{stem}.{ext}' --report json --report-file o2/q/sub
status 2; says 'o2/q/sub would be both'
run q -r -o o3/ --name '{dir}/{stem}.{ext}' --report json --report-file o3/q/sub/b.nv12/r.json -n
status 2; says 'o3/q/sub/b.nv12 would be both'
run q -r -o o4/ --name '.yuvconv-manifest/{stem}.{ext}' -u
status 2; says 'yuvconv-manifest would be both'
settled
mkdir -p r/s o5/r o6/r; cp "$PNG" r/s/x.png; ln -s nowhere o5/r/s; ln -s s o6/r/s; snap
run r -r -o o5/ --name '{dir}/{stem}.{ext}'
status 1; says 'o5/r/s is not a folder \(a symbolic link to nothing\)'
run r -r -o o5/ --name '{dir}/{stem}.{ext}' -n
status 1; LC_ALL=C grep -q 'o5/r/s is not a folder (a symbolic link to nothing)' "$OUT" || bad "dry run: $(head -c 160 "$OUT")"
run r -r -o o6/ --name '{dir}/{stem}.{ext}'
status 1; says 'o6/r/s is not a folder \(a loop of symbolic links\)'
settled
end

begin scans-and-late-colour-named-right
# A sequential JPEG of three scans (one per component) refused by --max-scans is no "progressive JPEG"; a
# colour chunk after the image data (cICP, gAMA) is not read, and says so (it changed the colours silently).
cp "$FX/jpeg/jpegsuite/baseline/32x32x8_ycbcr.jpg" s.jpg; cp "$CRAFT/late-colour.png" l.png; snap
run s.jpg -o x.nv12 --max-scans 2
status 1; says 'the JPEG has more than 2 scans'; LC_ALL=C grep -q progressive "$ERR" && bad "says progressive: $(errline)"
run l.png -o l.nv12
status 0; says 'cICP, gAMA after the image data: not read'
ALLOW=(l.nv12); settled
end

begin silent-damage-refused
# Damage libjpeg and zlib pass in silence (C review): a component no scan holds (grey chroma, exit 0), image
# data going on past the last row (inflated to the end: 4 MB took 9 s after a 1x1 picture, 7.5 s after a
# 1000x1000 one). Restart intervals padded as hardware encoders pad them stay a warning (hostile round 3).
for f in seq-one-scan.jpg prog-one-scan.jpg rst-padded.jpg trailing-idat.png trailing-idat-big.png; do cp "$CRAFT/$f" .; done; snap
for f in seq-one-scan.jpg prog-one-scan.jpg; do
  run $f -o x.nv12
  status 1; names $f; says 'scans are missing'
done
for f in trailing-idat.png trailing-idat-big.png; do
  for route in 0 1; do
    YUVCONV_PNG_LIBPNG=$route yc $f -o x.nv12 > "$OUT" 2> "$ERR"
    status 1; within 5000; says 'decompression bomb'
  done
done
# Padded restart intervals: a warning, and the unpadded file's bytes.
run rst-padded.jpg -o x.nv12
status 0; says 'extraneous bytes before marker 0xd'; same x.nv12 "$(ref "$FX/jpeg/jpegsuite/baseline/32x32x8_restarts.jpg" nv12)"
ALLOW=(x.nv12); settled
end

begin docs-promises
# What the docs promise, checked: a single conversion's dry run refuses a missing folder (the run makes none);
# a bogus YUVCONV_CPU is a usage error for --version too (not for --man and --completion); a failed conversion's report lists it; -q keeps the
# warning that names skipped folder entries.
cp "$PNG" a.png; mkdir d; cp "$PNG" d/b.png; mkfifo d/c.png; snap
run a.png -o newdir/a.nv12 -n
status 1; LC_ALL=C grep -q '^refuse a.png' "$OUT" || bad "dry run: $(head -c 120 "$OUT")"
YUVCONV_CPU=bogus yc --version > "$OUT" 2> "$ERR"
status 2; says 'YUVCONV_CPU'
# ... but not for the man page and completion scripts, which run no kernels (they failed with it).
YUVCONV_CPU=bogus yc --man > "$OUT" 2> "$ERR"
status 0; quiet; LC_ALL=C grep -q '^\.TH' "$OUT" || bad "no man page: $(head -c 80 "$OUT")"
YUVCONV_CPU=bogus yc --completion bash > "$OUT" 2> "$ERR"
status 0; quiet
run missing.png -o x.nv12 --report json
status 1; LC_ALL=C grep -q '"file": "missing.png", "ok": false' "$OUT" || bad "no report line for the failure: $(head -c 120 "$OUT")"
run d/ -o out/ -q
status 0; says 'skipped 1 folder entry'
ALLOW=(out out/b.nv12); settled
end

begin update-jpeg-options-and-dry-alpha
# --jpeg-path and --allow-truncated shape only a JPEG's bytes, yet were in every output's options key: changing one
# made --update convert every PNG again. And a dry run did not say what the run says of --alpha for JPEGs (no alpha).
cp "$PNG" in1.png; cp "$JPG" in2.jpg; cp "$JPG" in3.jpg; mkdir i; cp in1.png in2.jpg i/; snap
run i/ -o o/ -u -q
status 0
run i/ -o o/ -u --jpeg-path direct -n
status 0; LC_ALL=C grep -q '^skip i/in1.png' "$OUT" || bad "PNG not kept: $(head -c 160 "$OUT")"
LC_ALL=C grep -q '^replace i/in2.jpg' "$OUT" || bad "JPEG not replaced: $(head -c 160 "$OUT")"
run i/ -o o/ -u --allow-truncated -q
status 0; says '1 converted, 1 kept'
run in2.jpg -o a.nv12 --alpha flatten -n
status 0; says 'warning: --alpha flatten applies to input with alpha'
LC_ALL=C grep -q 'in2.jpg: --alpha' "$ERR" && bad "the dry run names the file, the run does not: $(errline)"
run in2.jpg in3.jpg -o d/ --alpha premultiply -n
status 0; says '--alpha premultiply applies to input with alpha.*none of this run.s inputs has any'
ALLOW=(i 'i/*' o 'o/*' 'o/.yuvconv-manifest'); settled
end

begin output-folder-inside-walked-input
# An output folder inside a folder walked with -r: the next run took the first run's outputs as its inputs (with
# --update the whole run stopped, "is an input of this batch"; without it, outputs of outputs were made). The walk
# leaves the output folder out, however reached, and names it once.
mkdir -p self/sub; cp "$PNG" self/a.png; cp "$PNG" self/sub/b.png; ln -s out self/lnk; snap
run self/ -r -o self/out/ --name '{dir}/{stem}.png' -u -q
status 0
run self/ -r -o self/out/ --name '{dir}/{stem}.png' -u
status 0; says '0 converted, 2 kept'; says 'self/out .the batch.s output folder'
run self/ -r -o self/out/ --name '{dir}/{stem}.nv12' -q
status 0; [ -e self/out/out ] && bad "outputs of outputs made"
ALLOW=(self/out 'self/out/*' 'self/out/sub/*' 'self/out/.yuvconv-manifest'); settled
end

begin reading-own-output-stream
# An input (or the --files-from list) that is the pipe or FIFO the run writes its standard output or error to:
# its end never comes, the writer being the run itself. A single conversion waited for ever (its route is chosen
# by the input's first bytes); refused before any read, for every command.
cp "$PNG" a.png; mkfifo p; printf 'a.png\n/dev/stderr\n' > l3; snap
start=$(date +%s%N)
timeout 20 "$BIN" p -o o1.nv12 1<>p 2> "$ERR"; rc=$?
[ $rc -eq 1 ] || bad "FIFO on stdout: exit $rc"; says 'is the pipe or FIFO this run writes its standard output to'
timeout 20 "$BIN" /dev/stdout -o o2.nv12 2> "$ERR" | cat > /dev/null; rc=${PIPESTATUS[0]}
[ $rc -eq 1 ] || bad "/dev/stdout as input: exit $rc"
timeout 20 "$BIN" -s 2x2 - -o o3.nv12 < /dev/stdout 2> "$ERR" | cat > /dev/null; rc=${PIPESTATUS[0]}
[ $rc -eq 1 ] || bad "stdin on its own stdout pipe: exit $rc"
timeout 20 "$BIN" convert --files-from /dev/stdout -o od/ 2> "$ERR" | cat > /dev/null; rc=${PIPESTATUS[0]}
[ $rc -eq 1 ] || bad "--files-from /dev/stdout: exit $rc"; says 'files-from /dev/stdout'
timeout 20 "$BIN" a.png /dev/fd/2 -o od/ 2>&1 > /dev/null | cat > "$ERR"; rc=${PIPESTATUS[0]}
[ $rc -eq 1 ] || bad "/dev/fd/2 in a batch: exit $rc"; says 'writes its standard error to'
# ... and a list naming it: refused with that reason (it was silent on standard error, "overwrite" on output).
timeout 20 "$BIN" convert --files-from l3 -o od3/ 2>&1 > /dev/null | cat > "$ERR"; rc=${PIPESTATUS[0]}
[ $rc -eq 1 ] || bad "listed /dev/stderr: exit $rc"; says '/dev/stderr: is the pipe or FIFO this run writes its standard error to'
(( $(date +%s%N) - start < 15000000000 )) || bad "took $(( ($(date +%s%N) - start) / 1000000 )) ms"
settled
end

begin reading-own-write-descriptors
# Standard input open for writing only (a pipe's write end as descriptor 0) was polled for ever, for every command:
# refused at once now. A FIFO the shell keeps open for reading and writing (exec 3<>fifo), or a pipe whose write end a
# parent left open in the run, while another process writes a picture into it, still converts: the picture ends at
# its end marker.
cp "$JPG" a.jpg; mkfifo p; snap
start=$(date +%s%N)
( exec 3> >(sleep 8); timeout 20 "$BIN" - -o o1.nv12 <&3 2> "$ERR"; echo $? > rc1 )
[ "$(cat rc1)" = 1 ] || bad "write-only stdin: exit $(cat rc1)"; says 'standard input is open for writing only'
( exec 3> >(sleep 8); timeout 20 "$BIN" report - <&3 2> "$ERR"; echo $? > rc2 )
[ "$(cat rc2)" = 1 ] || bad "report, write-only stdin: exit $(cat rc2)"
( exec 3> >(sleep 8); timeout 20 "$BIN" convert --files-from - -o od/ <&3 2> "$ERR"; echo $? > rc3 )
[ "$(cat rc3)" = 1 ] || bad "--files-from -, write-only stdin: exit $(cat rc3)"; says 'files-from -: standard input is open for writing only'
# A parent that leaves its copy of the pipe's write end open in yuvconv (Python's pass_fds) and writes the picture:
# it converts, the JPEG ending at its end marker (a refusal of any write end held on the input was a false one).
python3 - "$BIN" a.jpg <<'PY' > leak.txt 2>&1
import os, subprocess, sys
r, w = os.pipe()
p = subprocess.Popen([sys.argv[1], f'/dev/fd/{r}', '-o', 'o4.nv12', '-q'], pass_fds=(r, w), stderr=subprocess.PIPE)
os.close(r)
os.write(w, open(sys.argv[2], 'rb').read())
try:
    print(p.wait(timeout=15), p.stderr.read().decode().strip())
except subprocess.TimeoutExpired:
    p.kill(); print('timeout')
os.close(w)
PY
[ "$(head -c 1 leak.txt)" = 0 ] || bad "leaked write end: $(cat leak.txt)"
# The write end itself named as the input (by its descriptor): the run would be the pipe's only writer.
( timeout 20 "$BIN" /dev/fd/3 -o o8.nv12 3> >(sleep 8) 2> "$ERR"; echo $? > rc8 )
[ "$(cat rc8)" = 1 ] || bad "own write end named: exit $(cat rc8)"; says '/dev/fd/3: descriptor 3 is the write end of a pipe'
rm -f rc8
rm -f leak.txt
(( $(date +%s%N) - start < 15000000000 )) || bad "took $(( ($(date +%s%N) - start) / 1000000 )) ms"
# A listening socket as standard input holds connections, never data: polled for ever too.
python3 - "$BIN" <<'PY' > lsock.txt 2>&1
import socket, subprocess, sys
s = socket.socket(socket.AF_UNIX); s.bind('ls.sock'); s.listen(1)
for args in (['-', '-o', 'o6.nv12'], ['report', '-']):
    try:
        r = subprocess.run([sys.argv[1]] + args, stdin=s.fileno(), capture_output=True, text=True, timeout=15)
        print(r.returncode, r.stderr.strip())
    except subprocess.TimeoutExpired:
        print('timeout', args)
PY
[ "$(grep -c '^1 yuvconv: error: standard input is a listening socket' lsock.txt)" = 2 ] || bad "listening socket: $(tr '\n' ' ' < lsock.txt)"
rm -f lsock.txt ls.sock
( exec 3<>p; cat a.jpg > p & timeout 20 "$BIN" p -o o5.nv12 -q 2> "$ERR"; echo $? > rc5; wait )
[ "$(cat rc5)" = 0 ] || bad "exec 3<>fifo idiom: exit $(cat rc5): $(cat "$ERR")"
rm -f rc1 rc2 rc3 rc5
ALLOW=(o4.nv12 o5.nv12); settled
end

begin files-from-folder
# A folder given as --files-from said "many: read failed: Is a directory", not what was wrong or what to do.
mkdir many; cp "$PNG" many/a.png; snap
run --files-from many -o out/
status 1; says 'many: cannot read the list: it is a folder, and --files-from takes a file of paths'
run report --files-from many
status 1; says 'many: cannot read the list: it is a folder'
run --files-from nolist -o out/
status 1; says 'nolist: cannot open the list: No such file'
settled
end

begin folder-operands-walked-once
# A folder reached again inside one -r walk is walked once; given again as another operand by another way in (a
# link to it) it was walked again: report counted its files twice, and convert made two outputs of one file. Walked
# once now, and named.
mkdir -p in3/real in/sub; cp "$PNG" in3/real/a.png; ln -s real in3/L; cp "$PNG" in/x.png; cp "$PNG" in/sub/y.png
ln -s in inlink; snap
run report in3/ in3/L/ -r --report csv
status 0; grep -qE 'TOTAL .1 image, 0 failed' "$OUT" || bad "report: $(tail -1 "$OUT")"; says 'in3/L .a folder walked already'
run report in3/real/ in3/L/ -r --report csv
status 0; grep -qE 'TOTAL .1 image, 0 failed' "$OUT" || bad "report: $(tail -1 "$OUT")"; says 'in3/L .a folder walked already, as in3/real'
run report in/ inlink/ -r --report csv
status 0; grep -qE 'TOTAL .2 images, 0 failed' "$OUT" || bad "report: $(tail -1 "$OUT")"
# The same folder by the same way (twice, ./in after in, a subfolder of one walked with -r): its files are given
# twice, refused as a file given twice is — also when its images are all in subfolders.
run report in/ in/sub/ -r --report csv
status 2; says 'is given twice'
run report in/ ./in/ --report csv
status 2; says 'is given twice'
run report in3 in3 -r --report csv
status 2; says 'is given twice'
run report in/sub/ in/ -r --report csv
status 2; says 'is given twice'
run convert in3/ in3/L/ -r -o o/ --name '{dir}/{stem}.{ext}' -q
status 0; [ "$(find o -type f | wc -l)" = 1 ] || bad "outputs: $(find o -type f | tr '\n' ' ')"
run report in/ in/ --report csv
status 2; says 'is given twice'
ALLOW=(o o/real o/real/a.nv12 'o/*' 'o/*/*'); settled
end

begin y4m-aspect-and-plain-c420-siting
# A Y4M frame of pixels that are not square (A10:11) became a PNG, JPEG or raw planes without a word (none of them
# records a pixel aspect: the picture shows stretched); a Y4M output keeps the tag. And C420 (centre-sited, as
# 420jpeg) with an XYSCSS that sites chroma elsewhere was read as centre-sited without a word, where C420jpeg with
# the same XYSCSS is refused as the contradiction it is.
{ printf 'YUV4MPEG2 W4 H2 F30000:1001 Ip A10:11 C420jpeg XCOLORRANGE=FULL\nFRAME\n'; head -c 12 /dev/zero; } > asp.y4m
{ printf 'YUV4MPEG2 W4 H2 Ip A0:0 C420jpeg XCOLORRANGE=FULL\nFRAME\n'; head -c 12 /dev/zero; } > unknown.y4m
{ printf 'YUV4MPEG2 W4 H2 C420 XYSCSS=420MPEG2\nFRAME\n'; head -c 12 /dev/zero; } > c420m.y4m
{ printf 'YUV4MPEG2 W4 H2 C420 XYSCSS=420JPEG\nFRAME\n'; head -c 12 /dev/zero; } > c420j.y4m
snap
for o in a.png a.jpg a.nv12; do
    run asp.y4m -o $o -q
    status 0; says "asp.y4m: the Y4M stream's pixels are not square .A10:11."
done
run asp.y4m -o b.y4m -q
status 0; quiet; head -1 b.y4m | grep -q ' A10:11 ' || bad "b.y4m: $(head -1 b.y4m)"
run unknown.y4m -o u.png -q
status 0; quiet
run c420m.y4m -o c.png
status 1; says 'c420m.y4m: the Y4M header.s C420 and XYSCSS=420MPEG2 say different colour spaces'
run c420j.y4m -o d.png -q
status 0; quiet
ALLOW=(a.png a.jpg a.nv12 b.y4m u.png d.png); settled
end

begin output-descriptor-read-only
# A descriptor named as the output and open for reading only (-o /dev/fd/3 3<file with data) was told to use --force,
# and with --force was then refused as read-only: that is said first now, and the file is untouched either way.
printf 'keep me' > held.bin; snap
( "$BIN" "$JPG" -o /dev/fd/3 3<held.bin > "$OUT" 2> "$ERR"; echo $? > rc )
[ "$(cat rc)" = 1 ] || bad "exit $(cat rc)"; says 'descriptor 3 is open for reading only'
! grep -q 'force' "$ERR" || bad "advises --force: $(errline)"
( "$BIN" "$JPG" -o /dev/fd/3 --force 3<held.bin > "$OUT" 2> "$ERR"; echo $? > rc )
[ "$(cat rc)" = 1 ] || bad "--force: exit $(cat rc)"; says 'descriptor 3 is open for reading only'
[ "$(cat held.bin)" = 'keep me' ] || bad "held.bin changed"
rm -f rc; settled
end

begin update-report-file-is-a-report-whole
# --update replaces its report file without --force only when that is a report: a JSON Lines file whose first line
# began as a report's does ({"type": "image", "file": ...}, as Python's json.dumps writes a dataset's lines) was
# replaced. A report is known by its end too (its totals) now; a real report in any format is still replaced.
mkdir mu; cp "$PNG" mu/; printf '{"type": "image", "file": "cat1.jpg", "label": "cat"}\n' > labels.jsonl
printf 'file,ok,error,format,width,height,source_sampling,file_bytes,layout\nmine,1,2\n' > notes.csv; snap
run mu/ -o mo/ -u --report json --report-file labels.jsonl
status 1; says 'labels.jsonl: already exists'
run mu/ -o mo/ -u --report csv --report-file notes.csv -q
status 1; says 'notes.csv: already exists'
[ "$(head -c 11 labels.jsonl)" = '{"type": "i' ] && grep -q '"label": "cat"' labels.jsonl || bad "labels.jsonl changed"
grep -q '^mine,1,2' notes.csv || bad "notes.csv changed"
for f in json csv text html json; do
    run mu/ -o mo/ -u --report $f --report-file rep.out -q
    status 0
done
ALLOW=(mo 'mo/*' mo/.yuvconv-manifest rep.out); settled
end

begin informational-runs-take-no-file-options
# --help, --version, --man and --completion convert nothing: an input named with them was refused, but a file named
# by an option (-o, --report-file, --files-from) was dropped with exit 0, and any other option without a word.
snap
run --version -o x.nv12
status 2; says "--version takes no file .got -o 'x.nv12'."
run --version -o -
status 2; says "--version takes no file .got -o '-'."
run --man --report-file r.txt
status 2; says 'takes no file .got --report-file'
run --completion bash --files-from l.txt
status 2; says 'takes no file .got --files-from'
run --version --matrix bt601
status 0; says '--matrix does nothing with --version'
run --help -q
status 0; quiet
settled
end

begin exif-second-and-damaged
# A JPEG's second Exif segment was ignored without a word (a PNG's second eXIf is said), and EXIF data cut short
# or not TIFF at all was ignored silently in both: each is said now; the first Exif segment is the one used.
python3 - "$JPG" "$PNG" <<'PY'
import struct, sys, zlib
def tiff(orient):
    return b'II*\x00' + struct.pack('<IH', 8, 1) + struct.pack('<HHII', 0x0112, 3, 1, orient) + struct.pack('<I', 0)
def app1(data): return b'\xff\xe1' + struct.pack('>H', len(data) + 2) + data
j = open(sys.argv[1], 'rb').read()
open('two.jpg', 'wb').write(j[:2] + app1(b'Exif\0\0' + tiff(6)) + app1(b'Exif\0\0' + tiff(3)) + j[2:])
open('one.jpg', 'wb').write(j[:2] + app1(b'Exif\0\0' + tiff(6)) + j[2:])
open('cut.jpg', 'wb').write(j[:2] + app1(b'Exif\0\0' + tiff(6)[:14]) + j[2:])
two_entries = (b'II*\x00' + struct.pack('<IH', 8, 2) + struct.pack('<HHII', 0x0112, 3, 1, 6)
               + struct.pack('<HHI', 0x0131, 2, 4) + b'abc\x00' + struct.pack('<I', 0))
open('cutafter.jpg', 'wb').write(j[:2] + app1(b'Exif\0\0' + two_entries[:28]) + j[2:])   # cut in the second entry
p = open(sys.argv[2], 'rb').read()
def chunk(kind, data): return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
at = 8 + 25   # after IHDR
open('cut.png', 'wb').write(p[:at] + chunk(b'eXIf', tiff(6)[:14]) + p[at:])
open('nottiff.png', 'wb').write(p[:at] + chunk(b'eXIf', b'LoremIpsum') + p[at:])
PY
snap
run two.jpg -o two.nv12 -q
status 0; says 'two.jpg: a second Exif segment .APP1., ignored .the first one is used.'
run one.jpg -o one.nv12 -q
status 0; quiet
cmp -s one.nv12 two.nv12 || bad "two.jpg: not turned by its first Exif segment"
run cut.jpg -o cut.nv12 -q
status 0; says 'cut.jpg: its Exif data .APP1. is damaged: its first directory runs past its end'
run cutafter.jpg -o cuta.nv12 -q
status 0; says 'cutafter.jpg: its Exif data .APP1. is damaged.*the orientation tag found before the damage is used'
cmp -s one.nv12 cuta.nv12 || bad "cutafter.jpg: not turned by the tag it holds"
run cut.png -o cutp.nv12 -q
status 0; says 'cut.png: eXIf: the EXIF data is damaged'
run nottiff.png -o nt.nv12 -q
status 0; says 'nottiff.png: eXIf: the EXIF data is damaged: it does not begin as TIFF data'
ALLOW=(two.nv12 one.nv12 cut.nv12 cuta.nv12 cutp.nv12 nt.nv12); settled
end

begin update-metrics-kept-outputs-said
# --update --metrics: outputs kept as up to date carry their manifest line's figures, which a run without --metrics
# made without quality measures: their report lines had null PSNR and SSIM without a word. Said now.
mkdir km; cp "$PNG" km/a.png; cp "$JPG" km/b.jpg; snap
run km/ -o ko/ -u -q
status 0
run km/ -o ko/ -u --metrics --report json -q
status 0; says '2 outputs kept as up to date have no quality figures in the report'
run km/ -o ko/ -u --report json -q
status 0; ! grep -q 'no quality figures' "$ERR" || bad "said without --metrics: $(errline)"
ALLOW=(ko 'ko/*' ko/.yuvconv-manifest); settled
end

begin report-one-file-option-warnings
# report: -v did nothing without a word (it shows converted images' lines; report prints none), and for one file
# named alone a JPEG-only option for a PNG was said of "a batch without one".
mkdir rv; cp "$PNG" rv/; snap
run report "$PNG" -v --max-scans 3
status 0; says "-v shows each converted image.s line above a batch.s progress line; report prints none"
says '--max-scans applies to JPEG input; an input that is not one ignores it'
! grep -q 'a batch without one' "$ERR" || bad "said of a batch: $(errline)"
run report rv/ -v
status 0; says "-v shows each converted image.s line above a batch.s progress line; report prints none"
settled
end

begin whole-picture-keeps-room-to-work
# A whole picture (a JPEG output's) was allocated when the address space held it alone: the work after it (threads'
# stacks, tables) then met a refusal and the process stopped with SIGABRT (a 48 MP JPEG to JPEG, limits a few MiB
# above its picture's). The picture is taken only with the room to work in beside it: an error, never a signal.
python3 - <<'PY'
import struct, zlib
w, h = 8000, 6000
row = b'\x00' + bytes(range(256)) * (w * 3 // 256) + bytes(w * 3 % 256)
raw = zlib.compress(row * h, 1)
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
open('big.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
                            + chunk(b'IDAT', raw) + chunk(b'IEND', b''))
PY
"$BIN" big.png -o big.jpg -q || bad "big.jpg not made"
snap
for m in $(seq 96 1 124); do
    prlimit --as=$((m * 1024 * 1024)) -- timeout 60 "$BIN" big.jpg -o o$m.jpg -q > "$OUT" 2> "$ERR"; rc=$?
    [ $rc -le 1 ] || bad "limit $m MiB: exit $rc: $(errline)"
    [ $rc = 0 ] || [ ! -e o$m.jpg ] || bad "limit $m MiB: failed and left o$m.jpg"
done
# A large stack limit: the stacks counted beside the picture are 8 MiB at most (a thread refused more is done
# without). Under ulimit -s 512M a 576 KiB picture was refused for want of a GiB.
WRAP=(bash -c 'ulimit -s 524288 && ulimit -v 1024000 && exec "$@"' ulimit); run "$PNG" -o small.jpg -q
status 0
WRAP=()
ALLOW=('o*.jpg' small.jpg); settled
end

begin alpha-dropped-is-said
# --alpha ignore (the default) drops alpha: where it made pixels transparent, the colours stored under them show,
# and nothing was said. Said now (8- and 16-bit, tRNS); an opaque alpha channel, another mode, or --alpha ignore
# asked for by name says nothing.
python3 - <<'PY'
import struct, zlib
def png(name, w, h, depth, rows):
    def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
    raw = b''.join(b'\x00' + r for r in rows)
    open(name, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, 6, 0, 0, 0))
                           + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
png('clear.png', 4, 4, 8, [b''.join(bytes([200, 10, 10, 255 if x < 2 else 0]) for x in range(4)) for y in range(4)])
png('opaque.png', 4, 4, 8, [b''.join(bytes([200, 10, 10, 255]) for x in range(4)) for y in range(4)])
png('clear16.png', 4, 4, 16, [b''.join(struct.pack('>4H', 50000, 900, 900, 65535 if x else 1000) for x in range(4)) for y in range(4)])
# tRNS: an RGB picture whose one colour is transparent (the second column's).
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
raw = b''.join(b'\x00' + b''.join(bytes([200, 10, 10] if x != 1 else [0, 0, 0]) for x in range(4)) for y in range(4))
open('trns.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 4, 4, 8, 2, 0, 0, 0))
                             + chunk(b'tRNS', struct.pack('>3H', 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw))
                             + chunk(b'IEND', b''))
PY
cp "$FX/pngsuite/tbbn3p08.png" pal.png
snap
run clear.png -o a.nv12 -q
status 0; says 'clear.png: its alpha makes some pixels transparent, and --alpha ignore .the default. drops it'
run clear16.png -o b.nv12 -q
status 0; says 'clear16.png: its alpha makes some pixels transparent'
run opaque.png -o c.nv12 -q
status 0; quiet
run clear.png -o d.nv12 -q --alpha flatten
status 0; quiet
run trns.png -o e.nv12 -q
status 0; says 'trns.png: its alpha makes some pixels transparent'
# A palette with tRNS (PngSuite's tbbn3p08: transparent entries).
run pal.png -o g.nv12 -q
status 0; says 'pal.png: its alpha makes some pixels transparent'
# Asked for by name: the user knows, nothing to say.
run clear.png -o f.nv12 -q --alpha ignore
status 0; quiet
ALLOW=(a.nv12 b.nv12 c.nv12 d.nv12 e.nv12 f.nv12 g.nv12); settled
end

begin raw-stream-jpeg-prefix-over-limit
# A raw frame on a stream whose first bytes are FF D8 FF was read whole to see whether it is a JPEG before the
# frame's size met --max-memory: a 768 MiB frame was held (1.5 GB) and then refused, or the allocation ended the
# process (SIGABRT) under an address-space limit. Refused at once now, like the same stream without the prefix.
snap
start=$(date +%s%N)
{ printf '\xff\xd8\xff'; head -c $((16384*16384*3 - 3)) /dev/zero; } 2>/dev/null |
  prlimit --as=1000000000 "$BIN" - --size 16384x16384 --pix-fmt p010 -o x.nv12 > "$OUT" 2> "$ERR"; rc=${PIPESTATUS[1]}
[ $rc -eq 1 ] || bad "exit $rc"; says 'holding the YUV frame needs 768 MiB held whole, above the limit of 256 MiB'
(( $(date +%s%N) - start < 1500000000 )) || bad "took $(( ($(date +%s%N) - start) / 1000000 )) ms"
{ printf '\xff\xd8\xff'; head -c $((4096*4096*3 - 3)) /dev/zero; } 2>/dev/null |
  "$BIN" - --size 4096x4096 --pix-fmt p010 -o y.nv12 --max-memory 16M > "$OUT" 2> "$ERR"; rc=${PIPESTATUS[1]}
[ $rc -eq 1 ] || bad "--max-memory 16M: exit $rc"; says 'above the limit of 16 MiB'
# An admissible frame with that prefix is held once, as without it: under an address-space limit that one frame
# fits it converted ("cannot open: Cannot allocate memory" when the look's bytes were held twice).
{ printf '\xff\xd8\xff'; head -c $((8192*8192*3/2 - 3)) /dev/zero; } 2>/dev/null |
  prlimit --as=$((200<<20)) "$BIN" - -s 8192x8192 -o z.nv21 -q > "$OUT" 2> "$ERR"; rc=${PIPESTATUS[1]}
[ $rc -eq 0 ] || bad "96 MiB frame under a 200 MiB address space: exit $rc: $(errline)"
# ... and under a limit that cannot hold it, from a file on standard input and from a pipe, the frame's own
# out-of-memory (a trap, and a JPEG's "damaged", before).
{ printf '\xff\xd8\xff'; head -c $((8192*8192*3/2 - 3)) /dev/zero; } > big.nv12 2>/dev/null
prlimit --as=$((60<<20)) "$BIN" - -s 8192x8192 -o w.nv21 -q < big.nv12 > "$OUT" 2> "$ERR"; rc=$?
[ $rc -eq 1 ] || bad "stdin file under 60 MiB: exit $rc"; says 'cannot allocate 100663296 bytes .96 MiB. for the frame'
cat big.nv12 | prlimit --as=$((100<<20)) "$BIN" - -s 8192x8192 -o w.nv21 -q > "$OUT" 2> "$ERR"; rc=${PIPESTATUS[1]}
[ $rc -eq 1 ] || bad "pipe under 100 MiB: exit $rc"; says 'cannot allocate 100663296 bytes .96 MiB. for the frame'
rm -f big.nv12
ALLOW=(z.nv21); settled
end

begin small-jpeg-pipe-open-with-size
# A JPEG under 64 KiB on a pipe its writer keeps open, given --size: the look that tells a raw frame from a JPEG
# waited for 64 KiB (or the pipe's end) before trying the JPEG's header, so a live producer's thumbnail waited for
# ever. Tried on what has come after each read now.
"$BIN" "$PNG" -o small.jpg -q; snap
mkfifo f; (cat small.jpg; sleep 6) > f & writer=$!
start=$(date +%s%N)
timeout 20 "$BIN" - -o a.nv12 -q -s 32x32 < f > "$OUT" 2> "$ERR"; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $rc -eq 0 ] || bad "exit $rc: $(errline)"
(( ms < 4000 )) || bad "waited for the writer: $ms ms"
kill $writer 2>/dev/null; wait $writer 2>/dev/null
"$BIN" small.jpg -o b.nv12 -q; cmp -s a.nv12 b.nv12 || bad "not the JPEG's bytes"
# ... and from a file on standard input, whose size says it is not one frame (refused as a raw frame of the
# wrong size once the look at streams above refused frames it could not hold).
timeout 20 "$BIN" - -o c.nv12 -q -s 16x16 < small.jpg > "$OUT" 2> "$ERR"; rc=$?
[ $rc -eq 0 ] || bad "JPEG from a file on stdin with --size: exit $rc: $(errline)"
cmp -s b.nv12 c.nv12 || bad "stdin JPEG not the JPEG's bytes"
ALLOW=(a.nv12 b.nv12 c.nv12 f); settled
end

begin yuv-to-yuv-matrix-range-warned
# YUV input written as YUV goes through no RGB: --matrix does nothing, nor --range when the samples are copied at
# their own depth (it rescales 8 <-> 10 bits and tags a Y4M). Both passed in silence, the line even naming them.
head -c 24 /dev/urandom > a.nv12; snap
run a.nv12 -s 4x4 -o b.nv21 --matrix bt2020 -q
status 0; says '--matrix converts between RGB and YUV.*ignored'
run a.nv12 -s 4x4 -o c.nv21 --range limited -q
status 0; says '--range says how YUV input.s samples map'
run a.nv12 -s 4x4 -o d.y4m --matrix bt2020 --range limited -q
status 0; says '--matrix converts'; LC_ALL=C grep -q -- '--range says' "$ERR" && bad "warned --range for a Y4M (tagged)"
run a.nv12 -s 4x4 -o g.p010 --matrix bt2020 -q
status 0; says '--matrix converts.*rescaled between 8 and 10 bits'
run a.nv12 -s 4x4 -o e.p010 --range limited -q
status 0; quiet
ALLOW=(b.nv21 c.nv21 d.y4m e.p010 g.p010); settled
end

begin option-values-any-case-and-near-misses
# Option values in any case, as the format names always were: --report JSON, --orientation AUTO and
# YUVCONV_CPU=AVX2 were refused. An unknown option names the one meant when one is near (--fromat, -force),
# also when two of its names are that near (--pixfmt had no hint).
cp "$PNG" a.png; snap
run a.png -o a.nv12 --report JSON --orientation AUTO --range FULL -q
status 0; LC_ALL=C grep -q '"type": "image"' "$OUT" || bad "no JSON report: $(head -c 80 "$OUT")"
YUVCONV_CPU=BASELINE yc --version > "$OUT" 2> "$ERR"
status 0; LC_ALL=C grep -q 'kernels: baseline' "$OUT" || bad "tier not pinned: $(head -c 80 "$OUT")"
run a.png -o b.nv12 --fromat nv21
status 2; says "unknown option '--fromat'; did you mean --format"
run a.png -o b.nv12 -force
status 2; says 'did you mean --force'
# Near two names of one option (--pix-fmt and --pix_fmt; --color- and --colour-management): still that option.
run a.png -o b.nv12 --pixfmt nv21
status 2; says "unknown option '--pixfmt'; did you mean --pix-fmt?"
run a.png -o b.nv12 --colur-management off
status 2; says "did you mean --color"
# An abbreviation means the one option it begins: --qual was offered --null (two edits away), --dry nothing.
run a.png -o b.jpg --qual 50
status 2; says "unknown option '--qual'; did you mean --quality\?"
run a.png -o b.nv12 --dry
status 2; says "did you mean --dry-run\?"
# The letter of a cluster that is no option is named (the whole word was).
run a.png -o b.nv12 -qZ
status 2; says "unknown option '-Z' \\(in '-qZ'\\)"
run a.png -o b.nv12 -q-
status 2; says "unknown option '-q-': '-' is no option letter"
# A beginning several names share names them (--rep was offered --help).
run a.png -o b.nv12 --rep json
status 2; says "unknown option '--rep'; did you mean --report or --report-file\?"
# A cluster ending in -o is read as the parser reads it: `-yo /dev/stderr` took standard error for an input and
# dropped every message, the refusal's too (exit 2 in silence); so did `-yo log.txt 2>log.txt`.
yc -yo /dev/stderr a.png > "$OUT" 2> "$ERR"
status 2; says "the output is standard error"; says "Try 'yuvconv --help'"
yc -qyo log.txt a.png 2> log.txt; cp log.txt "$ERR"
status 2; says "cannot tell the output format from the extension '.txt'"
ALLOW=(a.nv12 log.txt); settled
end

begin update-folder-moved-before-manifest
# An --update run whose output folder is moved away mid-run: the manifest's write says the folder was moved,
# not that the manifest "is replaced without its lock" (a false warning printed before the right error).
cp "$PNG" a.png; cp "$PNG" b.png; mkfifo p; printf 'a.png\np\n' > l; snap
"$BIN" --files-from l -o so/ -u -j 1 -q > "$OUT" 2> "$ERR" & pid=$!
for _ in $(seq 50); do [ -e so/a.nv12 ] && break; sleep 0.1; done
sleep 0.3; mv so so_moved; cat b.png > p; wait $pid; rc=$?
[ $rc -eq 1 ] || bad "exit $rc"
says 'so/.yuvconv-manifest: the output folder so was moved or replaced during the run'
LC_ALL=C grep -q 'without its lock' "$ERR" && bad "false lock warning: $(errline)"
# Moved back, the next run records what the journal holds and converts the rest.
mv so_moved so
run a.png b.png -o so/ -u
status 0; says '1 converted, 1 kept'
ALLOW=(so 'so/*' 'so/.yuvconv-manifest'); settled
end

begin jpeg-look-trickled-header
# The look that tells a raw frame (--size) from a JPEG on a stream parsed what had come after every read: a
# writer trickling a header of many tiny segments a few bytes at a time made it quadratic (1.8 s of CPU for
# 128 KiB, minutes for a MiB). It now parses at each doubling or pause of the writer.
snap
python3 - > "$META/drip.py" <<'PY'
print("""import sys, time
data = b'\\xff\\xd8' + b'\\xff\\xe1\\x00\\x02' * 32768
for i in range(0, len(data), 8):
    sys.stdout.buffer.write(data[i:i+8]); sys.stdout.buffer.flush(); time.sleep(0.00005)
time.sleep(1)""")
PY
python3 "$META/drip.py" | /usr/bin/time -f '%U' -o "$META/drip.cpu" timeout 60 "$BIN" - -s 4096x4096 -o x.nv12 -q > "$OUT" 2> "$ERR"
cpu=$(tail -1 "$META/drip.cpu")
awk -v c="$cpu" 'BEGIN {exit !(c < 0.8)}' || bad "the look took $cpu s of CPU"
settled
end

begin arithmetic-jpeg-damage-before-end
# One changed byte in an arithmetic-coded scan makes its decoder stop early (it fills the rest with zeros): the
# image data left before the end marker was warned as "junk ... some cameras write (harmless)", exit 0, and the
# picture was garbage. Damage now, as leftovers between scans are; --allow-truncated converts it with a warning.
python3 - "$FX/jpeg/jpegsuite/extended_arithmetic/32x32x8_ycbcr.jpg" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
sos = d.rfind(b'\xff\xda'); start = sos + 2 + d[sos + 2] * 256 + d[sos + 3]
d[start + 30] ^= 0x5a
open('hit.jpg', 'wb').write(d)
PY
snap
run hit.jpg -o a.nv12
status 1; says 'hit.jpg: a scan of the JPEG ends at least [0-9]+ bytes before its data does.*arithmetic'
run hit.jpg -o b.nv12 --allow-truncated -q
status 0; says 'of an arithmetic-coded scan were left unread before the end marker: a damaged byte'
run "$FX/jpeg/jpegsuite/extended_arithmetic/32x32x8_ycbcr.jpg" -o c.nv12 -q
status 0; quiet
ALLOW=(b.nv12 c.nv12); settled
end

begin arithmetic-jpeg-zero-padding
# Zero bytes after an arithmetic-coded scan's data are what its decoder takes after the data ends anyway: an
# encoder that writes them (libjpeg drops its final zeros, others need not) has written a whole picture, which was
# refused as "a scan ... ends at least 3 bytes before its data does". Refused still when the bytes left are data.
python3 - "$FX/jpeg/jpegsuite/extended_arithmetic/32x32x8_ycbcr.jpg" <<'PY'
import sys
d = bytes(open(sys.argv[1], 'rb').read())
assert d.endswith(b'\xff\xd9')
for n in (3, 5, 300, 300000):
    open(f'pad{n}.jpg', 'wb').write(d[:-2] + bytes(n) + d[-2:])
h = bytearray(d)
sos = h.rfind(b'\xff\xda'); start = sos + 2 + h[sos + 2] * 256 + h[sos + 3]
h[start + 30] ^= 0x5a
open('hitpad.jpg', 'wb').write(bytes(h[:-2]) + bytes(8) + bytes(h[-2:]))
PY
snap
run "$FX/jpeg/jpegsuite/extended_arithmetic/32x32x8_ycbcr.jpg" -o plain.nv12 -q
status 0; quiet
# Padding longer than a read (256 KiB), and padding split between a pipe's writes: zeros however they came.
{ head -c $(( $(stat -c %s pad300.jpg) - 150 )) pad300.jpg; sleep 0.3; tail -c 150 pad300.jpg; } |
    "$BIN" - -o piped.nv12 > "$OUT" 2> "$ERR"
[ $? = 0 ] || bad "padding split between writes: $(errline)"; ! grep -q 'warning' "$ERR" || bad "piped: $(errline)"
cmp -s plain.nv12 piped.nv12 || bad "piped: other bytes than the file without its padding"
# ... and a read that ends right after the end marker's FF (the FF is the marker's, not data before it).
{ head -c $(( $(stat -c %s pad300.jpg) - 1 )) pad300.jpg; sleep 0.3; tail -c 1 pad300.jpg; } |
    "$BIN" - -o piped2.nv12 > "$OUT" 2> "$ERR"
[ $? = 0 ] || bad "split after the marker's FF: $(errline)"
cmp -s plain.nv12 piped2.nv12 || bad "piped2: other bytes than the file without its padding"
for n in 3 5 300 300000; do
    run pad$n.jpg -o pad$n.nv12
    status 0; ! grep -q 'warning' "$ERR" || bad "pad$n.jpg: $(cat "$ERR")"
    cmp -s plain.nv12 pad$n.nv12 || bad "pad$n.jpg: other bytes than the file without its padding"
done
run hitpad.jpg -o hit.nv12
status 1; says 'hitpad.jpg: a scan of the JPEG ends at least [0-9]+ bytes before its data does.*arithmetic'
ALLOW=(plain.nv12 pad3.nv12 pad5.nv12 pad300.nv12 pad300000.nv12 piped.nv12 piped2.nv12); settled
end

begin arithmetic-jpeg-damage-in-restart-interval
# In an arithmetic-coded file with restart intervals a changed byte stops the decoder early too, and what it leaves
# unread before the next restart marker was warned as "padding, which some webcams and scanners write (harmless)"
# (the writers of such padding make Huffman-coded files): exit 0 and a wrong picture. Damage now; --allow-truncated
# converts it with a warning that says so. Zero bytes there are padding the decoder would take anyway.
python3 - "$FX/jpeg/jpegsuite/extended_arithmetic/32x32x8_restarts.jpg" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
sos = d.rfind(b'\xff\xda'); start = sos + 2 + d[sos + 2] * 256 + d[sos + 3]
rst = d.find(b'\xff\xd0', start)
open('zeros.jpg', 'wb').write(bytes(d[:rst]) + bytes(7) + bytes(d[rst:]))
d[start + 30] ^= 0x5a
open('hit.jpg', 'wb').write(d)
PY
snap
run hit.jpg -o a.nv12
status 1; says 'hit.jpg: a scan of the JPEG ends at least [0-9]+ bytes before its data does.*in an arithmetic-coded scan'
run hit.jpg -o b.nv12 --allow-truncated
status 0; says 'of an arithmetic-coded scan were left unread before a restart marker: a damaged byte'
run "$FX/jpeg/jpegsuite/extended_arithmetic/32x32x8_restarts.jpg" -o plain.nv12 -q
status 0; quiet
run zeros.jpg -o zeros.nv12
status 0; ! grep -q 'warning' "$ERR" || bad "zeros.jpg: $(cat "$ERR")"
cmp -s plain.nv12 zeros.nv12 || bad "zeros.jpg: other bytes than the file without its padding"
at=$(python3 -c "import sys; d = open('zeros.jpg', 'rb').read(); print(d.find(b'\\xff\\xd0', d.rfind(b'\\xff\\xda')) + 1)")
{ head -c $at zeros.jpg; sleep 0.3; tail -c +$((at + 1)) zeros.jpg; } | "$BIN" - -o zpiped.nv12 > "$OUT" 2> "$ERR"
[ $? = 0 ] || bad "zeros split after the restart marker's FF: $(errline)"
cmp -s plain.nv12 zpiped.nv12 || bad "zpiped: other bytes"
ALLOW=(b.nv12 plain.nv12 zeros.nv12 zpiped.nv12); settled
end

begin folder-of-jfif-files
# Browsers on Windows save JPEGs as .jfif: a folder of them converted nothing, said nothing, and exited 0.
mkdir jf; cp "$JPG" jf/photo.jfif; cp "$JPG" jf/IMG.JFIF; cp "$PNG" jf/anim.apng; snap
run jf -o jo/ -q
status 0; says '3 converted'
[ -f jo/photo.nv12 ] && [ -f jo/IMG.nv12 ] && [ -f jo/anim.nv12 ] || bad "outputs missing: $(ls jo 2>&1 | tr '\n' ' ')"
ALLOW=(jo 'jo/*'); settled
end

begin other-formats-named
# A GIF, WebP, TIFF, BMP or HEIC handed over was "not a JPEG or PNG file (unrecognised signature)" with raw
# YUV's --size advice; a PNG mangled by a text-mode copy too. Each is named, with what to do.
printf 'GIF89a\x08\x00\x08\x00\x80\x00\x00' > g.gif
printf 'RIFF\x24\x00\x00\x00WEBPVP8 ' > w.webp
printf 'II*\x00\x08\x00\x00\x00\x00\x00' > t.tif
printf '\x00\x00\x00\x18ftypheic\x00\x00\x00\x00' > h.heic
python3 -c "d=open('$PNG','rb').read(); open('m.png','wb').write(d.replace(b'\r\n', b'\n', 1))"
printf '\xff\x0a\xfa\x7f\x01\x90\x08\x06' > x.jxl
snap
run g.gif -o a.nv12
status 1; says 'g.gif: a GIF file, not a JPEG or PNG file.*ffmpeg -i FILE out.png'
run w.webp -o a.nv12
status 1; says 'w.webp: a RIFF file .WebP'
run t.tif h.heic -o o/
status 1; says 't.tif: a TIFF file'; says 'h.heic: an ISO media file .HEIC'
run m.png -o a.nv12
status 1; says 'm.png: a PNG whose signature was changed by a text-mode transfer'
# A bare JPEG XL codestream (cjxl's default): its two-byte signature is named beside raw YUV's advice.
run x.jxl -o a.nv12
status 1; says 'x.jxl: not a JPEG or PNG file .unrecognised signature; it starts as a JPEG XL codestream .FF 0A. does.; raw YUV'
ALLOW=(o); settled
end

begin stream-jpeg-with-big-header-and-size
# A JPEG with more than a MiB of segments before its first scan (APP segments: extended XMP, split profiles),
# piped in with a --size: the look stopped at a MiB and took it for a raw frame ("ends after ... bytes", or its
# bytes converted as a frame). Its segments are walked now, up to 16 MiB: it is the JPEG, with the usual warning.
python3 - "$JPG" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
seg = b'\xff\xef' + (65535).to_bytes(2, 'big') + bytes(65533)
open('big.jpg', 'wb').write(b[:2] + seg * 20 + b[2:])
PY
snap
"$BIN" big.jpg -o a.nv12 -q 2> "$ERR" || bad "named file: $(errline)"
cat big.jpg | timeout 20 "$BIN" - -s 1280x720 -o b.nv12 -q > "$OUT" 2> "$ERR"; rc=${PIPESTATUS[1]}
[ $rc -eq 0 ] || bad "piped with --size: exit $rc: $(errline)"
cmp -s a.nv12 b.nv12 || bad "piped: not the JPEG's bytes"
mkfifo f; (cat big.jpg > f &); timeout 20 "$BIN" f -s 1000x800 -o c.nv12 -q 2> "$ERR"; rc=$?
[ $rc -eq 0 ] || bad "FIFO with --size: exit $rc: $(errline)"
cmp -s a.nv12 c.nv12 || bad "FIFO: not the JPEG's bytes"
ALLOW=(a.nv12 b.nv12 c.nv12 f); settled
end

begin raw-frame-wrong-length-same-message-every-way
# A raw frame that starts FF D8 FF, one byte too long for its --size: a named file (or standard input from one)
# got a JPEG's "hierarchical JPEG" error and "--size ... ignores it", a pipe the frame's own length message. Bytes
# that break a JPEG's segments at once are the raw frame on every route now, and the raw reader says the length.
python3 -c "import os; open('s.raw','wb').write(b'\xff\xd8\xff\x00' + os.urandom(1048577 - 4))"
snap
run s.raw -s 341x2048 -o a.png
status 1; says 's.raw: is 1048577 bytes, but 341x2048 nv12 needs 1048576 bytes'
"$BIN" - -s 341x2048 -o b.png < s.raw > "$OUT" 2> "$ERR"; rc=$?
[ $rc -eq 1 ] || bad "stdin file: exit $rc"; says '<stdin>: is 1048577 bytes, but 341x2048'
cat s.raw | "$BIN" - -s 341x2048 -o c.png > "$OUT" 2> "$ERR"; rc=${PIPESTATUS[1]}
[ $rc -eq 1 ] || bad "pipe: exit $rc"; says 'goes on past one frame'
LC_ALL=C grep -q 'ignores it' "$ERR" && bad "called a JPEG: $(errline)"
# Samples that read as a segment reaching past the first 64 KiB looked at, then break the header: the look goes on
# (one random frame in 40 got the JPEG's "marker libjpeg does not know" instead).
python3 -c "import os; d = b'\xff\xd8\xff\xe1\xff\xff' + bytes(65533) + b'\xff\x39'; open('t.raw','wb').write(d + os.urandom(1048577 - len(d)))"
run t.raw -s 341x2048 -o t.png
status 1; says 't.raw: is 1048577 bytes, but 341x2048 nv12 needs 1048576 bytes'
rm -f t.raw
settled
end

begin stream-look-asks-libjpeg
# The stream look (--size on a pipe) walked the segments itself: a JPEG with junk between its segments (which
# libjpeg skips with a warning) was taken for a raw frame — padded to one frame's length its bytes were written as
# the picture, exit 0 — and a raw frame whose bytes reached FF DA was sent to the JPEG reader. libjpeg decides.
python3 - "$JPG" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
i = 2 + 2 + (b[4] << 8 | b[5])      # after SOI and the first segment
j = b[:i] + bytes(3) + b[i:]
open('junk.jpg', 'wb').write(j)
open('sos.nv12', 'wb').write(b'\xff\xd8\xff\xda' + bytes(64 * 64 * 3 // 2 - 4))
PY
snap
"$BIN" junk.jpg -o a.nv12 -q 2>/dev/null || bad "junk.jpg does not convert"
cat junk.jpg | timeout 20 "$BIN" - -s 64x64 -o b.nv12 -q > "$OUT" 2> "$ERR"; rc=${PIPESTATUS[1]}
[ $rc -eq 0 ] || bad "junk JPEG piped with --size: exit $rc: $(errline)"
cmp -s a.nv12 b.nv12 || bad "junk JPEG piped: not the JPEG's bytes"
"$BIN" sos.nv12 -s 64x64 -o c.png -q 2> "$ERR" || bad "sos.nv12 named: $(errline)"
cat sos.nv12 | timeout 20 "$BIN" - -s 64x64 -o d.png -q > "$OUT" 2> "$ERR"; rc=${PIPESTATUS[1]}
[ $rc -eq 0 ] || bad "FF D8 FF DA frame piped: exit $rc: $(errline)"
cmp -s c.png d.png || bad "FF D8 FF DA frame piped: not the named file's bytes"
ALLOW=(a.nv12 b.nv12 c.png d.png); settled
end

begin single-dry-run-sniffs
# A single file's dry run said "convert" and exit 0 for a file the run refuses by its first bytes (a GIF, a text
# file), as a batch's dry run did not: it reads them too now.
printf 'GIF89a\x08\x00\x08\x00\x80\x00\x00' > g.gif; printf 'hello, world' > h.txt; cp "$JPG" j.jpg; snap
run g.gif -o a.nv12 -n
status 1; LC_ALL=C grep -q '^refuse g.gif' "$OUT" || bad "dry run: $(head -c 120 "$OUT")"
run h.txt -o a.nv12 -n
status 1; LC_ALL=C grep -q '^refuse h.txt' "$OUT" || bad "dry run: $(head -c 120 "$OUT")"
run j.jpg -o a.nv12 -n
status 0; LC_ALL=C grep -q '^convert j.jpg' "$OUT" || bad "dry run of a JPEG: $(head -c 120 "$OUT")"
settled
end

begin overlong-input-name-is-the-inputs
# A batch input whose name the system cannot hold was failed as an output name that --name or -o made too long; it
# is the input's: "cannot open: File name too long", as its dry run and a single conversion say.
long=$(printf 'b%.0s' $(seq 300))
snap
run "$long" -o out/ -q
status 1; says "^yuvconv: error: b+: cannot open: File name too long"
LC_ALL=C grep -q -- '--name' "$ERR" && bad "blamed --name: $(errline)"
run "$long" -o out/ -n
status 1; LC_ALL=C grep -q 'cannot open: File name too long' "$OUT" || bad "dry run: $(head -c 200 "$OUT")"
settled
end

# Nothing under Fixtures/ changed.
begin signal-between-the-force-swap-and-its-swap-back
# --force swaps the finished output with what is at its name (renameat2 RENAME_EXCHANGE) and swaps a file put
# there since the last look back again; the temporary name stayed registered with the signal handlers, so a
# signal between the two swaps removed that newcomer, which was then at the temporary name. strace holds the
# exchange (1.5 s before it, while the name gets its newcomer; 1.5 s after, while SIGUSR1 comes): the newcomer
# must be kept somewhere. (Skipped where strace cannot inject or the folder cannot swap.)
if ! strace -qq -o /dev/null true 2>/dev/null; then skipped "needs strace"; else
cp "$PNG" a.png; echo old > x.nv12; snap
strace -f -qq -o /dev/null -e trace=renameat2 -e inject=renameat2:delay_enter=1500000:delay_exit=1500000:when=1 \
  "$BIN" a.png -o x.nv12 --force -q 2>/dev/null &
sleep 0.7; mv x.nv12 x.old; echo "someone else's" > x.nv12
sleep 1.5; pkill -USR1 -f "^$BIN a.png -o x.nv12 --force"; wait
kept=$(grep -l "someone else's" x.nv12 .x.nv12.yuvconv-* 2>/dev/null | head -1)
[ -n "$kept" ] || bad "the file put at the output's name during the run is gone"
rm -f x.old .x.nv12.yuvconv-*
ALLOW=(x.nv12); settled
fi
end

begin signal-while-update-makes-its-journal-or-spool
# Where a file system has no unnamed files (O_TMPFILE: FAT, exFAT, most FUSE ones; here tools/casefold-fs.py
# --like-exfat), --update's journal in the output folder and the batch's spool in $TMPDIR were made by name and
# not registered with the signal handlers until (journal) or at all (spool, an mkstemp name unlinked at once): a
# signal in between left an empty .yuvconv-manifest.journal.XXXXXX for good, or a .yuvconv-spool-XXXXXX. strace
# holds the create 3 s; SIGUSR1 comes within it (one that ends the run at once: SIGINT and SIGTERM let a batch
# stop and clean up by itself).
if [ "$(id -u)" != 0 ] || [ ! -e /dev/fuse ] || ! /usr/bin/python3 "$here/tools/casefold-fs.py" --check 2>/dev/null \
   || ! strace -qq -o /dev/null true 2>/dev/null; then skipped "needs root, /dev/fuse, python3-fusepy and strace"; else
mkdir -p x.backing x in; cp "$PNG" in/a.png
(/usr/bin/python3 "$here/tools/casefold-fs.py" --like-exfat x.backing x </dev/null >/dev/null 2>&1 &)
for i in $(seq 50); do mountpoint -q x && break; sleep 0.1; done
if ! mountpoint -q x; then skipped "tools/casefold-fs.py could not mount here"; else
MOUNTS+=("$D/x")
snap
mkdir -p x/t tmp
# The create's place among the openat calls of a run that is not stopped, then a run held there (3 s) and
# stopped once the file is there (in the folder WATCHED).
held() {   # held PATTERN TMPDIR OUTPUT-FOLDER WATCHED
  TMPDIR=$2 strace -f -qq -o calls.txt -e trace=openat "$BIN" in/ -o "$3" --update -q 2>/dev/null
  rm -rf "$3"
  local n k; n=$(grep -n -E "$1" calls.txt | head -1 | cut -d: -f1)
  if [ -z "$n" ]; then rm -f calls.txt; bad "no create matching /$1/ seen"; return; fi
  k=$(head -n "$n" calls.txt | grep -c openat); rm -f calls.txt
  TMPDIR=$2 strace -f -qq -o /dev/null -e trace=openat -e inject=openat:delay_exit=3000000:when=$k "$BIN" in/ -o "$3" --update -q 2>/dev/null &
  for i in $(seq 50); do [ -n "$(ls -A "$4" 2>/dev/null | grep yuvconv)" ] && break; sleep 0.05; done
  [ -n "$(ls -A "$4" 2>/dev/null | grep yuvconv)" ] || bad "the held create never made its file in $4"
  pkill -USR1 -f "^$BIN in/ -o $3 --update"; wait
}
held 'openat\([0-9]+, "\.yuvconv-manifest\.journal\.[A-Za-z0-9]+", .*O_EXCL' "$D/tmp" x/j/ x/j
left=$(ls -A x/j 2>/dev/null | grep -c journal)
[ "$left" = 0 ] || bad "an interrupted --update left $left journal file(s) in its output folder: $(ls -A x/j | tr '\n' ' ')"
held 'openat\([0-9]+, "\.yuvconv-[A-Za-z0-9]+", .*O_EXCL' "$D/x/t" o/ x/t
[ -z "$(ls -A x/t)" ] || bad "an interrupted --update left a file in \$TMPDIR: $(ls -A x/t | tr '\n' ' ')"
rm -rf x/j x/t o tmp
umount x && unset 'MOUNTS[-1]'; settled
fi
fi
end

begin signal-while-an-output-claims-its-name
# Where a file system has no hard links and no rename that replaces nothing (exFAT through exfat-fuse; here
# tools/casefold-fs.py --like-exfat), an output claims its name with an empty file made O_EXCL and is renamed over
# it. A SIGINT or SIGTERM between the two left the empty claim at the output's name (exit 130, and the next run
# said "already exists"): the claim is now registered with the handlers, which remove it while it is empty.
# strace holds the claim's openat for 1.5 s; the signal comes within it.
if [ "$(id -u)" != 0 ] || [ ! -e /dev/fuse ] || ! /usr/bin/python3 "$here/tools/casefold-fs.py" --check 2>/dev/null \
   || ! strace -qq -o /dev/null true 2>/dev/null; then skipped "needs root, /dev/fuse, python3-fusepy and strace"; else
mkdir -p x.backing x; cp "$PNG" a.png
(/usr/bin/python3 "$here/tools/casefold-fs.py" --like-exfat x.backing x </dev/null >/dev/null 2>&1 &)
for i in $(seq 50); do mountpoint -q x && break; sleep 0.1; done
if ! mountpoint -q x; then skipped "tools/casefold-fs.py could not mount here"; else
MOUNTS+=("$D/x")
strace -f -qq -o claims.txt -e trace=openat "$BIN" a.png -o x/o.nv12 -q 2>/dev/null; rm -f x/o.nv12
n=$(grep -n 'openat([0-9]*, "o.nv12", .*O_EXCL' claims.txt | head -1 | cut -d: -f1)
if [ -z "$n" ]; then bad "no O_EXCL claim seen: $(grep -c openat claims.txt) openat calls"; else
  k=$(head -n "$n" claims.txt | grep -c openat); rm -f claims.txt; snap
  left=0
  for sig in INT TERM; do
    strace -f -qq -o /dev/null -e trace=openat -e inject=openat:delay_exit=1500000:when=$k "$BIN" a.png -o x/o.nv12 -q 2>/dev/null &
    sleep 0.8; pkill -$sig -f "^$BIN a.png -o x/o.nv12"; wait
    [ -e x/o.nv12 ] && { left=$((left + 1)); rm -f x/o.nv12; }
  done
  [ "$left" = 0 ] || bad "$left of 2 interrupted runs left a file at the output's name"
fi
umount x && unset 'MOUNTS[-1]'; settled
fi
fi
end

begin refused-colour-transform-state-fails-the-file
# Memory refused for a colour transform's own state (its 48-byte struct; a CMYK one's 72, with its table of
# colours) converted the picture without its profile, exit 0 — colours that depended on the memory at hand. An
# LD_PRELOAD shim refuses that one calloc: the file now fails as out of memory, and nothing is written.
if ! command -v cc > /dev/null; then skipped "no C compiler here"; else
cat > failc.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
static void *(*real)(size_t, size_t);
void *calloc(size_t n, size_t s) {
    if (!real) real = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    if (!real) return NULL;
    static long fn = -2, fs;
    if (fn == -2) { const char *e = getenv("FAIL_CALLOC"); fn = -1; if (e) sscanf(e, "%ld,%ld", &fn, &fs); }
    if ((long)n == fn && (long)s == fs) { fputs("[refused]\n", stderr); errno = ENOMEM; return NULL; }
    return real(n, s);
}
C
if ! cc -shared -fPIC -o failc.so failc.c -ldl 2>/dev/null; then skipped "the shim did not build"; else
rm failc.c; cp "$here/Fixtures/colour/kodim23-p3.jpg" p3.jpg; cp "$here/Fixtures/colour/kodim23-cmyk.jpg" cmyk.jpg; snap
for c in "p3.jpg 1,48" "cmyk.jpg 1,72"; do
  set -- $c
  WRAP=(env LD_PRELOAD="$D/failc.so" FAIL_CALLOC="$2"); run "$1" -o o.nv12 -q; WRAP=()
  grep -q '^\[refused\]' "$ERR" || bad "$1: no calloc($2) refused (has the struct's size changed?)"
  status 1; says 'out of memory'; [ -e o.nv12 ] && bad "$1: an output was written"
done
settled
fi
fi
end

begin fixtures-untouched
[ "$(cd "$here" && find Fixtures -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum)" = "$fixtures_before" ] ||
  bad "a file under Fixtures/ changed"
end

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
