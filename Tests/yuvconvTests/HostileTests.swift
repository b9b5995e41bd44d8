import CShims
import Foundation
import TestSupport
import XCTest
import YUVIO

/// What hostile use found (issue #13), one test per class of hole: each checks exit code, message, the
/// files around and what is left behind. `make test-hostile` (tools/hostile.sh) runs the same attacks and
/// more from a shell.
final class HostileTests: CLITestCase {
    /// Runs a bash script in the work folder with `$B` the binary and `$F` the fixtures' corpus folder.
    @discardableResult
    func sh(_ script: String) throws -> Result {
        // No core file (SIGQUIT's default action writes one into the work folder where a machine enables them).
        try launch(URL(fileURLWithPath: "/bin/bash"), ["-c", "ulimit -c 0; " + script],
                   environment: ["B": binary.path, "F": fixturesURL.appendingPathComponent("corpus").path], stdin: .null)
    }

    func data(_ name: String) throws -> Data { try Data(contentsOf: work.appendingPathComponent(name)) }

    /// Standard error opened on an input (`2<>in.jpg`, `2>>in.png`, a file of a folder given to convert): a usage
    /// error found before the run knew its inputs (an unknown option, a bad shard, a terminal output, a missing
    /// list) was written into the input — at its start with `2<>`, ruining it. Such errors now give their exit
    /// status alone until the inputs are checked; a log file that is no input still gets the message.
    func testEarlyErrorsAreNotWrittenIntoAnInputOnStandardError() throws {
        let r = try sh("""
            set -u
            cp "$F/photos/rocket.jpg" in.jpg; cp in.jpg keep.jpg; mkdir d; cp "$F/pngsuite/basn2c08.png" d/a.png; cp d/a.png keep.png
            for args in "--bogus" "--shard 9/3" "-o /dev/tty" "--max-memory 1K" "-o x.nv12 --files-from nolist" "-o out.txt" \
                        "in.jpg -o o/"; do
              "$B" in.jpg $args 2<>in.jpg; echo "rw $?"
              "$B" in.jpg $args 2>>in.jpg; echo "append $?"
              cmp -s in.jpg keep.jpg || echo "CHANGED: $args"
            done
            "$B" report in.jpg -o x 2>>in.jpg; echo "report $?"
            "$B" convert d/ --bogus -o out/ 2>>d/a.png; echo "folder $?"
            cmp -s d/a.png keep.png || echo "CHANGED: d/a.png"
            "$B" in.jpg --bogus 2>log.txt; echo "log $?"
            grep -c "unknown option '--bogus'" log.txt
            # Standard input's file, and a file a list names: inputs too.
            "$B" - -o s.nv12 --bogus < in.jpg 2>>in.jpg; echo "stdin $?"
            printf 'in.jpg\n' > list.txt
            "$B" convert --files-from list.txt -o lo/ --matrix zz 2>>in.jpg; echo "list $?"
            cmp -s in.jpg keep.jpg || echo "CHANGED: in.jpg by stdin or list"
            # Inputs whose names begin like an option and are none: after `--`, as --files-from's value (the look read
            # `-oops.txt` as an output named `ops.txt`, and left the file it names to the message).
            # Raw frames (no picture's signature, which alone kept a JPEG so named from the message).
            head -c 384 in.jpg | tail -c 380 > keep.nv12; cp keep.nv12 ./-odd.nv12; cp keep.nv12 ./-yodd.nv12
            printf 'in.jpg\n' > ./-olist.txt; cp ./-olist.txt keeplist.txt
            "$B" --bogus -s 16x16 -o x.yuv -- -odd.nv12 2>>-odd.nv12; echo "dashes $?"
            "$B" --bogus -s 16x16 -o x.yuv -- -yodd.nv12 2>>-yodd.nv12; echo "cluster $?"
            "$B" convert --files-from -olist.txt -o lo/ --bogus 2>>-olist.txt; echo "listvalue $?"
            cmp -s ./-odd.nv12 keep.nv12 && cmp -s ./-yodd.nv12 keep.nv12 && cmp -s ./-olist.txt keeplist.txt \
              || echo "CHANGED: a name beginning like an option"
            # A log file in an input folder is no input: its usage error, and a warning from before the inputs were
            # checked (a FIFO skipped in the folder), reach it.
            mkdir -p d/logs; "$B" convert d/ -o o2/ --quality 0 2>d/logs/e.log; echo "dirlog $?"
            grep -c 'quality' d/logs/e.log
            mkfifo d/f.png; "$B" convert d/ -o o3/ -q 2>d/logs/w.log; echo "warned $?"
            grep -c 'f.png' d/logs/w.log
            """)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertFalse(out.contains("CHANGED"), out)
        XCTAssertEqual(out.split(separator: "\n").filter { $0.hasPrefix("rw ") || $0.hasPrefix("append ") }.count, 14, out)
        XCTAssertTrue(out.contains("rw 2\nappend 2\n"), out)
        XCTAssertTrue(out.contains("report 2\nfolder 2\nlog 2\n1\nstdin 2\nlist 2\ndashes 2\ncluster 2\nlistvalue 2\n"), out)
        XCTAssertTrue(out.contains("dirlog 2\n1\n"), out)
        XCTAssertTrue(out.contains("warned 0\n1\n"), out)
        XCTAssertFalse(out.split(separator: "\n").contains { $0.hasSuffix(" 0") && !$0.hasPrefix("warned") },
                       "every early error still fails: \(out)")
    }

    /// Standard error open on a file the run protects — an existing output (single or in a batch), the report file,
    /// `--update`'s manifest, a report named onto standard error — was refused (exit 2) with the refusal written
    /// into that file: over its first bytes with `2<>`, after them with `2>>`, without --force; a manifest so
    /// damaged failed every later `--update`. A regular file now gets nothing; a pipe still gets the sentence.
    func testRefusalsAboutStandardErrorAreNotWrittenIntoItsFile() throws {
        let r = try sh("""
            set -u
            cp "$F/photos/kodim23.png" a.png; cp "$F/photos/rocket.jpg" b.jpg
            "$B" a.png -o one.nv12 -q; cp one.nv12 one.keep
            "$B" a.png -o one.nv12 2<>one.nv12; echo "single-rw $?"
            "$B" a.png -o one.nv12 --force 2>>one.nv12; echo "single-append $?"
            cmp -s one.nv12 one.keep || echo "CHANGED: one.nv12"
            "$B" convert a.png b.jpg -o out/ -q --update; cp out/a.nv12 k.keep; cp out/.yuvconv-manifest m.keep
            "$B" convert a.png b.jpg -o out/ --force 2<>out/a.nv12; echo "batch $?"
            cmp -s out/a.nv12 k.keep || echo "CHANGED: batch output"
            "$B" convert a.png b.jpg -o out/ --update 2<>out/.yuvconv-manifest; echo "manifest $?"
            cmp -s out/.yuvconv-manifest m.keep || echo "CHANGED: manifest"
            "$B" convert a.png b.jpg -o out/ --update -q; echo "update-after $?"
            printf '{"kept": 1}\\n' > r.json; cp r.json r.keep
            "$B" convert a.png b.jpg -o out/ --force --report json --report-file r.json 2<>r.json; echo "report $?"
            "$B" a.png -o one.nv12 --force --report json --report-file r.json 2>>r.json; echo "single-report $?"
            "$B" convert a.png b.jpg -o out/ --force --report json --report-file /dev/stderr 2>>r.json; echo "on-stderr $?"
            cmp -s r.json r.keep || echo "CHANGED: report"
            "$B" convert a.png b.jpg -o out/ --force --report json --report-file /dev/stderr 2>&1 | grep -c 'is standard error'
            # A warning found before the refusal (a FIFO skipped in an input folder) is held, and dropped with it.
            mkdir in; cp a.png in/a.png; mkfifo in/x.png
            "$B" convert in/ -o out2/ --update -q; cp out2/.yuvconv-manifest m2.keep; cp out2/a.nv12 a2.keep
            "$B" convert in/ -o out2/ --update 2>>out2/.yuvconv-manifest; echo "held-manifest $?"
            "$B" convert in/ -o out2/ --force 2<>out2/a.nv12; echo "held-output $?"
            cmp -s out2/.yuvconv-manifest m2.keep || echo "CHANGED: manifest by a held warning"
            cmp -s out2/a.nv12 a2.keep || echo "CHANGED: output by a held warning"
            # The data's own file as standard error (-o /dev/stderr, or data and messages on one file): nothing added.
            printf OLD > w.yuv; "$B" a.png -o /dev/stderr 2>>w.yuv; echo "data-on-stderr $? $(cat w.yuv)"
            printf OLD > v.yuv; "$B" a.png -o - >>v.yuv 2>&1; echo "data-and-messages $? $(cat v.yuv)"
            # A log is no file the run writes: a refusal about the report on standard error is said there.
            "$B" convert a.png b.jpg -o o3/ --report json --report-file /dev/stderr 2>run.log; echo "log $? $(grep -c 'is standard error' run.log)"
            # The report named onto standard error over a file's bytes (a single conversion), and a usage error found
            # before anything is known, over an output's bytes or after them: nothing written there.
            printf 'KEEP%.0s' $(seq 100) > L; cp L L.keep
            "$B" a.png -o s.nv12 --report text --report-file /dev/stderr 2<>L; echo "report-fd $?"
            "$B" a.png -o one.nv12 --matrix bogus 2<>one.nv12; echo "usage-rw $?"
            "$B" a.png -o one.nv12 --matrix bogus 2>>one.nv12; echo "usage-append $?"
            cmp -s L L.keep || echo "CHANGED: L"
            cmp -s one.nv12 one.keep || echo "CHANGED: one.nv12 by a usage error"
            # Found before the batch compares its outputs with standard error (a usage error, a clash in the plan): not
            # written into its manifest or an output; nor is a batch dry run's listing into an output on standard output.
            cp in/a.png in/c.png; mkdir in2; cp b.jpg in2/a.png
            "$B" convert in/a.png in2/a.png -o out2/ --update 2>>out2/.yuvconv-manifest; echo "clash $?"
            "$B" convert in/ -o out2/ --update --bogus 2>>out2/.yuvconv-manifest; echo "bogus $?"
            "$B" convert in/ -o out2/ -j 0 2>>out2/a.nv12; echo "jobs $?"
            "$B" convert -n in/ -o out2/ 1>>out2/a.nv12; echo "dry $?"
            cmp -s out2/.yuvconv-manifest m2.keep || echo "CHANGED: manifest by an early error"
            cmp -s out2/a.nv12 a2.keep || echo "CHANGED: output by an early error or a listing"
            """)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertFalse(out.contains("CHANGED"), out)
        XCTAssertTrue(out.contains("single-rw 2\nsingle-append 2\nbatch 2\nmanifest 2\nupdate-after 0\nreport 2\nsingle-report 2\non-stderr 2\n1\n"), out)
        XCTAssertTrue(out.contains("held-manifest 2\nheld-output 2\ndata-on-stderr 2 OLD\ndata-and-messages 2 OLD\nlog 2 1\n"
                                   + "report-fd 2\nusage-rw 2\nusage-append 2\nclash 2\nbogus 2\njobs 2\ndry 2\n"), out)
    }

    /// `-o -` (or `/dev/fd/N`) on a regular file that a failure or a signal stopped left its partial bytes there,
    /// exit 1 or 130 — after the header a `>>` stream had, shifting every later frame: only `1<>old --force` was cut
    /// back, and not on a signal. Every descriptor on a regular file now ends where the output began.
    func testPartialOutputOnADescriptorFileIsCutBack() throws {
        let r = try sh("""
            set -u
            cut() { head -c 400000 "$F/photos/kodim23.png"; }
            cut > cut.png
            "$B" cut.png -o - > new.nv12; echo "new $? $(stat -c %s new.nv12)"
            printf 'HDR\n' > all.yuv; "$B" cut.png -o - >> all.yuv; echo "append $? $(stat -c %s all.yuv)"
            exec 8<>fd8.out; "$B" cut.png -o /dev/fd/8; echo "fd $? $(stat -c %s fd8.out)"; exec 8>&-
            mkfifo pf
            ( cut; sleep 20 ) > pf & W=$!
            printf 'HDR\n' > sig.out
            "$B" pf -o - >> sig.out & P=$!
            for i in $(seq 200); do [ "$(stat -c %s sig.out)" -gt 4 ] && break; sleep 0.05; done
            echo "written $(stat -c %s sig.out)"
            kill -INT $P; wait $P; echo "signal $? $(stat -c %s sig.out)"
            kill $W 2>/dev/null; wait
            # Another writer appends while it stalls: its bytes are never cut (nor, then, the partial frame before them).
            ( cut; sleep 20 ) > pf & W=$!
            printf 'HDR\n' > two.out
            "$B" pf -o - >> two.out & P=$!
            for i in $(seq 200); do [ "$(stat -c %s two.out)" -gt 4 ] && break; sleep 0.05; done
            printf 'OTHER\n' >> two.out
            kill -TERM $P; wait $P; echo "other $? $(tail -c 6 two.out)"
            kill $W 2>/dev/null; wait
            """)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(out.contains("new 1 0\nappend 1 4\nfd 1 0\n"), out)
        XCTAssertFalse(out.contains("written 4\n"), "the signal came after bytes were written: \(out)")
        XCTAssertTrue(out.contains("signal 130 4\n"), out)
        XCTAssertTrue(out.contains("other 143 OTHER\n"), out)
    }

    /// A batch's output that cannot be opened (a FIFO nobody reads, a folder it cannot write in) was listed in the
    /// summary under the output's name alone; every failure of a batch is now listed under its input.
    func testBatchFailuresToOpenAnOutputNameTheInput() throws {
        let r = try sh("""
            set -u
            mkdir in o; cp "$F/photos/kodim23.png" in/a.png; cp "$F/photos/kodim23.png" in/b.png
            mkfifo o/a.nv12
            "$B" convert in/ -o o/ --force -q; echo "status $?"
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "status 1\n")
        XCTAssertTrue(r.stderr.contains("failed: in/a.png: cannot write o/a.nv12: no process opened the FIFO to read it within 5 s"),
                      r.stderr)
    }

    /// A descriptor whose position is past its file's end (`lseek` beyond it): a failed output was cut back to that
    /// position, leaving the file longer than before with a hole of zeros the first write made. It now ends where it
    /// did (and the position is put back, as for any cut).
    func testFailedOutputPastAFilesEndLeavesItsSize() throws {
        let r = try sh("""
            set -u
            head -c 400000 "$F/photos/kodim23.png" > cut.png
            printf 'Q%.0s' $(seq 100) > keep.bin
            python3 -c '
            import os, subprocess, sys
            fd = os.open("keep.bin", os.O_WRONLY); os.lseek(fd, 1000, 0)
            r = subprocess.run([sys.argv[1], "cut.png", "-o", "-", "-q"], stdout=fd, stderr=subprocess.DEVNULL)
            print("past", r.returncode, os.path.getsize("keep.bin"), os.lseek(fd, 0, 1))
            ' "$B"
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "past 1 100 1000\n", r.stderr)
    }

    /// `--max-memory` was ignored for YUV input, whose frame is held whole (an 8000x8000 10-bit Y4M took 195 MB
    /// under --max-memory 50M, exit 0): refused before the frame is read, raw and Y4M alike; under it, converted.
    func testMaxMemoryHoldsForYUVInput() throws {
        let r = try sh("""
            printf 'YUV4MPEG2 W4000 H4000 C420p10 XCOLORRANGE=FULL\nFRAME\n' > big.y4m; truncate -s 48000053 big.y4m
            "$B" big.y4m -o a.nv12 --max-memory 20M; echo "y4m $?"
            head -c 24000000 /dev/zero > big.nv12
            "$B" big.nv12 -s 4000x4000 -o b.nv21 --max-memory 20M; echo "raw $?"
            "$B" big.nv12 -s 4000x4000 -o c.nv21 --max-memory 30M -q; echo "under $?"
            ls
            """)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(out.hasPrefix("y4m 1\nraw 1\nunder 0\n"), out)
        XCTAssertTrue(r.stderr.contains("big.y4m: holding the YUV frame needs 45.8 MiB held whole, above the limit of 20 MiB"), r.stderr)
        XCTAssertTrue(r.stderr.contains("big.nv12: holding the YUV frame needs 22.9 MiB held whole"), r.stderr)
        XCTAssertFalse(out.contains("a.nv12") || out.contains("b.nv21"), out)
        XCTAssertTrue(out.contains("c.nv21"), out)
    }

    /// Standard error named as the output (`-o /dev/stderr`, `/dev/fd/2`, `/proc/self/fd/2`) took the picture
    /// with the messages before and after it, exit 0: refused, nothing of the picture written (with -q, which
    /// silences every message, it takes the data alone). Terminals: a
    /// picture is neither read from one (`-` waited forever) nor written to one by name (`-o /dev/tty`).
    func testStandardErrorAndTerminalsAreNotData() throws {
        for path in ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"] {
            let r = try sh("\"$B\" \"$F/pngsuite/basn2c08.png\" -o \(path) --size 3x3 2> err.bin; echo $?")
            XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "2\n", path)
            let err = String(decoding: try data("err.bin"), as: UTF8.self)
            XCTAssertTrue(err.contains("the output is standard error"), err)
            XCTAssertLessThan(try data("err.bin").count, 1000, "no picture in it: \(path)")
        }
        // With -q every message is silenced instead, and standard error's file takes the data alone (a warning
        // that -q keeps would have gone into it: here --size's).
        let quiet = try sh("\"$B\" \"$F/pngsuite/basn2c08.png\" -o /dev/stderr -q --size 3x3 2> d.bin && "
                           + "\"$B\" \"$F/pngsuite/basn2c08.png\" -o - -q > s.bin && cmp d.bin s.bin && echo same")
        XCTAssertEqual(String(decoding: quiet.stdout, as: UTF8.self), "same\n", quiet.stderr)
        // Standard error closed at start is /dev/null: the picture would be lost with exit 0; the status says it.
        let closed = try sh("\"$B\" \"$F/pngsuite/basn2c08.png\" -o /dev/stderr -q 2>&-; echo $?")
        XCTAssertEqual(String(decoding: closed.stdout, as: UTF8.self), "1\n")
        // `script` (util-linux, in every Debian) gives the commands a terminal.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("no script(1)") }
        let t = try sh("""
            ln -s /dev/tty ttylink; printf '/dev/stdin\\n' > list.txt
            timeout 20 script -qec 'timeout 5 "$B" - -o in.nv12; echo "stdin $?"; timeout 5 "$B" convert --files-from list.txt -o lo/ -q; echo "list $?"; "$B" "$F/pngsuite/basn2c08.png" -o /dev/tty -q; echo "tty $?"; for t in //dev/tty ttylink; do "$B" "$F/pngsuite/basn2c08.png" -o $t -q; echo "alias $?"; done; for i in /dev/tty ttylink; do "$B" $i -o named.nv12; echo "named input $?"; "$B" -n $i -o named.nv12; echo "dry input $?"; done; printf "/dev/tty\\n" > tl.txt; "$B" convert -n --files-from tl.txt -o tlo/; echo "dry list $?"' /dev/null < /dev/null
            """)
        let out = String(decoding: t.stdout, as: UTF8.self)
        XCTAssertTrue(out.contains("standard input is a terminal"), out)
        XCTAssertTrue(out.contains("stdin 2"), out)
        // A list naming /dev/stdin: that input fails with the reason (it waited), exit 1.
        XCTAssertTrue(out.contains("/dev/stdin: cannot open: standard input is a terminal") && out.contains("list 1"), out)
        XCTAssertTrue(out.contains("refusing to write binary data to a terminal"), out)
        XCTAssertTrue(out.contains("tty 2"), out)
        // /dev/tty under another name (it was refused as the text "/dev/tty" only).
        XCTAssertEqual(out.components(separatedBy: "alias 2").count - 1, 2, out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("in.nv12").path))
        // A terminal named as the input is a usage error, as `-` on one is — in a dry run too (it was exit 1 at its
        // open, and the dry run listed it as to convert, exit 0).
        XCTAssertEqual(out.components(separatedBy: "named input 2").count - 1, 2, out)
        XCTAssertEqual(out.components(separatedBy: "dry input 2").count - 1, 2, out)
        XCTAssertTrue(out.contains("is a terminal, and a picture is not typed in"), out)
        // Listed in a file, it fails as the run's open fails it: the dry run said it would convert it.
        XCTAssertTrue(out.contains("dry list 1") && out.contains("/dev/tty: cannot open: is a terminal"), out)
    }

    /// A signal during the last file (here a FIFO whose writer says nothing), with nothing left to start: the
    /// summary and the CSV report's totals said nothing of the interruption (JSON's `interrupted` did), as if the
    /// run had ended by itself with one failure.
    func testAnInterruptDuringTheLastFileIsSaid() throws {
        let r = try sh("""
            cp "$F/pngsuite/basn2c08.png" a.png; mkfifo f.png
            ( exec 3<>f.png; exec sleep 5 ) & w=$!
            "$B" convert a.png f.png -o out/ -j 1 --report csv > r.csv 2> err.txt & pid=$!
            for i in $(seq 200); do [ -e out/a.nv12 ] && break; sleep 0.05; done; sleep 0.3
            kill -INT $pid; wait $pid; echo "rc $?"; kill $w 2>/dev/null; cat err.txt; tail -n 1 r.csv
            """)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(out.hasPrefix("rc 130\n"), out)
        XCTAssertTrue(out.contains("yuvconv: 1 converted, 0 skipped (already there), 1 failed (interrupted)\n"), out)
        XCTAssertTrue(out.contains("\"TOTAL (1 image, 1 failed, interrupted)\""), out)
    }

    /// An HTML report keeps its rows in a temporary file until the end; when that file cannot grow (a full
    /// `$TMPDIR`; here a file-size limit) the report is not written, and the error says so of the report file — it
    /// named only the temporary folder ("/tmp: cannot write a temporary file"), and the report was silently gone.
    func testAReportThatCannotBeSetAsideIsSaidLost() throws {
        let r = try sh("""
            mkdir many; for i in $(seq 200); do cp "$F/pngsuite/basn2c08.png" many/p$i.png; done; echo OLD > r.html
            (ulimit -f 40; "$B" convert many/ -o out/ -q --report html --report-file r.html --force); echo "rc $?"
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "rc 1\n", r.stderr)
        XCTAssertTrue(r.stderr.contains("yuvconv: error: r.html: the report was not written: what it keeps until its end "
                                        + "could not be set aside (cannot write a temporary file in"), r.stderr)
        XCTAssertEqual(String(decoding: try data("r.html"), as: UTF8.self), "OLD\n")
    }

    /// A terminal that is not the run's own is no place for binary data either: a pseudo-terminal another program
    /// holds (`-o /dev/pts/N`, someone's session), /dev/ptmx, /dev/console. They were written to, exit 0. Nothing
    /// is opened to ask (a serial port's board resets when it is opened): the device number says.
    func testOtherTerminalsAreNotData() throws {
        #if os(Linux)
        // posix_openpt, unlockpt and ptsname, as Linux's ioctls (TIOCSPTLCK, TIOCGPTN): Glibc's names are not
        // imported into Swift.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0, number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw XCTSkip("no pseudo-terminal")
        }
        defer { close(master) }
        let pts = "/dev/pts/\(number)"
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        for path in [pts, "/dev/ptmx", "/dev/console"] where FileManager.default.fileExists(atPath: path) {
            // A small picture: written, it fits the terminal's buffer (a large one would wait for a reader).
            let r = try run([fixture("pngsuite/basn2c08.png"), "-o", path, "-q"])
            XCTAssertEqual(r.status, 2, "\(path): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("refusing to write binary data to a terminal"), "\(path): \(r.stderr)")
        }
        var buffer = [UInt8](repeating: 0, count: 64)
        XCTAssertLessThanOrEqual(read(master, &buffer, buffer.count), 0, "nothing reached the terminal")
        // /dev/null and /dev/zero are devices and no terminals: written as ever.
        XCTAssertEqual(try run([fixture("photos/rocket.jpg"), "-o", "/dev/null", "-q"]).status, 0)
        #endif
    }

    /// A raw frame redirected to standard input is a regular file: its size is checked as a named file's (it was
    /// "holds more than one frame" for one byte too many); from a pipe, what comes past the frame is said.
    func testRawFrameOnStandardInputIsSizedAsAFile() throws {
        XCTAssertEqual(try run([fixture("pngsuite/basn2c08.png"), "-o", "f.yuv", "--format", "yuv420p", "-q"]).status, 0)
        let r = try sh("cat f.yuv f.yuv | head -c 1537 > g.yuv; \"$B\" - --size 32x32 --pix-fmt yuv420p -o a.png < g.yuv; "
                       + "cat g.yuv | \"$B\" - --size 32x32 --pix-fmt yuv420p -o b.png")
        XCTAssertTrue(r.stderr.contains("<stdin>: is 1537 bytes, but 32x32 yuv420p needs 1536 bytes"), r.stderr)
        XCTAssertTrue(r.stderr.contains("<stdin>: goes on past one frame: 32x32 yuv420p needs 1536 bytes"), r.stderr)
        XCTAssertEqual(try leftovers().filter { $0.hasSuffix(".png") }, [])
    }

    /// A left-sited 8-bit Y4M written as a 10-bit Y4M loses its siting tag (C420p10 has none): said, as for
    /// PNG output; and a siting warning names the header's own tag (C420p10, not C420jpeg).
    func testY4MSitingLostOrIgnoredIsSaidWithTheHeadersTag() throws {
        var y4m = Data("YUV4MPEG2 W8 H4 F25:1 Ip A1:1 C420mpeg2 XCOLORRANGE=FULL\nFRAME\n".utf8)
        y4m += Data(repeating: 128, count: 8 * 4 * 3 / 2)
        try y4m.write(to: work.appendingPathComponent("m2.y4m"))
        let ten = try run(["m2.y4m", "-o", "o10.y4m", "--depth", "10"])
        XCTAssertEqual(ten.status, 0, ten.stderr)
        XCTAssertTrue(ten.stderr.contains("m2.y4m: its chroma is left-sited (C420mpeg2); a 10-bit Y4M header (C420p10) has no siting tag"),
                      ten.stderr)
        let eight = try run(["m2.y4m", "-o", "o8.y4m"])
        XCTAssertFalse(eight.stderr.contains("warning"), eight.stderr)
        // C420p10 has no siting tag: --chroma-loc says where its chroma sits (as for a raw frame), so it is not
        // "ignored" (it was, and the chroma taken as centre-sited); to 8 bits it gets its tag back.
        let asked = try run(["o10.y4m", "-o", "p.y4m", "--chroma-loc", "left"])
        XCTAssertTrue(asked.stderr.contains("its chroma is left-sited (--chroma-loc left: C420p10 has no siting tag); a 10-bit Y4M header"),
                      asked.stderr)
        XCTAssertFalse(asked.stderr.contains("ignored"), asked.stderr)
        let back = try run(["o10.y4m", "-o", "p8.y4m", "--chroma-loc", "left", "--depth", "8", "-q"])
        XCTAssertEqual(back.status, 0, back.stderr)
        XCTAssertTrue(try String(contentsOf: work.appendingPathComponent("p8.y4m"), encoding: .isoLatin1).hasPrefix(
            "YUV4MPEG2 W8 H4 F25:1 Ip A1:1 C420mpeg2 "))
        // YUV input writes no report, so the warning points to none (it did: "the report's chroma_location …").
        try Data(repeating: 128, count: 8 * 4 * 3 / 2).write(to: work.appendingPathComponent("r.nv12"))
        let raw = try run(["r.nv12", "--size", "8x4", "--chroma-loc", "topleft", "--depth", "10", "-o", "r.y4m"])
        XCTAssertEqual(raw.status, 0, raw.stderr)
        XCTAssertTrue(raw.stderr.contains("a 10-bit Y4M header (C420p10) has no siting tag"), raw.stderr)
        XCTAssertFalse(raw.stderr.contains("report"), raw.stderr)
        // A raw frame's --chroma-loc is where its samples sit, as a Y4M's tag is: to a PNG, the half pixel is said
        // (it said "--chroma-loc … is ignored"), and nothing for the centre, which is where a PNG takes it.
        let left = try run(["r.nv12", "--size", "8x4", "--chroma-loc", "left", "-o", "left.png", "-q"])
        XCTAssertEqual(left.stderr, "yuvconv: warning: r.nv12: its chroma is left-sited (--chroma-loc left); png output is "
                       + "centre-sited and the samples are not resampled, so the colours move by half a pixel\n")
        XCTAssertEqual(try run(["r.nv12", "--size", "8x4", "--chroma-loc", "center", "-o", "c.png", "-q"]).stderr, "")
        // One decision, from where the samples sit and the output's depth: a 10-bit raw frame, whose Y4M is 10-bit
        // without --depth, was let by in silence (run and dry run); a warning is said once (--depth 10 said it twice,
        // once as an option warning), and not for a --chroma-loc that a centre-sited header overrides.
        func tenBitFrame(_ high: UInt8) -> Data { Data((0..<(8 * 4 * 3 / 2)).flatMap { _ in [UInt8(0), high] }) }
        try tenBitFrame(0x02).write(to: work.appendingPathComponent("t.yuv420p10le"))   // 512, in the low 10 bits
        try tenBitFrame(0x80).write(to: work.appendingPathComponent("t.p010"))          // 512, in the high 10 bits
        let says = "its chroma is left-sited (--chroma-loc left); a 10-bit Y4M header (C420p10) has no siting tag"
        for input in ["t.yuv420p10le", "t.p010"] {
            for extra in [[], ["--depth", "10"], ["--dry-run"]] {
                let r = try run([input, "--size", "8x4", "--chroma-loc", "left", "-o", "\(input)-\(extra.count).y4m", "-q"] + extra)
                XCTAssertEqual(r.status, 0, r.stderr)
                XCTAssertEqual(r.stderr.components(separatedBy: "has no siting tag").count - 1, 1, "\(input) \(extra): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains("\(input): \(says)"), "\(input) \(extra): \(r.stderr)")
            }
        }
        let twice = try run(["o10.y4m", "-o", "q.y4m", "--chroma-loc", "left", "--depth", "10", "-q"])
        XCTAssertEqual(twice.stderr.components(separatedBy: "has no siting tag").count - 1, 2, twice.stderr)  // said and its own tag
        var centred = Data("YUV4MPEG2 W8 H4 C420jpeg\nFRAME\n".utf8)
        centred += Data(repeating: 128, count: 8 * 4 * 3 / 2)
        try centred.write(to: work.appendingPathComponent("c.y4m"))
        let overridden = try run(["c.y4m", "-o", "c10.y4m", "--chroma-loc", "left", "--depth", "10"])
        XCTAssertEqual(overridden.status, 0, overridden.stderr)
        XCTAssertFalse(overridden.stderr.contains("has no siting tag"), overridden.stderr)
        XCTAssertTrue(overridden.stderr.contains("--chroma-loc left is ignored"), overridden.stderr)
    }

    /// A JPEG carrying a valid lut8 ICC profile of grid 160 (12.3 MB of table): LittleCMS needs most of its
    /// memory budget to make the transform. The budget was the process's, so in a `-j 2` batch of copies the
    /// jobs took it from each other: some copies were used as stored, some silently not colour-managed at all,
    /// differing run to run. Each conversion now has its own: every copy is the single file's bytes.
    func testColourManagementDoesNotDependOnOtherJobs() throws {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func s15(_ x: Double) -> [UInt8] { be32(Int((x * 65536).rounded()) & 0xFFFF_FFFF) }
        let grid = 160
        var lut: [UInt8] = Array("mft1".utf8) + [0, 0, 0, 0, 3, 3, UInt8(grid), 0]
        for i in 0..<9 { lut += s15(i % 4 == 0 ? 1 : 0) }
        lut += (0..<3).flatMap { _ in (0..<256).map { UInt8($0) } }
        var table = [UInt8](repeating: 0, count: grid * grid * grid * 3)
        for i in 0..<table.count { table[i] = UInt8((i / 3 * 7 + i % 3 * 50) & 255) }
        lut += table
        lut += (0..<3).flatMap { _ in (0..<256).map { UInt8($0) } }
        let desc: [UInt8] = Array("desc".utf8) + [0, 0, 0, 0] + be32(8) + Array("big lut\0".utf8) + [UInt8](repeating: 0, count: 79)
        let wtpt: [UInt8] = Array("XYZ ".utf8) + [0, 0, 0, 0] + s15(0.9642) + s15(1) + s15(0.8249)
        var tags: [(String, [UInt8])] = [("desc", desc), ("wtpt", wtpt), ("A2B0", lut)]
        var offset = 128 + 4 + 12 * tags.count
        var directory: [UInt8] = be32(tags.count), body: [UInt8] = []
        for i in tags.indices {
            while tags[i].1.count % 4 != 0 { tags[i].1.append(0) }
            directory += Array(tags[i].0.utf8) + be32(offset) + be32(tags[i].1.count)
            body += tags[i].1
            offset += tags[i].1.count
        }
        var header = be32(offset) + [0, 0, 0, 0] + be32(0x0210_0000) + Array("mntrRGB XYZ ".utf8) + [UInt8](repeating: 0, count: 12)
        header += Array("acsp".utf8) + [UInt8](repeating: 0, count: 24) + be32(0) + s15(0.9642) + s15(1) + s15(0.8249)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        let profile = header + directory + body
        XCTAssertEqual(try run([fixture("pngsuite/basn2c08.png"), "-o", "plain.jpg", "-q"]).status, 0)
        let plain = [UInt8](try data("plain.jpg"))
        let pieces = stride(from: 0, to: profile.count, by: 65519).map { Array(profile[$0..<min($0 + 65519, profile.count)]) }
        var jpeg: [UInt8] = [0xFF, 0xD8]
        for (i, piece) in pieces.enumerated() {
            let length = 2 + 14 + piece.count
            jpeg += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 255)] + Array("ICC_PROFILE\0".utf8)
                + [UInt8(i + 1), UInt8(pieces.count)] + piece
        }
        jpeg += plain.dropFirst(2)
        try Data(jpeg).write(to: work.appendingPathComponent("single.jpg"))
        let single = try run(["single.jpg", "-o", "single.nv12"])
        XCTAssertEqual(single.status, 0, single.stderr)
        XCTAssertTrue(single.stderr.contains("big lut → sRGB"), single.stderr)
        try FileManager.default.createDirectory(at: work.appendingPathComponent("in"), withIntermediateDirectories: true)
        for i in 0..<8 { try Data(jpeg).write(to: work.appendingPathComponent("in/\(i).jpg")) }
        let batch = try run(["in", "-o", "out/", "-j", "2"])
        XCTAssertEqual(batch.status, 0, batch.stderr)
        XCTAssertFalse(batch.stderr.contains("warning"), batch.stderr)
        let want = try data("single.nv12")
        for i in 0..<8 { XCTAssertEqual(try data("out/\(i).nv12"), want, "copy \(i)") }
    }

    /// Every output name means one format, for single files and batch items alike (`OutputFormat.resolve`).
    func testBatchNamesDecideFormatsAsSingleFilesDo() throws {
        let jpg = fixture("photos/rocket.jpg")
        for ext in ["png", "PNG", "y4m", "yuv", "jpg"] {
            let b = try run(["convert", jpg, "-o", "b-\(ext)/", "--name", "{stem}.\(ext)", "-q"])
            XCTAssertEqual(b.status, 0, "\(ext): \(b.stderr)")
            let s = try run([jpg, "-o", "s.\(ext)", "-q"])
            XCTAssertEqual(s.status, 0, s.stderr)
            XCTAssertEqual(try data("b-\(ext)/rocket.\(ext)"), try data("s.\(ext)"), ext)
        }
        let webp = try run([jpg, "-o", "x.webp"])
        XCTAssertEqual(webp.status, 2)
        XCTAssertTrue(webp.stderr.contains("x.webp: cannot tell the output format from the extension '.webp'"), webp.stderr)
        let bw = try run(["convert", jpg, "-o", "w/", "--name", "{stem}.webp"])
        XCTAssertEqual(bw.status, 2, bw.stderr)
        // Many inputs never turn a file name into a folder, --format or not.
        let many = try run(["-o", "out.nv12", jpg, jpg, "--format", "nv12"])
        XCTAssertEqual(many.status, 2)
        XCTAssertTrue(many.stderr.contains("is not a folder"), many.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("out.nv12").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("x.webp").path))
        // A name template may not leave the output folder, nor be empty.
        for template in ["../esc-{stem}.nv12", "a/../../{stem}.nv12", ""] {
            let r = try run(["convert", jpg, "-o", "o/", "--name", template])
            XCTAssertEqual(r.status, 2, "\(template): \(r.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("esc-rocket.nv12").path))
        // Control bytes in a name are shown escaped, never sent to the terminal as they are.
        let ctl = try run([jpg + "\u{1B}[2J", "-o", "c.nv12"])
        XCTAssertEqual(ctl.status, 1)
        XCTAssertTrue(ctl.stderr.contains("rocket.jpg\\x1B[2J: cannot open"), ctl.stderr)
        // Options a format cannot honour are usage errors.
        XCTAssertEqual(try run([jpg, "-o", "x.png", "--alpha", "keep"]).status, 2)
    }

    /// Sizes from a command line or a header are checked, never trapped on; Y4M other than 8-bit 4:2:0 is
    /// refused; raw input is read one frame by its size, never whole.
    func testSizesAndFramesAreBounded() throws {
        try Data(count: 100).write(to: work.appendingPathComponent("f.nv12"))
        for size in ["4294967296x4294967296", "3037000500x3037000500", "9223372036854775807x2"] {
            let r = try run(["f.nv12", "--size", size, "-o", "o.png"])
            XCTAssertTrue(r.status == 1 || r.status == 2, "\(size): \(r.status) \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("yuvconv: error: "), r.stderr)
        }
        // Sizes no frame can hold (2^60 pixels or more) are one usage error whatever --max-pixels allows, whether
        // their product overflows or not (4294967295x2147483647 was the input's error, exit 1).
        for size in ["3037000500x3037000500", "4294967295x2147483647"] {
            let r = try run(["f.nv12", "--size", size, "--max-pixels", "9223372036854775807", "-o", "o.p010"])
            XCTAssertEqual(r.status, 2, "\(size): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--size \(size) is more pixels than any frame can hold (2^60 or more)"), r.stderr)
        }
        var y4m = Data("YUV4MPEG2 W4294967296 H4294967296 F25:1\nFRAME\n".utf8)
        try y4m.write(to: work.appendingPathComponent("big.y4m"))
        let big = try run(["big.y4m", "-o", "o.png"])
        XCTAssertEqual(big.status, 1, big.stderr)
        XCTAssertTrue(big.stderr.contains("big.y4m: 4294967296x4294967296 is more than"), big.stderr)
        for colour in ["C444", "Cmono", "C420p12", "C422p10"] {
            y4m = Data("YUV4MPEG2 W16 H16 F25:1 Ip A1:1 \(colour)\nFRAME\n".utf8) + Data(count: 16 * 16 * 3)
            try y4m.write(to: work.appendingPathComponent("t.y4m"))
            let r = try run(["t.y4m", "-o", "t.png"])
            XCTAssertEqual(r.status, 1, colour)
            XCTAssertTrue(r.stderr.contains("is not supported: yuvconv reads 4:2:0 Y4M only"), r.stderr)
        }
        // A line after the header that is not a frame header is named (it said the stream "has no FRAME" even for
        // FRAMEX); a control character in it is not sent to the terminal, and it and a byte that is not UTF-8 show as
        // \xNN, as in the header's own errors (each showed as '?').
        for (line, shown) in [(Array("FRAMEX".utf8), "'FRAMEX'"), (Array("FRAME\u{1B}[2J".utf8), "'FRAME\\x1B[2J'"),
                              (Array("FRAME".utf8) + [0xFF, 0x01], "'FRAME\\xFF\\x01'"),
                              (Array("XFRAME 0123456789abcdef".utf8), "'XFRAME 012345678…'")] {
            try (Data("YUV4MPEG2 W2 H2 C420jpeg\n".utf8) + Data(line + [10]) + Data(count: 6)).write(to: work.appendingPathComponent("fx.y4m"))
            let r = try run(["fx.y4m", "-o", "fx.png"])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("fx.y4m: the Y4M header is followed by \(shown), not a frame header: each frame begins "
                                            + "with a line FRAME"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("fx.png").path))
        }
        // The samples right after the header, without a FRAME line (a header printed before `cat frame.yuv`): said so
        // from their first bytes — it said the frame header "has no end" (a frame without a newline byte) or was
        // "longer than 4096 bytes" (one with none in its first 4 KiB).
        for (w, h) in [(4, 4), (64, 64)] {
            try (Data("YUV4MPEG2 W\(w) H\(h)\n".utf8) + Data(repeating: 0x80, count: w * h * 3 / 2)).write(to: work.appendingPathComponent("nf.y4m"))
            let r = try run(["nf.y4m", "-o", "nf.png"])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("nf.y4m: the Y4M header is followed by '" + String(repeating: "\\x80", count: 16)
                                            + "…', not a frame header"), r.stderr)
        }
        // 10-bit 4:2:0 is read, by its own size (a frame of 16-bit samples).
        y4m = Data("YUV4MPEG2 W16 H16 F25:1 Ip A1:1 C420p10 XYSCSS=420P10\nFRAME\n".utf8) + Data(count: 16 * 16 * 3)
        try y4m.write(to: work.appendingPathComponent("t10.y4m"))
        XCTAssertEqual(try run(["t10.y4m", "-o", "t10.png", "-q"]).status, 0)
        try y4m.dropLast(2).write(to: work.appendingPathComponent("t10.y4m"))
        let short = try run(["t10.y4m", "-o", "t11.png"])
        XCTAssertEqual(short.status, 1, short.stderr)
        XCTAssertTrue(short.stderr.contains("cut short (766 of 768 bytes)"), short.stderr)
        // 16-bit words above 1023 are not 10-bit data: refused, in Y4M and raw, not copied on to a 10-bit output.
        var wide = Data(count: 16 * 16 * 3)
        wide[2 * 37] = 0xFF; wide[2 * 37 + 1] = 0xFF
        try (Data("YUV4MPEG2 W16 H16 C420p10\nFRAME\n".utf8) + wide).write(to: work.appendingPathComponent("w10.y4m"))
        try wide.write(to: work.appendingPathComponent("w10.yuv420p10le"))
        for args in [["w10.y4m", "-o", "w10-out.y4m", "--depth", "10"], ["w10.yuv420p10le", "--size", "16x16", "-o", "w10-out.yuv420p10le"]] {
            let r = try run(args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("\(args[0]): sample 37 is 65535, above 1023: not 10-bit yuv420p10le data"), r.stderr)
        }
        XCTAssertEqual(try leftovers().filter { $0.hasPrefix("w10-out") }, [])
        // A PNG with an unknown critical chunk (ABCD, before IDAT) must not be decoded as if it were not there.
        let critical: [UInt8] = [
            0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
            0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xfd, 0xd4, 0x9a,
            0x73, 0x00, 0x00, 0x00, 0x01, 0x41, 0x42, 0x43, 0x44, 0x78, 0x2a, 0xbb, 0x56, 0xc4, 0x00, 0x00,
            0x00, 0x0b, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x40, 0x06, 0x00, 0x00, 0x0e, 0x00,
            0x01, 0xa9, 0x91, 0x73, 0xb1, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60,
            0x82]
        try Data(critical).write(to: work.appendingPathComponent("abcd.png"))
        let abcd = try run(["abcd.png", "-o", "abcd.nv12"])
        XCTAssertEqual(abcd.status, 1, abcd.stderr)
        XCTAssertTrue(abcd.stderr.contains("abcd.png: the PNG needs a chunk libpng does not know (ABCD) to be read: a newer "
                                           + "format or a damaged file (libpng: ABCD: unhandled critical chunk)"), abcd.stderr)
        XCTAssertEqual(try leftovers().filter { $0.hasPrefix("abcd.nv12") }, [])
        // An endless raw source: one frame is read by its size, then the next byte says there is more.
        let zero = try sh("${LIMIT_VM:-ulimit -v 400000}; timeout 20 \"$B\" /dev/zero --size 16x16 --pix-fmt nv12 -o z.png")
        XCTAssertEqual(zero.status, 1, zero.stderr)
        XCTAssertTrue(zero.stderr.contains("/dev/zero: goes on past one frame"), zero.stderr)
        XCTAssertEqual(try leftovers().filter { $0.hasPrefix(".") || $0.hasPrefix("z") || $0.hasPrefix("o.") || $0.hasPrefix("t.png") }, [])
    }

    /// A palette index past the palette's end is a corrupt file that libpng reads as black without a word:
    /// it converts (as libpng, browsers and the corpus expect) with a warning naming the pixel, in every depth,
    /// interlaced or not. A flipped byte in the image data is refused by its checksums.
    func testCorruptPNGImageData() throws {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        func palettePNG(depth: Int, interlaced: Bool, index: UInt8, trns: Bool) -> [UInt8] {
            // 4×2 pixels, 3-colour palette; the last pixel takes `index`.
            let perByte = 8 / depth
            var raw: [UInt8] = []
            func row(_ indices: [UInt8]) -> [UInt8] {
                var bytes = [UInt8](repeating: 0, count: (indices.count + perByte - 1) / perByte)
                for (x, i) in indices.enumerated() { bytes[x / perByte] |= i << UInt8(8 - depth - (x % perByte) * depth) }
                return [0] + bytes
            }
            let rows: [[UInt8]] = [[0, 1, 2, 1], [2, 1, 0, index]]
            if interlaced {
                // Adam7 on 4×2: pass 1 (0,0); pass 4 (2,0); pass 6 (1,0),(3,0); pass 7 row 1.
                raw = row([rows[0][0]]) + row([rows[0][2]]) + row([rows[0][1], rows[0][3]]) + row(rows[1])
            } else {
                raw = row(rows[0]) + row(rows[1])
            }
            return pngSignature + pngChunk("IHDR", be32(4) + be32(2) + [UInt8(depth), 3, 0, 0, interlaced ? 1 : 0])
                + pngChunk("PLTE", [255, 0, 0, 0, 255, 0, 0, 0, 255]) + (trns ? pngChunk("tRNS", [128]) : [])
                + pngChunk("IDAT", zlibStored(raw)) + pngChunk("IEND", [])
        }
        for depth in [1, 2, 4, 8] {
            for interlaced in [false, true] {
                let bad = depth == 1 ? 1 : 3   // 1-bit: no index past 1 exists, so a 1-entry palette is used below (pixel (1, 0))
                var file = palettePNG(depth: depth, interlaced: interlaced, index: UInt8(bad), trns: depth == 8)
                if depth == 1 {   // shorten the palette to one entry: index 1 is then past its end
                    file = pngSignature + pngChunk("IHDR", be32(4) + be32(2) + [1, 3, 0, 0, interlaced ? 1 : 0])
                        + pngChunk("PLTE", [255, 0, 0]) + Array(file[idatStart(file)...])
                }
                let name = "pal\(depth)\(interlaced ? "i" : "").png"
                try Data(file).write(to: work.appendingPathComponent(name))
                let r = try run([name, "-o", "\(name).png"])
                XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains("warning: \(name): pixel \(depth == 1 ? "(1, 0)" : "(3, 1)") has palette index \(bad), past the end of the \(depth == 1 ? 1 : 3)-colour palette: the file is damaged; such pixels are read as black"), "\(name): \(r.stderr)")
                // The same file with a valid last index converts without a word.
                if depth != 1 {
                    let good = "good\(name)"
                    try Data(palettePNG(depth: depth, interlaced: interlaced, index: 2, trns: depth == 8)).write(to: work.appendingPathComponent(good))
                    // (Its tRNS makes pixels transparent, which the default drops and says: asked for by name, nothing.)
                    let g = try run([good, "-o", "\(good).png", "--alpha", "ignore"])
                    XCTAssertEqual(g.status, 0, "\(good): \(g.stderr)")
                    XCTAssertFalse(g.stderr.contains("warning"), g.stderr)
                }
            }
        }
        // A flipped byte inside the image data: the chunk's CRC-32 and the stream's Adler-32 no longer match it.
        var pixels = [UInt8](repeating: 0, count: 8 * 8 * 3)
        for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: i &* 7) }
        try writePNG(work.appendingPathComponent("flip.png").path, width: 8, height: 8, pixels: pixels)
        var flip = try data("flip.png")
        let at = idatStart(Array(flip)) + 8 + 2 + 5 + 20   // past the chunk header, zlib header and block header
        flip[at] ^= 0x10
        try flip.write(to: work.appendingPathComponent("flip.png"))
        try assertRefused(["flip.png", "-o", "flip.nv12"], saying: ["flip.png: the PNG's ", "fails its checksum: the file is damaged"])
    }

    /// The tool with `args` (whose output is the argument after `-o`) fails with exit 1, its message holding each
    /// of `saying`, and leaves no output.
    func assertRefused(_ args: [String], saying: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try run(args)
        XCTAssertEqual(r.status, 1, r.stderr, file: file, line: line)
        for text in saying { XCTAssertTrue(r.stderr.contains(text), r.stderr, file: file, line: line) }
        if let o = args.firstIndex(of: "-o"), o + 1 < args.count {
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent(args[o + 1]).path), file: file, line: line)
        }
    }

    /// Every kind of warning is said, damage to the pixels first: only the first was, then "(+N more)" — a JPEG
    /// with a damaged Exif block, junk between segments and its data cut short, converted with --allow-truncated,
    /// said only that its Exif was damaged, and the grey where its data was missing was among the "more".
    func testEveryKindOfWarningIsSaidDamageFirst() throws {
        let good = try Data(contentsOf: URL(fileURLWithPath: fixture("photos/rocket.jpg")))
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 255)] + body
        }
        // A TIFF whose first directory claims 5 entries and holds 1.
        let exif = Array("Exif\0\0II*\0".utf8) + [8, 0, 0, 0, 5, 0] + [UInt8](repeating: 0, count: 12)
        var crafted = Data(good.prefix(2)) + Data(segment(0xE1, exif)) + Data([0, 0, 0]) + good.dropFirst(2)
        let sos = crafted.firstRange(of: Data([0xFF, 0xDA]))!.lowerBound
        crafted = crafted.prefix(sos + (crafted.count - sos) * 6 / 10)
        try crafted.write(to: work.appendingPathComponent("crafted.jpg"))
        let r = try run(["crafted.jpg", "-o", "c.nv12", "-q", "--allow-truncated"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, r.stderr)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("yuvconv: warning: crafted.jpg: ") }, r.stderr)
        XCTAssertTrue(lines.first?.contains("the JPEG ends before its image data does; what is missing is grey") == true, r.stderr)
        XCTAssertTrue(r.stderr.contains("3 bytes of stray data before a JPEG marker"), r.stderr)
        XCTAssertTrue(r.stderr.contains("its Exif data (APP1) is damaged"), r.stderr)
        XCTAssertFalse(r.stderr.contains("more)"), r.stderr)
        // The report counts them and says the first printed.
        let report = try run(["report", "crafted.jpg", "--allow-truncated", "--report", "json"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let image = try XCTUnwrap(try JSONSerialization.jsonObject(with: report.stdout.split(separator: UInt8(ascii: "\n"))
            .map { Data($0) }.first!) as? [String: Any])
        XCTAssertEqual(image["warnings"] as? Int, 3, "\(image)")
        XCTAssertTrue((image["first_warning"] as? String)?.hasPrefix("the JPEG ends before its image data does") == true, "\(image)")
        // What the damaged Exif costs is its orientation (and a colour hint): with orientations not applied it says
        // so, not that the tag found is used; with no colour management either, nothing reads it and nothing is said.
        let ignored = try run(["crafted.jpg", "-o", "i.nv12", "-q", "--allow-truncated", "--orientation", "ignore"])
        XCTAssertEqual(ignored.status, 0, ignored.stderr)
        XCTAssertTrue(ignored.stderr.contains("its Exif data (APP1) is damaged") && ignored.stderr.contains(
            "what it says before the damage is read (orientations are not applied: --orientation ignore)"), ignored.stderr)
        XCTAssertFalse(ignored.stderr.contains("orientation tag found"), ignored.stderr)
        let unread = try run(["crafted.jpg", "-o", "u.nv12", "-q", "--allow-truncated", "--orientation", "ignore",
                              "--color-management", "off"])
        XCTAssertEqual(unread.status, 0, unread.stderr)
        XCTAssertFalse(unread.stderr.contains("Exif"), unread.stderr)
        XCTAssertEqual(unread.stderr.split(separator: "\n").count, 2, unread.stderr)
    }

    /// A kind of warning is said once with how many came; a different marker is a different kind: junk before two
    /// quantisation tables (one kind, twice) and image data left over before the end marker (another). The
    /// numbers once made every "extraneous bytes" warning one kind, which hid the end marker's behind the first.
    func testWarningKindsAreCountedAndTheirMarkersTellThemApart() throws {
        let good = try Data(contentsOf: URL(fileURLWithPath: fixture("photos/rocket.jpg")))
        XCTAssertEqual([good[628], good[629], good[697], good[698]], [0xFF, 0xDB, 0xFF, 0xDB])
        let crafted = good.prefix(628) + Data("ABC".utf8) + good[628..<697] + Data("DEFG".utf8) + good[697..<(good.count - 2)]
            + Data(repeating: 0x12, count: 5000) + Data([0xFF, 0xD9])
        try crafted.write(to: work.appendingPathComponent("junk.jpg"))
        let r = try run(["junk.jpg", "-o", "j.nv12", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, r.stderr)
        XCTAssertTrue(lines.first?.contains("bytes of stray data before a JPEG marker (0xdb) were skipped") == true
                      && lines.first?.hasSuffix(" (2 times)") == true, r.stderr)
        XCTAssertTrue(lines.last?.contains("bytes (4% of the file) of the JPEG's image data were left unread before its end marker") == true,
                      r.stderr)
        XCTAssertFalse(r.stderr.contains("more"), r.stderr)
    }

    /// Junk before a quantisation table (0xdb) and before a Huffman table (0xc4) are two kinds, each said (the
    /// second was counted into the first's "(2 times)" and never said); padding before the eight restart markers
    /// (0xd0 … 0xd7) is one kind, in the decoder too, so fourteen other kinds beside it leave none "of other kinds"
    /// (the padding took a kept kind for each marker, and three of them were said as other kinds).
    func testMarkersTellKindsApartButRestartMarkersAreOne() throws {
        let good = try Data(contentsOf: URL(fileURLWithPath: fixture("photos/rocket.jpg")))
        XCTAssertEqual([good[628], good[629], good[785], good[786]], [0xFF, 0xDB, 0xFF, 0xC4])
        try (good.prefix(628) + Data("ABC".utf8) + good[628..<785] + Data("DEFG".utf8) + good[785...])
            .write(to: work.appendingPathComponent("two.jpg"))
        let two = try run(["two.jpg", "-o", "two.nv12", "-q"])
        XCTAssertEqual(two.status, 0, two.stderr)
        let lines = two.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, two.stderr)
        XCTAssertTrue(lines.first?.contains("3 bytes of stray data before a JPEG marker (0xdb)") == true, two.stderr)
        XCTAssertTrue(lines.last?.contains("4 bytes of stray data before a JPEG marker (0xc4)") == true, two.stderr)
        XCTAssertFalse(two.stderr.contains("times"), two.stderr)
        // Fourteen APPn segments (0xe2 … 0xef), each after two stray bytes, and padding before eleven restart markers.
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("jpeg/pillow/pil_sample_rgb.jpg"))))
        var scan = 2   // the scan's start, found by the segments' lengths (its EXIF thumbnail has restart markers too)
        while jpeg[scan + 1] != 0xDA { scan += 2 + Int(jpeg[scan + 2]) << 8 + Int(jpeg[scan + 3]) }
        let restarts = (scan..<(jpeg.count - 1)).filter { jpeg[$0] == 0xFF && (0xD0...0xD7).contains(jpeg[$0 + 1]) }
        XCTAssertGreaterThanOrEqual(restarts.count, 11)
        for (n, at) in restarts.prefix(11).enumerated().reversed() {
            jpeg.insert(contentsOf: [UInt8](repeating: 0x00, count: 9 + n % 3), at: at)
        }
        let app = (0xE2...0xEF).flatMap { [0x00, 0x11, 0xFF, UInt8($0), 0x00, 0x04, 0x41, 0x42] as [UInt8] }
        XCTAssertEqual(jpeg[2], 0xFF)
        jpeg.insert(contentsOf: app, at: 4 + Int(jpeg[4]) << 8 + Int(jpeg[5]))   // after the first segment
        try Data(jpeg).write(to: work.appendingPathComponent("many.jpg"))
        let many = try run(["many.jpg", "-o", "many.nv12", "-q", "--report", "json"])
        XCTAssertEqual(many.status, 0, many.stderr)
        let said = many.stderr.split(separator: "\n")
        XCTAssertFalse(many.stderr.contains("other kinds"), many.stderr)
        XCTAssertEqual(said.filter { $0.contains("restart marker") }.count, 1, many.stderr)
        XCTAssertTrue(said.contains { $0.contains("restart marker") && $0.hasSuffix("(11 times)") }, many.stderr)
        XCTAssertEqual(said.filter { $0.contains("stray data before a JPEG marker (0xe") }.count, 14, many.stderr)
        XCTAssertTrue(String(decoding: many.stdout, as: UTF8.self).contains("\"warnings\": 25"), many.stderr)
    }

    /// A damaged byte that shortens a scan's codes: libjpeg reads every block of the scan from fewer bytes than it
    /// holds and only warns "N extraneous bytes before marker …", while the blocks after the byte are wrong. Between
    /// the scans of a progressive or multi-scan file (no encoder leaves bytes there) an error, which
    /// `--allow-truncated` gets past; before the end marker a warning (junk after the last scan is common and
    /// harmless: DJI drones write it), and so is anything left over in a file with restart intervals.
    func testJPEGImageDataLeftOverIsDamage() throws {
        var prog = try Data(contentsOf: URL(fileURLWithPath: fixturesURL.appendingPathComponent("synthetic/progressive-rocket.jpg").path))
        prog[227] = 0x00   // in the first scan's data: djpeg warns "13 extraneous bytes before marker 0xc4" and nothing else
        try prog.write(to: work.appendingPathComponent("bad.jpg"))
        for path in ["direct", "rgb"] {
            let r = try run(["bad.jpg", "-o", "bad-\(path).nv12", "--jpeg-path", path])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("bad.jpg: a scan of the JPEG ends at least "), r.stderr)
            XCTAssertTrue(r.stderr.contains("bytes before its data does (no encoder leaves any between scans)"), r.stderr)
            XCTAssertTrue(r.stderr.hasSuffix("; --allow-truncated converts it as it decodes, with a warning\n"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("bad-\(path).nv12").path))
        }
        let allowed = try run(["bad.jpg", "-o", "allowed.nv12", "--allow-truncated"])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        // Said as the damage it is (it was "stray data … (harmless)", the words for junk between segments).
        XCTAssertTrue(allowed.stderr.hasPrefix("yuvconv: warning: bad.jpg: 13 bytes of a scan were left unread before the "
                                               + "next marker (0xc4): a damaged byte shortened the scan's codes"),
                      allowed.stderr)
        XCTAssertFalse(allowed.stderr.contains("harmless"), allowed.stderr)
        // A baseline file, one scan: the same damage before the end marker is a warning (the picture is wrong, but
        // so it is in files that are fine).
        let good = try Data(contentsOf: URL(fileURLWithPath: fixture("photos/rocket.jpg")))
        var bad = good
        bad[1141] = 0x00   // djpeg: "64 extraneous bytes before marker 0xd9"
        try bad.write(to: work.appendingPathComponent("one.jpg"))
        let one = try run(["one.jpg", "-o", "one.nv12"])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertTrue(one.stderr.contains("(libjpeg: Corrupt JPEG data: 64 extraneous bytes before marker 0xd9)"), one.stderr)
        // Junk before the end marker: the undamaged picture's bytes, with a warning.
        let end = good.count - 2
        XCTAssertEqual(Array(good[end...]), [0xFF, 0xD9])
        try good.write(to: work.appendingPathComponent("good.jpg"))
        XCTAssertEqual(try run(["good.jpg", "-o", "good.nv12", "-q"]).status, 0)
        for pad in [8, 4000] {
            let name = "pad\(pad).jpg"
            try (good[..<end] + Data(count: pad) + good[end...]).write(to: work.appendingPathComponent(name))
            let r = try run([name, "-o", "\(name).nv12"])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("warning: \(name): ") && r.stderr.contains("left unread before its end marker")
                          && r.stderr.contains("extraneous bytes before marker 0xd9)"),
                          r.stderr)
            XCTAssertEqual(try data("\(name).nv12"), try data("good.nv12"))
        }
        // A file with restart intervals: 40 bytes before a restart marker (encoders pad their intervals) and
        // before the end marker (a scanner writes junk intervals after the last) are the same picture, a warning.
        let rst = try Data(contentsOf: URL(fileURLWithPath: fixture("jpeg/jpegsuite/baseline/32x32x8_restarts.jpg")))
        let marker = try XCTUnwrap(rst.indices.first { rst[$0] == 0xFF && rst[$0 + 1] == 0xD0 })
        try rst.write(to: work.appendingPathComponent("rst.jpg"))
        XCTAssertEqual(try run(["rst.jpg", "-o", "rst.nv12", "-q"]).status, 0)
        for (name, at, said) in [("rstpad.jpg", marker, "0xd0"), ("rstend.jpg", rst.count - 2, "0xd9")] {
            try (rst[..<at] + Data(count: 40) + rst[at...]).write(to: work.appendingPathComponent(name))
            let padded = try run([name, "-o", "\(name).nv12"])
            XCTAssertEqual(padded.status, 0, padded.stderr)
            XCTAssertTrue(padded.stderr.contains("extraneous bytes before marker \(said)"), padded.stderr)
            XCTAssertEqual(try data("\(name).nv12"), try data("rst.nv12"))
        }
    }

    /// Warnings are sentences too: libpng's and libjpeg's own words ("tRNS: invalid", "Corrupt JPEG data: 64
    /// extraneous bytes before marker 0xd9") reached users bare; now each says what was wrong and what became of
    /// it, the library's words kept in parentheses.
    func testLibraryWarningsAreSentences() throws {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        let raw = (0..<8).flatMap { _ in [0] + [UInt8](repeating: 90, count: 24) }
        func png(_ name: String, _ extra: [UInt8], end: [UInt8] = []) throws {
            let file = pngSignature + pngChunk("IHDR", be32(8) + be32(8) + [8, 2, 0, 0, 0]) + extra
                + pngChunk("IDAT", zlibStored(raw)) + pngChunk("IEND", end)
            try Data(file).write(to: work.appendingPathComponent(name))
        }
        var crc = pngChunk("gAMA", be32(45455))
        crc[crc.count - 1] ^= 1
        try png("trns.png", pngChunk("tRNS", [0, 1, 0]))
        try png("chrm.png", pngChunk("cHRM", [UInt8](repeating: 0, count: 32)))
        try png("crc.png", crc)
        try png("iend.png", [], end: [1, 2])
        for (name, said) in [("trns.png", "the PNG's tRNS chunk could not be used (invalid); ignored, the picture is read without it (libpng: tRNS: invalid)"),
                             ("chrm.png", "the PNG's cHRM chunk puts its white at x = 0, y = 0, which is no colour"),
                             ("crc.png", "the PNG's gAMA chunk fails its checksum: it is damaged, and was ignored (libpng: gAMA: CRC error)"),
                             ("iend.png", "the PNG's end chunk (IEND) holds data, which it may not; ignored (libpng: IEND: invalid)")] {
            let r = try run([name, "-o", "\(name).nv12"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("warning: \(name): \(said)"), r.stderr)
        }
        // Bytes left before the end marker: the share of the file they are, and what they may mean.
        var bad = try Data(contentsOf: URL(fileURLWithPath: fixture("photos/rocket.jpg")))
        bad[1141] = 0x00
        try bad.write(to: work.appendingPathComponent("one.jpg"))
        let one = try run(["one.jpg", "-o", "one.nv12"])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertTrue(one.stderr.contains("warning: one.jpg: 64 bytes of the JPEG's image data were left unread before its end marker: "
                                          + "junk after the last scan"), one.stderr)
        // Only the end marker missing is whole, with --allow-truncated too (it said "what is missing is grey").
        let good = try Data(contentsOf: URL(fileURLWithPath: fixture("photos/rocket.jpg")))
        try good.dropLast(2).write(to: work.appendingPathComponent("nod9.jpg"))
        for extra in [[], ["--allow-truncated"]] {
            let r = try run(["nod9.jpg", "-o", "nod9.nv12", "--force"] + extra)
            XCTAssertTrue(r.stderr.contains("warning: nod9.jpg: the file ends without its end-of-image marker (FF D9), but all of "
                                            + "its image data is there") && !r.stderr.contains("missing is grey"), "\(extra): \(r.stderr)")
        }
        // A key with bits above the bit depth: libpng drops them and applies the key (as the PNG specification
        // says, and browsers do). The warning said "ignored" while the pixels were keyed.
        let trns = try run([fixture("png-extra/pillow/1_trns.png"), "-o", "trns.nv12"])
        let said = "the PNG's transparent colour (tRNS) has bits set above its bit depth; they are dropped, as the PNG "
            + "specification says, and the colour is what is left"
        XCTAssertTrue(trns.stderr.contains(said), trns.stderr)
        // 2x2 RGB 8-bit, key (0x164, 0, 0): the two (0x64, 0, 0) pixels are the transparent ones.
        let rows: [UInt8] = [0, 0x64, 0, 0, 1, 2, 3, 0, 9, 9, 9, 0x64, 0, 0]
        let keyed = pngSignature + pngChunk("IHDR", [0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0, 0, 0])
            + pngChunk("tRNS", [0x01, 0x64, 0, 0, 0, 0]) + pngChunk("IDAT", zlibStored(rows)) + pngChunk("IEND", [])
        try Data(keyed).write(to: work.appendingPathComponent("key.png"))
        let key = try run(["key.png", "-o", "key.nv12", "--alpha", "keep"])
        XCTAssertEqual(key.status, 0, key.stderr)
        XCTAssertTrue(key.stderr.contains(said), key.stderr)
        let a = try Data(contentsOf: work.appendingPathComponent("key.nv12")).suffix(4)
        XCTAssertEqual(Array(a), [0, 255, 255, 0])
    }

    /// IHDR comes first (PNG §5.6): any chunk before it fails the file with one sentence. libpng refused its own
    /// chunks there in its words ("iCCP: missing IHDR") and handed the rest over: an eXIf before the header turned
    /// the picture, a tEXt passed.
    func testAChunkBeforeTheHeaderIsDamage() throws {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        let raw = (0..<2).flatMap { _ in [0] + [UInt8](repeating: 90, count: 6) }
        // Orientation 6 in a big-endian TIFF header.
        let exif: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 1, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        for (kind, body) in [("eXIf", exif), ("tEXt", Array("a\u{0}b".utf8)), ("iCCP", Array("x\u{0}\u{0}".utf8) + [0x78, 1])] {
            let file = pngSignature + pngChunk(kind, body) + pngChunk("IHDR", be32(2) + be32(2) + [8, 2, 0, 0, 0])
                + pngChunk("IDAT", zlibStored(raw)) + pngChunk("IEND", [])
            try Data(file).write(to: work.appendingPathComponent("\(kind).png"))
            let r = try run(["\(kind).png", "-o", "\(kind).nv12"])
            XCTAssertEqual(r.status, 1, "\(kind): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("error: \(kind).png: the PNG has a chunk (\(kind)) before its header (IHDR), which must "
                                            + "come first: the file is damaged"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("\(kind).nv12").path))
        }
    }

    /// A picture held whole — a progressive JPEG's coefficients, an interlaced PNG's rows, a picture turned by its
    /// EXIF orientation — has a limit for its file: 128 bytes a byte of the file, at least 256 MiB, or
    /// `--max-memory`. A few hundred bytes declaring 16384x16384 are refused before anything is allocated (they
    /// took 1.5 GiB); a real file is nowhere near.
    func testWholePicturesHaveALimitForTheFile() throws {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        // A small progressive JPEG whose frame header claims 16384x16384.
        var jpg = try Data(contentsOf: URL(fileURLWithPath: fixture("jpeg/jpegsuite/progressive_huffman/32x32x8_restarts.jpg")))
        let sof = try XCTUnwrap(jpg.indices.first { jpg[$0] == 0xFF && jpg[$0 + 1] == 0xC2 })
        jpg.replaceSubrange((sof + 5)..<(sof + 9), with: [0x40, 0x00, 0x40, 0x00])
        try jpg.write(to: work.appendingPathComponent("bomb.jpg"))
        try assertRefused(["bomb.jpg", "-o", "bomb.nv12"], saying: ["bomb.jpg: the progressive JPEG needs ",
                                                                    " MiB held whole, above the limit of 256 MiB for this file (--max-memory)"])
        // An interlaced PNG header claiming 10000x10000 grey (RGB rows: 300 MB), with a few bytes of data.
        let png = pngSignature + pngChunk("IHDR", be32(10000) + be32(10000) + [8, 0, 0, 0, 1])
            + pngChunk("IDAT", zlibStored([0, 0, 0, 0])) + pngChunk("IEND", [])
        try Data(png).write(to: work.appendingPathComponent("bomb.png"))
        try assertRefused(["bomb.png", "-o", "bomb.nv12"], saying: ["bomb.png: the interlaced PNG needs "])
        // A photo turned by its EXIF orientation (6) on the RGB route: both pictures held, 2.2 MB; refused under a
        // limit of 1 MiB, converted under the default.
        var turned = try Data(contentsOf: URL(fileURLWithPath: fixture("photos/rocket.jpg")))
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let exif = Array("Exif".utf8) + [0, 0] + tiff
        turned.insert(contentsOf: [0xFF, 0xE1, 0, UInt8(exif.count + 2)] + exif, at: 2)
        try turned.write(to: work.appendingPathComponent("turned.jpg"))
        try assertRefused(["turned.jpg", "-o", "t.nv12", "--jpeg-path", "rgb", "--max-memory", "1M"],
                          saying: ["turned.jpg: turning the picture needs 2.1 MiB held whole, above the limit of 1 MiB for this file (--max-memory)"])
        let ok = try run(["turned.jpg", "-o", "t.nv12", "--jpeg-path", "rgb", "-q"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        // A JPEG output holds the converted picture for its encoder: 1024x1024, 1.5 MiB, above a limit of 1 MiB.
        try writePNG(work.appendingPathComponent("big.png").path, width: 1024, height: 1024,
                     pixels: [UInt8](repeating: 90, count: 1024 * 1024 * 3))
        try assertRefused(["big.png", "-o", "big.jpg", "--max-memory", "1M"],
                          saying: ["big.png: holding the picture for the encoder needs 1.5 MiB held whole, above the limit of 1 MiB for this file (--max-memory)"])
        XCTAssertEqual(try run(["big.png", "-o", "big.jpg", "-q"]).status, 0)
        // YUV input re-encoded to JPEG holds its planes (and, for another matrix or range, the RGB and planes of
        // the reconversion) whole beside the frame: under the same limit (it was not counted at all).
        XCTAssertEqual(try run(["big.png", "-o", "big.y4m", "-q"]).status, 0)
        try assertRefused(["big.y4m", "-o", "fromy4m.jpg", "--max-memory", "2M"],
                          saying: ["big.y4m: holding the picture for the encoder needs", "above the limit of 2 MiB for this file (--max-memory)"])
        XCTAssertEqual(try run(["big.y4m", "-o", "fromy4m.jpg", "-q", "--max-memory", "8M"]).status, 0)
        // A decimal size counts its fraction: the encoder's 1024x1024 4:2:0 picture is exactly 1.5 MiB.
        XCTAssertEqual(try run(["big.png", "-o", "big15.jpg", "-q", "--max-memory", "1.5M"]).status, 0)
        try assertRefused(["big.png", "-o", "big14.jpg", "--max-memory", "1.4M"],
                          saying: ["big.png: holding the picture for the encoder needs 1.5 MiB held whole, above the limit of 1.4 MiB for this file (--max-memory)"])
        // Sizes: K, M, G (binary), at least 1 MiB.
        let plain = fixture("photos/rocket.jpg")
        for good in ["1M", "1m", "1MiB", "2G", "1048576", "1024k", "1.5G", "0.5g", "1.0M"] {
            XCTAssertEqual(try run([plain, "-o", "g.nv12", "--max-memory", good, "-q", "-y"]).status, 0, good)
        }
        for bad in ["0", "1", "1023k", "-5M", "12X", "M", "9999999999999G", "0.5M", "1.5.5G", ".5G", "1.G5", "1.5X", "1.G", "1048576.", "1,5G"] {
            let r = try run([plain, "-o", "b.nv12", "--max-memory", bad])
            XCTAssertEqual(r.status, 2, "\(bad): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--max-memory needs a size of at least 1 MiB"), r.stderr)
        }
    }

    /// Names that differ only in Unicode form (café in NFC and in NFD) are two names, as the file system has
    /// them: a {dir} batch over two such folders writes two outputs (it refused both as one file), and an output
    /// and a report file so named are two files.
    func testNamesAreComparedByTheirBytes() throws {
        let r = try sh("""
            nfc=$(printf 'caf\\303\\251'); nfd=$(printf 'cafe\\314\\201')
            mkdir -p "in/$nfc" "in/$nfd" && cp "$F/photos/rocket.jpg" "in/$nfc/x.jpg" && cp "$F/photos/rocket.jpg" "in/$nfd/x.jpg"
            "$B" convert in -r -o out/ --name '{dir}/{stem}.nv12' -q; echo "batch $?"
            ls out/in/*/x.nv12 | wc -l
            "$B" "$F/photos/rocket.jpg" -o "$nfc.nv12" --report json --report-file "$nfd.json" -q; echo "one $?"
            """)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertEqual(out, "batch 0\n2\none 0\n", out + r.stderr)
    }

    /// Where the first IDAT chunk (its length field) starts in a PNG file.
    private func idatStart(_ file: [UInt8]) -> Int { pngChunks(file).first { $0.type == "IDAT" }?.at ?? file.count }

    /// Symbolic links are followed, never replaced; /dev/stdout and friends are the descriptors they name.
    func testLinksAndStandardStreamsAsOutputs() throws {
        let jpg = fixture("photos/rocket.jpg")
        let plain = try run([jpg, "-o", "-", "-q"]).stdout
        try Data("old".utf8).write(to: work.appendingPathComponent("target.nv12"))
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("link.nv12").path,
                                                   withDestinationPath: "target.nv12")
        XCTAssertEqual(try run([jpg, "-o", "link.nv12", "-q"]).status, 1)   // exists: --force needed
        XCTAssertEqual(try run([jpg, "-o", "link.nv12", "--force", "-q"]).status, 0)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: work.appendingPathComponent("link.nv12").path),
                       "target.nv12")
        XCTAssertEqual(try data("target.nv12"), plain)
        // A dangling link: its target is created.
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("dangling.nv12").path,
                                                   withDestinationPath: "made.nv12")
        XCTAssertEqual(try run([jpg, "-o", "dangling.nv12", "-q"]).status, 0)
        XCTAssertEqual(try data("made.nv12"), plain)
        for name in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
            let r = try run([jpg, "-o", name, "--force", "-q"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stdout, plain, name)
        }
        let e = try sh("\"$B\" \"$F/photos/rocket.jpg\" -o /dev/stderr -q 2>err.bin; echo $?")
        XCTAssertEqual(String(decoding: e.stdout, as: UTF8.self), "0\n")
        XCTAssertEqual(try data("err.bin"), plain)
        let attrs = try FileManager.default.attributesOfItem(atPath: "/dev/stdout")
        XCTAssertEqual(attrs[.type] as? FileAttributeType, .typeSymbolicLink)
        XCTAssertEqual(try leftovers(), ["dangling.nv12", "err.bin", "link.nv12", "made.nv12", "target.nv12"])
    }

    /// No input is ever written: not through standard input, a report file, a hard link, or another batch
    /// item's output; and the report may not be the image.
    func testInputsAreNeverOverwritten() throws {
        try FileManager.default.copyItem(atPath: fixture("photos/rocket.jpg"), toPath: work.appendingPathComponent("s.jpg").path)
        let before = try data("s.jpg")
        let cases = [
            "\"$B\" - -o s.jpg --force < s.jpg",
            "\"$B\" report - --report csv --report-file s.jpg --force < s.jpg",
            "ln -f s.jpg hard.jpg && \"$B\" s.jpg -o hard.jpg --force",
            "mkdir -p src o/src && cp s.jpg src/b.jpg && \"$B\" s.jpg -o o/src/b.nv12 -q && cp o/src/b.nv12 keep.nv12 && "
                + "\"$B\" convert src o/src/b.nv12 --size 640x427 -o o/ --name '{dir}/{stem}.{ext}' --force",
        ]
        for c in cases {
            let r = try sh(c)
            XCTAssertEqual(r.status, 1, "\(c): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("input"), r.stderr)
            XCTAssertEqual(try data("s.jpg"), before, c)
        }
        XCTAssertEqual(try data("o/src/b.nv12"), try data("keep.nv12"))
        let same = try run([fixture("photos/rocket.jpg"), "-o", "o.nv12", "--report", "json", "--report-file", "./o.nv12", "--force"])
        XCTAssertEqual(same.status, 2, same.stderr)
        XCTAssertTrue(same.stderr.contains("are the same file"), same.stderr)
        XCTAssertFalse(try leftovers().contains { $0.hasPrefix(".") })
    }

    /// A file system that shows files stored elsewhere — FUSE (bindfs: the same inode number under another
    /// device), NFS, SMB, 9p — is a view as an overlay is: an output there alike in size and times to an input seen
    /// plainly (or the other way round) is that input. bindfs let `--force` replace an input through the other view.
    /// Where bindfs and /dev/fuse are at hand (not in CI), the attack itself too.
    func testFileSystemsThatShowFilesStoredElsewhereAreViews() throws {
        #if os(Linux)
        for (type, view) in [(0x794C7630, true), (0x65735546, true), (0x6969, true), (0x01021997, true), (0xFE534D42, false),
                             (0xEF53, false), (0x01021994, false), (0x58465342, false)] {
            XCTAssertEqual(yc_shows_files_stored_elsewhere(UInt64(type)) == 1, view, String(type, radix: 16))
        }
        let bindfs = ["/usr/bin/bindfs", "/bin/bindfs"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let bindfs, getuid() == 0, FileManager.default.fileExists(atPath: "/dev/fuse") else { return }
        try FileManager.default.createDirectory(at: work.appendingPathComponent("real"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: work.appendingPathComponent("mnt"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture("photos/rocket.jpg"), toPath: work.appendingPathComponent("real/a.jpg").path)
        // Its daemon keeps what it inherits open: none of the test's descriptors (the harness waits for them).
        let mount = "(for fd in $(ls /proc/$BASHPID/fd); do [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done; "
            + "exec \(bindfs) real mnt) </dev/null >/dev/null 2>&1"
        guard try sh(mount).status == 0 else { throw XCTSkip("bindfs could not mount here") }
        defer { _ = try? sh("fusermount -u mnt >/dev/null 2>&1 || umount mnt") }
        XCTAssertEqual(try data("mnt/a.jpg"), try data("real/a.jpg"))
        let before = try data("real/a.jpg")
        for c in ["\"$B\" mnt/a.jpg -o real/a.jpg -f nv12 --force", "\"$B\" real/a.jpg -o mnt/a.jpg -f nv12 --force",
                  "\"$B\" report mnt/a.jpg --report-file real/a.jpg --force"] {
            let r = try sh(c)
            XCTAssertEqual(r.status, 1, "\(c): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("input"), r.stderr)
            XCTAssertEqual(try data("real/a.jpg"), before, c)
        }
        #endif
    }

    #if os(Linux)
    /// tools/casefold-fs.py mounted at each of `points` (folders of the work folder, made here, each over a
    /// backing folder of its own), for tests of file systems that do not tell upper from lower case. Returns what
    /// unmounts them all. Skips the test where fusepy (python3-fusepy), root or /dev/fuse is missing. Each daemon's
    /// pid is kept, so that a mount that never comes, or a test that fails midway, leaves none behind.
    func caseFoldingMounts(_ points: [String], likeExFAT: Bool = false) throws -> () -> Void {
        let tool = packageRoot.appendingPathComponent("tools/casefold-fs.py").path
        let python = try ["/usr/bin/python3", "python3"].first { try sh("\($0) '\(tool)' --check 2>/dev/null").status == 0 }
        guard let python, getuid() == 0, FileManager.default.fileExists(atPath: "/dev/fuse") else {
            throw XCTSkip("the case-folding part needs fusepy (python3-fusepy), root and /dev/fuse")
        }
        let unmount = { [self] in
            for at in points { _ = try? sh("umount -l \(at) 2>/dev/null; kill $(cat \(at).pid) 2>/dev/null; true") }
        }
        for at in points {
            for d in [at + ".backing", at] {
                try FileManager.default.createDirectory(at: work.appendingPathComponent(d), withIntermediateDirectories: true)
            }
            let mount = "(for fd in $(ls /proc/$BASHPID/fd); do [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done; "
                + "exec \(python) '\(tool)' \(likeExFAT ? "--like-exfat " : "")\(at).backing \(at)) </dev/null >/dev/null 2>&1 & echo $! > \(at).pid; "
                + "for i in $(seq 100); do mountpoint -q \(at) && exit 0; sleep 0.1; done; exit 1"
            guard try sh(mount).status == 0 else {
                unmount()
                throw XCTSkip("tools/casefold-fs.py could not mount here")
            }
        }
        return unmount
    }
    #endif

    /// exFAT through exfat-fuse: names that differ only in case reach one file under two inode numbers, and there are
    /// no hard links (tools/casefold-fs.py --like-exfat). Found by a tester: `--force` replaced the input
    /// `IMG_0001.PNG` with its own output `IMG_0001.png` (exit 0, the photo gone), in a batch and alone; two inputs
    /// `Photo.png` and `photo.PNG` into a folder there both "converted", one output over the other (the plan took the
    /// folder for one that tells case apart, and the naming, without a link, looked and then renamed); a FAT mount
    /// through FUSE could not size a file at all. Now the input is known by its size and times on that device, the
    /// folder's entries show that it folds case, the output is named by a claim no other file can share, and a file
    /// that cannot be sized is filled to its size.
    func testExFATThroughFUSE() throws {
        #if os(Linux)
        let unmount = try caseFoldingMounts(["x"], likeExFAT: true)
        defer { unmount() }
        try FileManager.default.createDirectory(at: work.appendingPathComponent("x/DCIM"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture("pngsuite/basn2c08.png"), toPath: work.appendingPathComponent("x/DCIM/IMG_0001.PNG").path)
        let photo = try data("x/DCIM/IMG_0001.PNG")
        for script in ["\"$B\" convert x/DCIM/ -o x/DCIM/ -f png --force -q", "\"$B\" x/DCIM/IMG_0001.PNG -o x/DCIM/img_0001.png --force -q"] {
            let r = try sh(script + "; echo $?")
            XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "1\n", "\(script): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("refusing to overwrite an input"), r.stderr)
            XCTAssertEqual(try data("x/DCIM/IMG_0001.PNG"), photo, script)
        }
        // Two outputs one file there: refused before any work, also into an empty folder of the mount.
        try FileManager.default.createDirectory(at: work.appendingPathComponent("in"), withIntermediateDirectories: true)
        for (fixtureName, name) in [("basn2c08", "Photo.png"), ("basn6a08", "photo.PNG")] {
            try FileManager.default.copyItem(atPath: fixture("pngsuite/\(fixtureName).png"), toPath: work.appendingPathComponent("in/\(name)").path)
        }
        for setup in ["mkdir x/o; echo notes > x/o/Notes.txt", "mkdir x/o"] {
            let r = try sh("rm -rf x/o; \(setup); \"$B\" convert in/ -o x/o/ -q; echo $?; ls x/o")
            XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").first, "1", "\(setup): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("does not tell upper from lower case"), r.stderr)
            XCTAssertFalse(String(decoding: r.stdout, as: UTF8.self).contains("nv12"), "\(setup): written before the refusal")
        }
        // Named without a link: exact, never over a file at a name the system takes for the same, replaced with --force.
        let want = try sh("\"$B\" in/Photo.png -o - -f nv12 -q").stdout
        let r = try sh("""
            "$B" in/Photo.png -o x/a.nv12 -q; echo $?; "$B" in/photo.PNG -o x/A.nv12 -q; echo $?
            "$B" in/Photo.png -o x/A.nv12 --force -q; echo $?; ls x | grep -c nv12
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "0\n1\n0\n1\n", r.stderr)
        XCTAssertEqual(try data("x/a.nv12"), want)
        // The mount is a view of its backing folder, with whole-second times (as sshfs shows a local folder): --force
        // from one to the other replaced the input (matched by every bit of both times).
        for (input, output) in [("x.backing/v.png", "x/v.png"), ("x/w.png", "x.backing/w.png")] {
            try FileManager.default.copyItem(atPath: fixture("pngsuite/basn2c08.png"), toPath: work.appendingPathComponent(input).path)
            let before = try data(input)
            let v = try sh("\"$B\" \(input) -o \(output) -f png --force -q; echo $?")
            XCTAssertEqual(String(decoding: v.stdout, as: UTF8.self), "1\n", "\(input) -> \(output): \(v.stderr)")
            XCTAssertTrue(v.stderr.contains("refusing to overwrite an input"), v.stderr)
            XCTAssertEqual(try data(input), before, input)
        }
        // A file that grows only by writing (as on fusefat): filled to its size first, so a padded output's last
        // padding is there (the writes alone left it short, exit 0) and every layout comes out whole.
        for (format, options) in [("nv12", "--align 64 --align-height 48"), ("yuv420p", "--align 64"), ("p010", ""), ("y4m", "")] {
            let tight = try sh("\"$B\" in/Photo.png -o - -f \(format) \(options) -q").stdout
            let w = try sh("rm -f x/p.out; \"$B\" in/Photo.png -o x/p.out -f \(format) \(options) -q; echo $?")
            XCTAssertEqual(String(decoding: w.stdout, as: UTF8.self), "0\n", "\(format): \(w.stderr)")
            XCTAssertEqual(try data("x/p.out"), tight, "\(format) \(options)")
        }
        #else
        throw XCTSkip("Linux: FUSE")
        #endif
    }

    /// Two folders whose names differ only in case, each on a file system that folds case (ext4's casefold is
    /// per folder; here two mounts), under a folder that tells case apart: two folders, so `A/x.nv12` and
    /// `a/x.nv12` are two outputs. The plan lower-cased the whole path where the output's own folder folds, and
    /// refused them as one file ("does not tell upper from lower case", exit 1, nothing converted).
    func testFoldingFoldersThatDifferOnlyInCaseAreTwo() throws {
        #if os(Linux)
        for (folder, fixtureName) in [("in/A", "basn2c08"), ("in/a", "basn6a08")] {
            try FileManager.default.createDirectory(at: work.appendingPathComponent(folder), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: fixture("pngsuite/\(fixtureName).png"),
                                             toPath: work.appendingPathComponent("\(folder)/x.png").path)
        }
        let unmount = try caseFoldingMounts(["out/A", "out/a"])
        defer { unmount() }
        // A name with a letter in each, so the plan can tell that they fold.
        for m in ["out/A", "out/a"] { try Data("notes".utf8).write(to: work.appendingPathComponent("\(m)/Notes.txt")) }
        let r = try sh("\"$B\" convert in/ -r -o out/ --name '{dir}/{stem}.nv12' -q; echo $?; ls out/A out/a")
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "0\nout/A:\nnotes.txt\nx.nv12\n\nout/a:\nnotes.txt\nx.nv12\n", r.stderr)
        XCTAssertNotEqual(try data("out/A/x.nv12"), try data("out/a/x.nv12"), "two pictures, two outputs")
        // Within one of them, names that differ only in case are still one file.
        try FileManager.default.copyItem(atPath: work.appendingPathComponent("in/a/x.png").path,
                                         toPath: work.appendingPathComponent("in/A/X.png").path)
        let s = try sh("\"$B\" convert in/A/ -o out/A/sub/ -q; echo $?")
        XCTAssertEqual(String(decoding: s.stdout, as: UTF8.self), "1\n", s.stderr)
        XCTAssertTrue(s.stderr.contains("does not tell upper from lower case"), s.stderr)
        // Each folder's rule known by its bytes: `café` in NFC and in NFD are two folders, one that tells case
        // apart (asked first) and one that folds. Swift's String equality took them for one, the second got the
        // first's rule, and with --force the plan let `A.nv12` and `a.nv12` through (the second replaced a file
        // there, then the run failed half-done).
        let (nfc, nfd) = ("caf\u{E9}", "cafe\u{301}")
        let unmountCafe = try caseFoldingMounts(["c/\(nfc)"])
        defer { unmountCafe() }
        try FileManager.default.createDirectory(at: work.appendingPathComponent("c/\(nfd)"), withIntermediateDirectories: true)
        try Data("notes".utf8).write(to: work.appendingPathComponent("c/\(nfc)/Notes.txt"))
        for (folder, name, fixtureName) in [(nfd, "q.png", "basn2c08"), (nfc, "A.png", "basn2c08"), (nfc, "a.png", "basn6a08")] {
            try FileManager.default.createDirectory(at: work.appendingPathComponent("ci/\(folder)"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: fixture("pngsuite/\(fixtureName).png"),
                                             toPath: work.appendingPathComponent("ci/\(folder)/\(name)").path)
        }
        try Data("old".utf8).write(to: work.appendingPathComponent("c/\(nfc)/a.nv12"))
        let u = try sh("\"$B\" convert ci/ -r -o c/ --name '{dir}/{stem}.nv12' --force -q; echo $?")
        XCTAssertEqual(String(decoding: u.stdout, as: UTF8.self), "1\n", u.stderr)
        XCTAssertTrue(u.stderr.contains("does not tell upper from lower case"), u.stderr)
        XCTAssertEqual(try data("c/\(nfc)/a.nv12"), Data("old".utf8), "a file replaced before the refusal")
        #else
        throw XCTSkip("Linux: FUSE")
        #endif
    }

    /// Outputs whose names differ only in case, where the file system takes them for one file (macOS's APFS, FAT,
    /// ext4's casefold; here tools/casefold-fs.py, a FUSE passthrough, where fusepy, root and /dev/fuse are at hand):
    /// `A.png` and `a.png` wrote `A.nv12` and then `a.nv12` over it (exit 0 with --force, its report naming two
    /// files), and `--name .YUVCONV-MANIFEST` replaced --update's manifest. Where the folder shows how it compares
    /// names, the plan refuses them before any work; where nothing shows it (an empty mount), the second is refused
    /// when it would be named (--force replaces only what was there when the run began). Everywhere: the manifest's name in any case is refused, and a folder that tells case
    /// apart takes both names.
    func testNamesThatDifferOnlyInCase() throws {
        // Two different pictures in `folder`, named `first` and `second`.
        func pair(_ folder: String, _ first: String, _ second: String) throws {
            try FileManager.default.createDirectory(at: work.appendingPathComponent(folder), withIntermediateDirectories: true)
            for (fixtureName, name) in [("basn2c08", first), ("basn6a08", second)] {
                try FileManager.default.copyItem(atPath: fixture("pngsuite/\(fixtureName).png"),
                                                 toPath: work.appendingPathComponent("\(folder)/\(name)").path)
            }
        }
        // The script's standard output, and what its standard error says.
        func expect(_ script: String, _ output: String, says: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
            let r = try sh(script)
            XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), output, r.stderr, file: file, line: line)
            if let says { XCTAssertTrue(r.stderr.contains(says), r.stderr, file: file, line: line) }
        }
        try pair("ci", "A.png", "a.png")
        try expect("\"$B\" convert ci/ -o cs/ -q; echo $?; ls cs", "0\nA.nv12\na.nv12\n")
        try expect("\"$B\" convert ci/A.png -o cs/ --name .YUVCONV-Manifest --force -f nv12; echo $?; ls -A cs", "1\nA.nv12\na.nv12\n", says: "is the name of --update's manifest")
        // In Unicode's lower case: the Kelvin sign is a k where names fold.
        try expect("\"$B\" convert ci/A.png -o cs/ --name $'.yuvconv-manifest.loc\\u212a' --force -f nv12; echo $?", "1\n", says: "manifest's lock file")
        #if os(Linux)
        // Two mounts: `m` with a file in it (the plan can tell), `e` empty (it cannot: only the naming can).
        let unmount = try caseFoldingMounts(["m", "e"])
        defer { unmount() }
        try Data("notes".utf8).write(to: work.appendingPathComponent("m/Notes.txt"))
        for force in ["", "--force"] {
            let r = try sh("rm -rf m/out; \"$B\" convert ci/ -o m/out/ \(force) -q; echo $?; ls m/out 2>&1")
            XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").first, "1", "\(force): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("m/out/a.nv12: is the same file as the output m/out/A.nv12: this folder's file "
                                            + "system does not tell upper from lower case"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("m/out").path), "\(force): made before the refusal")
        }
        // The empty mount: A.png's output is named first (-j 1, in order), a.png's refused, with or without --force.
        let first = try sh("\"$B\" ci/A.png -o - -f nv12 -q").stdout
        for force in ["", "--force"] {
            let r = try sh("rm -f e/*; \"$B\" convert ci/ -o e/ -j 1 \(force) -q; echo $?; ls e")
            XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "1\na.nv12\n", "\(force): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("ci/a.png: cannot write e/a.nv12: appeared at this name during the run (another output of this run, whose name "
                                            + "this folder's file system takes for the same"),
                          r.stderr)
            XCTAssertEqual(try data("e/a.nv12"), first, force)
        }
        // Two jobs: still one output, never the second over the first; nor two shards run at once.
        try expect("rm -f e/*; \"$B\" convert ci/ -o e/ -j 2 --force -q; echo $?; ls e", "1\na.nv12\n")
        // (The second shard begun, held by its list, while the first one runs: it sees the first one's output as a
        // file made during its run; the two once began in either order, and the second one, looking between its
        // plan's checks, took the first one's output for a file of before the run and replaced it.)
        try expect("""
            rm -f e/* l; mkfifo l; printf 'ci/A.png\nci/a.png\n' > list
            "$B" convert --files-from l -o e/ --shard 2/2 --force -q & two=$!
            exec 3>l
            "$B" convert --files-from list -o e/ --shard 1/2 --force -q; a=$?
            sleep 0.03; cat list >&3; exec 3>&-
            wait $two; echo $((a + $?)); ls e
            """, "1\na.nv12\n")
        XCTAssertEqual(try data("e/a.nv12"), first)
        // Names in Unicode's lower case (É, é: no ASCII letter to swap), in the empty mount and in an empty folder of
        // the other (whose name has no letter: the mount's root above it shows how it compares names).
        try pair("u", "É.png", "é.png")
        try expect("rm -f e/*; \"$B\" convert u/ -o e/ --name '{stem}' -f nv12 --force -q; echo $?; ls e | wc -l", "1\n1\n")
        try expect("mkdir -p m/2024; \"$B\" convert u/ -o m/2024/ --name '{stem}' -f nv12 --force -q; echo $?; ls m/2024 | wc -l",
                   "1\n0\n", says: "does not tell upper from lower case")
        // σ and ς, one letter where names fold (exFAT's table; Unicode's lower case keeps them apart): with --force
        // one output was written over the other, exit 0.
        try pair("s", "σ.png", "ς.png")
        try expect("mkdir -p m/2025; \"$B\" convert s/ -o m/2025/ -f nv12 --force -q; echo $?; ls m/2025 | wc -l",
                   "1\n0\n", says: "does not tell upper from lower case")
        // A report file named as an output but for case: refused before the work where the folder shows it; in the
        // empty mount, the report is refused and the picture kept.
        try expect("\"$B\" convert ci/A.png -o m/r/ --report json --report-file m/r/a.NV12 --force -q; echo $?; "
                   + "[ -e m/r ] && echo made || echo none", "2\nnone\n", says: "is also an image output")
        try expect("rm -f e/*; \"$B\" convert ci/A.png -o e/ --report json --report-file e/a.NV12 --force -q; echo $?; ls e",
                   "1\na.nv12\n")   // (the emulator keeps names lower-cased)
        XCTAssertEqual(try data("e/A.nv12"), first, "the picture, not the report")
        // --update's manifest under another case: refused, the manifest kept.
        // (Then the manifest written again by the next run, which a record of the files named there once refused.)
        try expect("""
            rm -rf m/mo; "$B" convert ci/A.png -o m/mo/ --update -q; cp m/mo/.yuvconv-manifest kept
            "$B" convert ci/a.png -o m/mo/ --name .YUVCONV-MANIFEST -f nv12 --force -q; echo $?
            cmp -s kept m/mo/.yuvconv-manifest && echo kept
            cp ci/A.png b.png; "$B" convert ci/A.png b.png -o m/mo/ --update -q; echo $?
            grep -c nv12 m/mo/.yuvconv-manifest
            """, "1\nkept\n0\n2\n")
        #endif
    }

    /// A file another process puts at an output's name after this run began — before its plan looks: another
    /// shard's output, whose name the file system takes for this one; another run's, made before this run began
    /// and named after; a file moved, copied (`cp -p`) or hard-linked there; a link to a file elsewhere — is no file
    /// that was there when the run began: `--force` keeps it (and the file a link leads to) and fails that output,
    /// in a batch and a single conversion alike, as it does one put there after the look. The plan took a new file
    /// for one of before the run and replaced it (exit 0; the other program's file lost); then, judging by birth
    /// time, a file moved in or copied with its times, and a link's target outside the folder. The run is held
    /// between its start and its look by its input (a FIFO) or its list. A link put in the place of a file that was
    /// there, after the look, is kept too (the output took its name).
    func testForceKeepsAFileMadeAfterTheRunBegan() throws {
        try FileManager.default.copyItem(atPath: fixture("pngsuite/basn2c08.png"), toPath: work.appendingPathComponent("a.png").path)
        let r = try sh("""
            mkdir o k; for n in a b c d e; do cp a.png $n.png; printf "theirs $n" > k/$n; done; printf precious > victim
            ls [a-e].png > list; mkfifo l fi; sleep 0.03
            "$B" convert --files-from l -o o/ --name '{stem}.nv12' --force -q 2> batch.err & one=$!
            exec 3>l            # returns once the batch has opened its list: it has begun
            sleep 0.03          # (a clock tick later: Linux's file times may lag by one)
            printf 'theirs a' > o/a.nv12; mv k/b o/b.nv12; cp -p k/c o/c.nv12; ln -s "$PWD/victim" o/d.nv12; ln k/e o/e.nv12
            cat list >&3; exec 3>&-
            wait $one; echo "batch $?"
            "$B" fi -o o/s.nv12 -f nv12 --force -q 2> single.err & two=$!
            exec 4>fi           # the single conversion has begun, and opens its input
            sleep 0.03; printf 'theirs s' > o/s.nv12
            cat a.png >&4; exec 4>&-
            wait $two; echo "single $?"; for n in a b c d e s; do cat o/$n.nv12; echo; done; cat victim
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self),
                       "batch 1\nsingle 1\ntheirs a\ntheirs b\ntheirs c\nprecious\ntheirs e\ntheirs s\nprecious", r.stderr)
        let batch = String(decoding: try data("batch.err"), as: UTF8.self)
        XCTAssertTrue(batch.contains("0 converted, 0 skipped (already there), 5 failed"), batch)
        for log in ["batch.err", "single.err"] {
            let said = String(decoding: try data(log), as: UTF8.self)
            XCTAssertTrue(said.contains("at this name after the run began (another program's, or another run's), and is kept; "
                                        + "--force replaces only what was there, as it was, when the run began"), "\(log): \(said)")
        }
        // A link put in the place of the file that was there: kept, as a file put there is (the output's rename took
        // the name from it, exit 0).
        // (After the look: the run has read the picture's first bytes. ext4 gives the link the file's freed inode
        // number, and the link passed for the file.)
        let link = try sh("""
            printf old > o/l.nv12; mkfifo fl
            "$B" fl -o o/l.nv12 -f nv12 --force -q & three=$!
            exec 5>fl; head -c 100 a.png >&5; sleep 0.3; rm o/l.nv12; ln -s "$PWD/victim" o/l.nv12
            tail -c +101 a.png >&5; exec 5>&-
            wait $three; echo "link $?"; readlink o/l.nv12 > /dev/null && echo kept; cat victim
            """)
        XCTAssertEqual(String(decoding: link.stdout, as: UTF8.self), "link 1\nkept\nprecious", link.stderr)
        XCTAssertTrue(link.stderr.contains("o/l.nv12: was replaced by another file during the run"), link.stderr)
        // A link further along a chain of links, re-pointed after the run began: every link on the way is judged
        // (the first alone was, and --force wrote the file the chain then led to).
        let chain = try sh("""
            printf mine > o/orig; ln -s orig o/chain2; ln -s chain2 o/chain.nv12; mkfifo fc; sleep 0.03
            "$B" fc -o o/chain.nv12 -f nv12 --force -q & five=$!
            exec 7>fc; sleep 0.03; ln -sfn "$PWD/victim" o/chain2
            cat a.png >&7; exec 7>&-
            wait $five; echo "chain $?"; cat victim
            """)
        XCTAssertEqual(String(decoding: chain.stdout, as: UTF8.self), "chain 1\nprecious", chain.stderr)
        // The report file the same way: a link put at its name after the run began is kept, and the file it leads to
        // (it was followed, and --force wrote the report over that file, exit 0).
        let report = try sh("""
            mkfifo fr
            "$B" fr -o o/r.nv12 -f nv12 --force --report json --report-file o/r.json -q & four=$!
            exec 6>fr; sleep 0.03; ln -s "$PWD/victim" o/r.json
            cat a.png >&6; exec 6>&-
            wait $four; echo "report $?"; readlink o/r.json > /dev/null && echo kept; cat victim
            """)
        XCTAssertEqual(String(decoding: report.stdout, as: UTF8.self), "report 1\nkept\nprecious", report.stderr)
        XCTAssertTrue(report.stderr.contains("o/r.json: was made, moved or changed at this name after the run began"), report.stderr)
        // One there before the run is replaced, however soon the run begins after it was written (a file written
        // and the run started at once, 100 times: the run's start was read from the coarse clock, which fine-grained
        // file times can pass, and a few of them were refused).
        let soon = try sh("""
            /usr/bin/python3 - "$B" <<'PY'
            import os, sys
            failed = 0
            for i in range(100):
                pid = os.fork()
                if pid == 0:
                    with open(f"o/soon{i}.nv12", "wb") as f:
                        f.write(b"old")
                    os.execv(sys.argv[1], [sys.argv[1], "a.png", "-o", f"o/soon{i}.nv12", "--force", "-q"])
                _, status = os.waitpid(pid, 0)
                failed += status != 0
            print(failed)
            PY
            """)
        XCTAssertEqual(String(decoding: soon.stdout, as: UTF8.self), "0\n", soon.stderr)
        XCTAssertEqual(try sh("printf old > o/b2.nv12; \"$B\" a.png -o o/b2.nv12 --force -q; echo $?; wc -c < o/b2.nv12").stdout,
                       Data("0\n\(32 * 32 * 3 / 2)\n".utf8))
    }

    /// Two spellings of one output whose folder is not made yet (`./out/` and `out/`, `out//a`, `out/x/../a`):
    /// one output, so a report file that is also an image output is refused before any work. Their keys were the
    /// names' text, so the batch wrote the image, then the report over it (exit 0 with --force).
    func testOneOutputSpelledTwoWaysBeforeItsFolderIsMade() throws {
        let cases = [
            "-o ./out/ --report-file out/a.nv12", "-o out// --report-file ./out/a.nv12",
            "-o out/ --report-file out/x/../a.nv12", "-o out/ --report-file out/x/./../a.nv12",
        ]
        for c in cases {
            let r = try sh("rm -rf out; cp \"$F/photos/rocket.jpg\" a.jpg; \"$B\" convert a.jpg \(c) --report json --force -q")
            XCTAssertEqual(r.status, 2, "\(c): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("is also an image output"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("out").path), c)
        }
        // The folder there, the path through one that is not: the same.
        let r = try sh("rm -rf out; mkdir out; \"$B\" convert a.jpg -o out/ --report json --report-file out/x/../a.nv12 --force -q")
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("out").path), [])
        // An output that is an input by a path through a folder not made yet: refused before any work, dry run too
        // (the run made `in/w/`, converted the other file, then failed this one at its write).
        let input = try sh("""
            rm -rf in; mkdir in; cp "$F/photos/rocket.jpg" in/a.jpg; cp "$F/pngsuite/basn2c08.png" in/b.png
            "$B" convert in/a.jpg in/b.png -o in/w/../ --name '{stem}.jpg' --force -n > /dev/null; echo "dry $?"
            "$B" convert in/a.jpg in/b.png -o in/w/../ --name '{stem}.jpg' --force; echo "run $?"; ls in
            """)
        XCTAssertEqual(String(decoding: input.stdout, as: UTF8.self), "dry 1\nrun 1\na.jpg\nb.png\n", input.stderr)
        XCTAssertTrue(input.stderr.contains("in/w/../a.jpg: is an input of this batch"), input.stderr)
        // A single conversion too.
        let single = try sh("rm -rf o2; \"$B\" a.jpg -o ./o2/a.nv12 --report json --report-file o2/y/..//a.nv12 --force")
        XCTAssertEqual(single.status, 2, single.stderr)
        XCTAssertTrue(single.stderr.contains("are the same file"), single.stderr)
    }

    /// Outputs that are one FIFO (links to it in the output folder) are written in place, in input order, with
    /// -j 2 as with -j 1: two jobs wrote into it at once and their bands interleaved (exit 0, a damaged stream).
    func testOutputsSharingOneFIFOAreWrittenInOrder() throws {
        let r = try sh("""
            mkdir -p in out && mkfifo p
            i=0; for f in "$F/photos/rocket.jpg" "$F/photos/kodim23.png" "$F/pngsuite/basn2c08.png" "$F/photos/rocket.jpg" \\
                          "$F/pngsuite/basn0g16.png" "$F/photos/kodim23.png"; do
              cp "$f" in/im$i.${f##*.}; ln -s ../p out/im$i.nv12; i=$((i + 1))
            done
            for f in $(ls in | sort); do "$B" in/$f -o - -q; done > want
            exec 5<>p
            cat p 5>&- > got & C=$!
            timeout 60 "$B" convert in/ -o out/ -j 2 -q --force; echo "rc $?"
            exec 5>&-; wait $C
            cmp got want && echo same
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "rc 0\nsame\n", r.stderr)
    }

    /// A descriptor open read-write on a file with data (`1<>old`, `3<>old`): refused without --force; with it,
    /// the file is the output alone, as a replaced file is — its old tail stayed after the new bytes (exit 0, a
    /// file of the wrong size), a report's on standard output too (and --force was said to be ignored there); help
    /// or a dry run's listing there is refused without --force (it was written over the file's start); a failed
    /// output leaves none of its bytes there (they were followed by the old file's rest), and one that wrote
    /// nothing cuts nothing.
    /// Appending (`>>`) keeps what was there before.
    func testForceOntoADescriptorLeavesNoOldTail() throws {
        let r = try sh("""
            "$B" "$F/photos/rocket.jpg" -o ref.nv12 -q || exit 9
            head -c 1000000 /dev/urandom > old; cp old old3; cp old old-proc
            "$B" "$F/photos/rocket.jpg" -o - -q 1<>old 2>/dev/null; echo "refused $?"
            "$B" "$F/photos/rocket.jpg" -o - -q --force 1<>old && cmp old ref.nv12 && echo stdout
            "$B" "$F/photos/rocket.jpg" -o /dev/fd/3 -q --force 3<>old3 && cmp old3 ref.nv12 && echo fd3
            "$B" "$F/photos/rocket.jpg" -o /proc/self/fd/1 -q --force 1<>old-proc && cmp old-proc ref.nv12 && echo proc
            printf 'head' > app; "$B" "$F/photos/rocket.jpg" -o - -q >> app && test $(stat -c %s app) -eq $(( $(stat -c %s ref.nv12) + 4 )) && echo append
            "$B" report "$F/photos/rocket.jpg" --report json > ref.json
            cp old3 rep; "$B" report "$F/photos/rocket.jpg" --report json --force 1<>rep 2> rep.err && test "$(wc -l < rep)" -eq 2 \\
              && head -1 rep | cmp -s - <(head -1 ref.json) && tail -1 rep | grep -q '"type": "totals"' && echo report
            grep -q 'is ignored' rep.err && echo "said --force is ignored"
            cp old3 rep2; "$B" report "$F/photos/rocket.jpg" --report json 1<>rep2 2>/dev/null; cmp -s rep2 old3 && echo "refused, kept"
            cp old3 h; "$B" --help 1<>h 2>/dev/null; echo "help $?"; cmp -s h old3 && echo "help kept"
            "$B" --help > help.txt; "$B" --help --force 1<>h && cmp h help.txt && echo "help replaced"
            cp old3 d; "$B" convert "$F/photos/rocket.jpg" -o dry/ -n 1<>d 2>/dev/null; echo "dry $?"; cmp -s d old3 && echo "dry kept"
            cp old3 n; "$B" "$F/photos/rocket.jpg" -o n.nv12 -q --force 1<>n && cmp -s n old3 && echo "nothing written, nothing cut"
            head -c 60000 "$F/photos/rocket.jpg" > cut.jpg; printf 'no picture' > bad.jpg
            cp old3 c; "$B" cut.jpg -o /dev/fd/3 -q --force 3<>c 2>/dev/null; echo "cut short $? $(stat -c %s c)"
            cp old3 b; "$B" bad.jpg -o - -q --force 1<>b 2>/dev/null; echo "refused $?"; cmp -s b old3 && echo "unread, kept"
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "refused 2\nstdout\nfd3\nproc\nappend\nreport\nrefused, kept\nhelp 2\nhelp kept\nhelp replaced\n"
                       + "dry 2\ndry kept\nnothing written, nothing cut\ncut short 1 0\nrefused 1\nunread, kept\n", r.stderr)
    }

    /// Closed standard descriptors: log lines never land in an output, and a report for a closed or full
    /// standard output is an error.
    func testClosedAndFullStandardStreams() throws {
        let r = try sh("""
            mkdir in && cp "$F/photos/rocket.jpg" in/a.jpg && cp "$F/photos/kodim23.png" in/b.png \
              && cp "$F/photos/rocket.jpg" in/c.jpg && cp "$F/photos/kodim23.png" in/d.png
            "$B" convert in -o ref/ -q && "$B" convert in -o closed/ 2>&- && cmp ref/a.nv12 closed/a.nv12 \
              && cmp ref/b.nv12 closed/b.nv12 && cmp ref/c.nv12 closed/c.nv12 && cmp ref/d.nv12 closed/d.nv12 && echo same
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "same\n", r.stderr)
        let closed = try sh("\"$B\" report \"$F/photos/rocket.jpg\" --report json >&-")
        XCTAssertEqual(closed.status, 1, closed.stderr)
        XCTAssertTrue(closed.stderr.contains("standard output is closed"), closed.stderr)
        let full = try sh("\"$B\" report \"$F/photos/rocket.jpg\" > /dev/full")
        XCTAssertEqual(full.status, 1, full.stderr)
        XCTAssertTrue(full.stderr.contains("No space left on device"), full.stderr)
        let noStdin = try sh("\"$B\" - -o x.nv12 <&-")
        XCTAssertEqual(noStdin.status, 1)
        XCTAssertTrue(noStdin.stderr.contains("<stdin>: cannot open: standard input is closed"), noStdin.stderr)
        let quiet = try sh("\"$B\" - -o x.jpg -q < \"$F/photos/rocket.jpg\"")
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.stderr, "")
    }

    /// FIFOs, devices and endless streams: nothing hangs, nothing is read without bound.
    func testFIFOsAndDevicesNeverHang() throws {
        let r = try sh("""
            mkdir in && cp "$F/photos/rocket.jpg" in/a.jpg && mkfifo in/b.jpg && ln -s /dev/zero in/z.jpg
            timeout 20 "$B" convert in -o out/
            """)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("in/b.jpg (a FIFO)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("in/z.jpg (a device)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("1 converted"), r.stderr)
        for c in ["mkfifo p.jpg; timeout 20 \"$B\" p.jpg -o p.nv12", "timeout 20 \"$B\" /dev/zero -o z.nv12",
                  "timeout 20 \"$B\" - -o z.nv12 < /dev/urandom", "${LIMIT_VM:-ulimit -v 400000}; timeout 20 \"$B\" - -o z.nv12 < /dev/zero"] {
            let x = try sh(c)
            XCTAssertEqual(x.status, 1, "\(c): \(x.stderr)")
            XCTAssertTrue(x.stderr.hasPrefix("yuvconv: error: "), x.stderr)
        }
        // A JPEG header then endless bytes: cut off at the stream limit (16 MiB + 8 B a pixel of --max-pixels).
        let endless = try sh("${LIMIT_VM:-ulimit -v 400000}; (head -c 700 \"$F/photos/rocket.jpg\"; cat /dev/zero) | timeout 20 \"$B\" - -o e.nv12 --max-pixels 1000000")
        XCTAssertEqual(endless.status, 1, endless.stderr)
    }

    /// Linear in markers, bounded in scans.
    func testMarkerFloodsAndScanFloods() throws {
        var jpeg = try Data(contentsOf: URL(fileURLWithPath: fixture("photos/rocket.jpg")))
        let plain = try run([fixture("photos/rocket.jpg"), "-o", "-", "-q"]).stdout
        let flood = jpeg.prefix(2) + Data([0xFF, 0xE1, 0x00, 0x02] as [UInt8]).repeated(300_000) + jpeg.dropFirst(2)
        try flood.write(to: work.appendingPathComponent("flood.jpg"))
        let start = Date()
        let r = try run(["flood.jpg", "-o", "-", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, plain)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "300,000 APP1 segments must be skipped in linear time")
        // 600 copies of the last scan of a progressive file: refused by the scan limit (with --allow-truncated
        // too, which accepts the bogus progression, not the scans), let through by --max-scans.
        jpeg = try Data(contentsOf: fixturesURL.appendingPathComponent("synthetic/progressive-rocket.jpg"))
        let scans = scanRanges(jpeg)
        XCTAssertGreaterThan(scans.count, 2)
        let last = scans.last!
        let many = jpeg.prefix(last.upperBound) + Data(jpeg[last]).repeated(600) + jpeg.suffix(from: last.upperBound)
        try many.write(to: work.appendingPathComponent("scans.jpg"))
        let refused = try run(["scans.jpg", "-o", "s.nv12", "--allow-truncated"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("scans.jpg: the progressive JPEG has more than 500 scans (one for each component a scan holds) (--max-scans)"), refused.stderr)
        XCTAssertEqual(try run(["scans.jpg", "-o", "s.nv12", "--allow-truncated", "--max-scans", "1000", "-q"]).status, 0)
    }

    /// The byte ranges of a JPEG's scans (SOS to the next marker).
    func scanRanges(_ d: Data) -> [Range<Int>] {
        let b = [UInt8](d)
        var i = 2, out: [Range<Int>] = []
        while i + 3 < b.count, b[i] == 0xFF, b[i + 1] != 0xD9 {
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if b[i + 1] == 0xDA {
                var j = i + 2 + length
                while j + 1 < b.count && !(b[j] == 0xFF && b[j + 1] != 0 && !(0xD0...0xD7).contains(b[j + 1])) { j += 1 }
                out.append(i..<j)
                i = j
            } else {
                i += 2 + length
            }
        }
        return out
    }

    /// A YUV frame from a stream is held under the stream default (256 MiB): a header piped in declaring
    /// 16384×16384 10-bit made the tool hold 1 GiB (its bytes were taken as a file's, "the file is the frame").
    /// Refused before anything is read; a frame from a file is still never refused by the default.
    func testYUVFrameFromAStreamIsUnderTheStreamDefault() throws {
        let r = try sh("""
            (printf 'YUV4MPEG2 W16384 H16384 C420p10\\nFRAME\\n'; head -c 100 /dev/zero) | "$B" - -o a.nv12; echo "y4m $?"
            head -c 100 /dev/zero | "$B" - -s 16384x16384 -o b.nv12; echo "raw $?"
            (printf 'YUV4MPEG2 W16384 H16384 C420p10\\nFRAME\\n'; head -c 100 /dev/zero) > short.y4m; "$B" short.y4m -o c.nv12; echo "file $?"
            head -c 1000 /dev/zero > short.yuv; "$B" short.yuv -s 16384x12000 -o d.nv12; echo "rawfile $?"
            rm short.y4m short.yuv
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "y4m 1\nraw 1\nfile 1\nrawfile 1\n")
        // From a file, short: its size is what is wrong, not the memory (a reviewer found those refused for memory).
        XCTAssertTrue(r.stderr.contains("short.y4m: the Y4M frame is cut short (100 of 805306368 bytes)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("short.yuv: is 1000 bytes, but 16384x12000 yuv420p needs 294912000 bytes"), r.stderr)
        XCTAssertTrue(r.stderr.contains("<stdin>: holding the YUV frame needs 768 MiB held whole, above the limit of 256 MiB"), r.stderr)
        XCTAssertTrue(r.stderr.contains("<stdin>: holding the YUV frame needs 384 MiB held whole, above the limit of 256 MiB"), r.stderr)
        XCTAssertEqual(try leftovers(), [])
    }

    /// Signals that end the process, and a file-size limit, leave nothing behind.
    func testSignalsAndFileSizeLimitsLeaveNothing() throws {
        try Data(count: 4000 * 3000 * 3 / 2).write(to: work.appendingPathComponent("big.nv12"))
        for (i, sig) in ["QUIT", "USR1", "USR2", "ALRM", "TERM", "INT", "HUP"].enumerated() {
            let delay = ["0.05", "0.15", "0.3"][i % 3]
            // `set -m`: without job control bash starts `&` jobs with SIGINT and SIGQUIT ignored, and those rounds
            // only checked a conversion that was never stopped.
            let r = try sh("set -m; \"$B\" big.nv12 --size 4000x3000 -o out-\(sig).png & pid=$!; sleep \(delay); kill -\(sig) $pid; wait $pid; echo $?")
            let status = Int(String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            // Ended by the signal (128 + its number), or finished before it came (0) on a very fast machine.
            XCTAssertTrue(status == 0 || status > 128, "\(sig): \(status)")
            XCTAssertEqual(try leftovers().filter { $0 != "big.nv12" && !$0.hasPrefix("out-") }, [], sig)
            XCTAssertFalse(try leftovers().contains { $0.hasPrefix(".") }, sig)
        }
        // Any out-*.png that exists was finished before the signal: a whole PNG.
        let limited = try sh("ulimit -f 10; \"$B\" big.nv12 --size 4000x3000 -o limited.nv21")
        XCTAssertEqual(limited.status, 1, limited.stderr)
        XCTAssertTrue(limited.stderr.contains("limited.nv21: "), limited.stderr)
        XCTAssertFalse(try leftovers().contains { $0.hasPrefix(".") || $0 == "limited.nv21" })
    }

    /// Every signal whose default action ends the process cleans up, the rarer ones too: SIGPWR and the real-time
    /// signals once ended it with half a PNG appended to the file standard output was open on (`>>`); now each
    /// cuts the file back to where writing started, as SIGUSR1 always did.
    func testRareEndingSignalsCutAnAppendBack() throws {
        try Data(count: 4000 * 3000 * 3 / 2).write(to: work.appendingPathComponent("big.nv12"))
        for sig in ["PWR", "RTMIN", "RTMIN+3", "RTMAX", "USR1"] {
            let r = try sh("""
                echo hello > app.bin
                "$B" big.nv12 --size 4000x3000 -f png -o - -q >> app.bin & pid=$!
                for _ in $(seq 1000); do [ "$(stat -c %s app.bin)" -gt 6 ] && break; sleep 0.01; done
                kill -\(sig) $pid; wait $pid; echo "status $? want $((128 + $(kill -l \(sig))))"
                """)
            let said = String(decoding: r.stdout, as: UTF8.self).split(separator: " ")
            XCTAssertTrue(said.count == 4 && said[1] == said[3].dropLast(), "\(sig): \(said)")
            XCTAssertEqual(try data("app.bin"), Data("hello\n".utf8), sig)
        }
    }

    /// A failed output on a file standard output appends to (`>> log`) is cut back to its own first byte, never
    /// over another program's: its bytes were counted when asked, so a write that failed partway (here at the
    /// `ulimit -f` limit) counted bytes the file never got, and the cut took the line another program had appended
    /// since the output began for the output's own. Appended before the output's first write, that line stays
    /// and the output's bytes go; appended among them, everything stays (the output's bytes are no longer one run
    /// at the file's end).
    func testACutBackNeverTakesAnotherWritersAppendedBytes() throws {
        var rng = SplitMix64(seed: 46)
        try writePNG(work.appendingPathComponent("noise.png").path, width: 1000, height: 800,
                     pixels: randomBytes(1000 * 800 * 3, &rng))
        // `skip` bytes of the picture reach yuvconv, then the other program appends its line, then the rest comes.
        func run(skip: Int, limitKiB: Int) throws -> Data {
            let r = try sh("""
                printf 'START\n' > log.bin
                { head -c \(skip) noise.png; sleep 0.5; printf 'OTHER-WRITER-LINE\n' >> log.bin; tail -c +\(skip + 1) noise.png; } \
                  | (ulimit -f \(limitKiB); exec "$B" - -f png -o - -q >> log.bin); echo "status ${PIPESTATUS[1]}"
                """)
            XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "status 1\n", "\(rng)")
            return try data("log.bin")
        }
        // Before the output's first write (its first 8 KiB of PNG need more rows than 4 KiB of input holds).
        XCTAssertEqual(try run(skip: 4096, limitKiB: 200), Data("START\nOTHER-WRITER-LINE\n".utf8), "\(rng)")
        // Among its writes: nothing is cut, the line is still there.
        let among = try run(skip: 600_000, limitKiB: 1000)
        XCTAssertNotNil(among.range(of: Data("OTHER-WRITER-LINE\n".utf8)), "\(rng)")
        XCTAssertEqual(among.prefix(6), Data("START\n".utf8))
    }

    /// A folder a `-r` walk cannot reach because its path passes the system's limit (4096 bytes) is a folder left
    /// out, as an unreadable one is: an error naming it, the rest converted, exit 1 — and with `--shard` the run
    /// stops before any file. It was "skipped … not a regular file or a folder to walk", exit 0.
    func testAFolderTooDeepForAPathIsLeftOutWithAnError() throws {
        let r = try sh("""
            ( mkdir deep && cd deep && name=$(printf 'd%.0s' $(seq 100))
              for i in $(seq 0 44); do mkdir $name$i && cd $name$i || exit 1; [ $i = 10 ] && cp "$F/photos/rocket.jpg" p10.jpg; [ $i = 44 ] && cp "$F/photos/rocket.jpg" p44.jpg; done; true )
            "$B" deep -r -o out/ -q; echo "status $?"
            "$B" deep -r -o sharded/ -q --shard 1/1; echo "status $?"
            find out -name '*.nv12' | wc -l; [ -e sharded ] && echo "sharded made"
            rm -rf deep
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "status 1\nstatus 1\n1\n", r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot walk the folder: its path is longer than the system allows"), r.stderr)
        XCTAssertTrue(r.stderr.contains("the run stops before any file (--shard"), r.stderr)
    }

    /// `--update` whose journal cannot be written (here a file-size limit the outputs fit under and the journal
    /// outgrows): no output is named that the journal did not record, and the run starts no more files, so the next
    /// run records what was made and converts the rest. The run went on naming outputs unrecorded, said that its
    /// journal kept them, and the next run refused 203 of 300 as "already there and not recorded" until --force.
    func testAnUpdateWhoseJournalFailsLeavesNoOutputUnrecorded() throws {
        var rng = SplitMix64(seed: 4646)
        try FileManager.default.createDirectory(at: work.appendingPathComponent("in"), withIntermediateDirectories: true)
        try writePNG(work.appendingPathComponent("small.png").path, width: 64, height: 64, pixels: randomBytes(64 * 64 * 3, &rng))
        let r = try sh("""
            for i in $(seq -w 1 300); do cp small.png in/s$i.png; done
            (ulimit -f 50; exec "$B" in/ -o out/ --update -j 2 -q) 2> first.err; echo "first $?"
            "$B" in/ -o out/ --update 2> second.err; echo "second $?"
            ls out/*.nv12 | wc -l
            """)
        let first = (try? String(contentsOf: work.appendingPathComponent("first.err"), encoding: .utf8)) ?? ""
        let second = (try? String(contentsOf: work.appendingPathComponent("second.err"), encoding: .utf8)) ?? ""
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "first 1\nsecond 0\n300\n", first + second)
        XCTAssertTrue(first.contains("cannot keep --update's journal in out/ (File too large): the run starts no more files"), first)
        XCTAssertTrue(first.contains("not started (--update's journal could not be kept)"), first)
        XCTAssertTrue(second.contains("0 failed"), second)
    }

    /// A first SIGTERM stops a batch whose standard output (or error) nobody reads within about a second: its
    /// threads sat in write(2) on the full pipe, and the run — summary, exit 143 — waited for as long as the reader
    /// slept. Now a write after the signal waits for room at most `YC_STREAM_GRACE_MS`, then gives the reader up.
    func testAStalledReaderDoesNotHoldAStoppedBatch() throws {
        var rng = SplitMix64(seed: 461)
        try FileManager.default.createDirectory(at: work.appendingPathComponent("in"), withIntermediateDirectories: true)
        try writePNG(work.appendingPathComponent("small.png").path, width: 16, height: 16, pixels: randomBytes(16 * 16 * 3, &rng))
        // Standard output: the report's lines (about 1.5 KB each); standard error: the per-image lines (about 200 B).
        for (stream, redirect) in [("stdout", "--report json >&3 2> err.txt"), ("stderr", "> /dev/null 2>&3")] {
            let r = try sh("""
                [ -e in/p1000.png ] || for i in $(seq 1000); do cp small.png in/p$i.png; done
                exec 3> >(exec sleep 30); reader=$!
                "$B" in/ -o out-\(stream)/ -j 2 \(redirect) & pid=$!
                exec 3>&-
                sleep 1.5; kill -TERM $pid; start=$(date +%s%N); wait $pid; status=$?
                echo "status $status after $(( ($(date +%s%N) - start) / 100000000 ))"; kill $reader 2> /dev/null
                """)
            let said = String(decoding: r.stdout, as: UTF8.self).split(separator: " ")
            XCTAssertEqual(said.first.map(String.init), "status", "\(stream): \(r.stdout) \(r.stderr)")
            XCTAssertEqual(said.dropFirst().first.map(String.init), "143", "\(stream): \(r.stdout)")
            // Tenths of a second: the grace (1 s) and a margin for a loaded machine, far below the reader's 30 s.
            XCTAssertLessThan(Int(said.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 999, 60, "\(stream): \(r.stdout)")
        }
    }

    /// The temporary-file registry from many threads at once: every slot distinct, every path its own.
    func testTemporaryRegistryUnderContention() {
        let n = 200
        let slots = UnsafeMutablePointer<Int32>.allocate(capacity: n)
        defer { slots.deallocate() }
        let box = UncheckedPointer(slots)
        DispatchQueue.concurrentPerform(iterations: n) { i in
            box.pointer[i] = "/tmp/yuvconv-registry-test-\(i)".withCString { yc_register_temp(AT_FDCWD, $0) }
        }
        var seen = Set<Int32>()
        for i in 0..<n {
            let slot = slots[i]
            XCTAssertGreaterThanOrEqual(slot, 0)
            XCTAssertTrue(seen.insert(slot).inserted, "slot \(slot) given twice")
            XCTAssertEqual(yc_temp_path(slot).map { String(cString: $0) }, "/tmp/yuvconv-registry-test-\(i)")
        }
        for i in 0..<n { yc_unregister_temp(slots[i]) }
    }

    /// The registry removes a temporary file through a descriptor of its own, not the caller's: `makePrivate`
    /// (`--update --dry-run`'s copy of a dead run's journal) closed its folder's descriptor while the slot stayed
    /// registered, and a signal then removed nothing — or, once another open got that number, the file of that
    /// name in another folder.
    func testTheTemporaryRegistryKeepsItsOwnFolderDescriptor() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("yuvconv-registry-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        for folder in ["mine", "other"] {
            try FileManager.default.createDirectory(atPath: base + "/" + folder, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: base + "/\(folder)/.yuvconv-Tmp123", contents: Data("x".utf8)))
        }
        let mine = open(base + "/mine", O_RDONLY | O_DIRECTORY)
        XCTAssertGreaterThanOrEqual(mine, 0)
        let slot = yc_register_temp(mine, ".yuvconv-Tmp123")
        XCTAssertGreaterThanOrEqual(slot, 0)
        defer { yc_unregister_temp(slot) }
        // The caller closes its descriptor, and the number comes to mean another folder.
        let other = open(base + "/other", O_RDONLY | O_DIRECTORY)
        XCTAssertEqual(dup2(other, mine), mine)
        close(other)
        defer { close(mine) }
        yc_remove_temps()
        XCTAssertFalse(FileManager.default.fileExists(atPath: base + "/mine/.yuvconv-Tmp123"), "the registered file is removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: base + "/other/.yuvconv-Tmp123"), "another folder's file is kept")
    }

    /// A name that begins with a combining mark: to Swift the `/` before it and the mark are one Character, so
    /// paths split and compared as Strings missed that `/` — the folder could not be made ("cannot make the
    /// folder out/\u{301}x"), and a batch's confinement to its output folder did not see the output as below it.
    /// Paths are split by scalar (`pathParts`) and confined by bytes.
    func testANameThatBeginsWithACombiningMark() throws {
        let r = try sh("""
            mkdir -p in/$'\\xcc\\x81'x && cp "$F/photos/rocket.jpg" in/$'\\xcc\\x81'x/a.jpg
            "$B" convert in/ -r -o out/ --name '{dir}/{stem}.nv12' -q && "$B" convert in/ -r -o out/ --name '{dir}/{stem}.nv12' -q --force \
              && cmp out/$'\\xcc\\x81'x/a.nv12 <("$B" "$F/photos/rocket.jpg" -o - -q) && echo ok
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "ok\n", r.stderr)
        // A top-level input so named, under the mirror template ({dir} empty: "/" + the mark began the name and was
        // never dropped): --update took its output for one reached through a link, and './{stem}' refused the batch.
        let top = try sh("""
            mkdir -p top && cp "$F/photos/rocket.jpg" top/$'\\xcc\\x81'k.jpg && cp "$F/photos/rocket.jpg" top/k.jpg
            "$B" top/ -o u/ --name '{dir}/{stem}.nv12' -u -q && "$B" top/ -o u/ --name '{dir}/{stem}.nv12' -u -q \
              && "$B" top/ -o d/ --name './{stem}.nv12' -q && ls u/$'\\xcc\\x81'k.nv12 d/$'\\xcc\\x81'k.nv12 > /dev/null && echo ok
            """)
        XCTAssertEqual(String(decoding: top.stdout, as: UTF8.self), "ok\n", top.stderr)
        // A template expanded in one pass: the value's mark no longer hides the next placeholder ('{format}{stem}' gave
        // '{format}́k.nv12'), and an input's name is never read as a template ('{dir}.jpg' stays so named).
        let once = try sh("""
            mkdir -p lit && cp "$F/photos/rocket.jpg" lit/'{dir}.jpg'
            "$B" top/$'\\xcc\\x81'k.jpg -o f/ --name '{format}{stem}.nv12' -q && "$B" lit/ -o g/ --name '{stem}.y4m' -q \
              && ls f/nv12$'\\xcc\\x81'k.nv12 g/'{dir}.y4m' > /dev/null && echo ok
            """)
        XCTAssertEqual(String(decoding: once.stdout, as: UTF8.self), "ok\n", once.stderr)
    }

    /// Names that are not UTF-8 convert under their own bytes, in folders, on the command line and as outputs.
    func testNonUTF8Names() throws {
        let r = try sh("""
            mkdir in && cp "$F/photos/rocket.jpg" in/caf$'\\xe9'.jpg && cp "$F/photos/rocket.jpg" $'bad\\xff.jpg'
            "$B" convert in -o out/ -q && cmp out/caf$'\\xe9'.nv12 <("$B" "$F/photos/rocket.jpg" -o - -q) \
              && "$B" $'bad\\xff.jpg' -o $'out\\xff.nv12' -q && cmp $'out\\xff.nv12' out/caf$'\\xe9'.nv12 && echo ok
            "$B" missing$'\\xfe'.jpg -o x.nv12
            "$B" "$F/photos/rocket.jpg" -o x.nv12 --matrix bt$'\\xff'
            "$B" "$F/photos/rocket.jpg" -o x.nv12 $'--fo\\xffrce'
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "ok\n", r.stderr)
        XCTAssertTrue(r.stderr.contains("yuvconv: error: missing\\xFE.jpg: cannot open: No such file or directory"), r.stderr)
        // An option's value or name as given, its bytes that are not UTF-8 as a name's are (they showed as U+10FFFF).
        XCTAssertTrue(r.stderr.contains("'bt\\xFF'") && r.stderr.contains("--fo\\xFFrce"), r.stderr)
        XCTAssertFalse(r.stderr.unicodeScalars.contains { $0.value >= 0x10FF00 }, r.stderr)
    }

    /// `--align N` pads every row of every plane of the file, to a pipe as to a file; the report's aligned
    /// figure is the file's size; unpadded, the rows are the tight output's.
    func testAlignPadsTheRowsWritten() throws {
        let png = fixture("pngsuite/basn2c08.png")   // 32×32: rows of 32 and 16 (planar) or 32 (bi-planar)
        for (format, stride, chroma) in [("nv12", 64, 64), ("yuv420p", 64, 64)] {
            let tight = try run([png, "-o", "-", "--format", format, "-q"]).stdout
            XCTAssertEqual(try run([png, "-o", "p.\(format)", "--format", format, "--align", "64", "-q"]).status, 0)
            let padded = try data("p.\(format)")
            XCTAssertEqual(try run([png, "-o", "-", "--format", format, "--align", "64", "-q"]).stdout, padded)
            let report = try run(["report", png, "--format", format, "--align", "64", "--report", "json"])
            XCTAssertTrue(String(decoding: report.stdout, as: UTF8.self).contains("\"yuv_aligned_bytes\": \(padded.count)"))
            // Padded rows are not rawvideo: no ffmpeg arguments, from `report` as from a conversion.
            let converted = try run([png, "-o", "p.\(format)", "--format", format, "--align", "64", "-q", "--force",
                                     "--report", "json"])
            for r in [report, converted] {
                XCTAssertTrue(String(decoding: r.stdout, as: UTF8.self).contains("\"ffmpeg_rawvideo_input\": \"\""),
                              String(decoding: r.stdout, as: UTF8.self))
            }
            var unpadded = Data()
            for r in 0..<32 { unpadded += padded[(r * stride)..<(r * stride + 32)] }
            let base = 32 * stride
            let planes = format == "nv12" ? [(base, 32)] : [(base, 16), (base + 16 * chroma, 16)]
            for (start, width) in planes {
                for r in 0..<16 { unpadded += padded[(start + r * chroma)..<(start + r * chroma + width)] }
            }
            XCTAssertEqual(unpadded, tight, format)
        }
        XCTAssertEqual(try run([png, "-o", "x.png", "--align", "64"]).status, 2)
        // --align-height: the luma plane padded to 48 rows (zeros), each chroma plane to 24; to a pipe as to a file.
        let tight = try run([png, "-o", "-", "--format", "yuv420p", "-q"]).stdout
        XCTAssertEqual(try run([png, "-o", "h.yuv", "--align-height", "48", "--align", "64", "-q"]).status, 0)
        let tall = try data("h.yuv")
        XCTAssertEqual(tall.count, 48 * 64 + 2 * 24 * 64)
        XCTAssertEqual(try run([png, "-o", "-", "--format", "yuv420p", "--align-height", "48", "--align", "64", "-q"]).stdout, tall)
        let report = try run(["report", png, "--format", "yuv420p", "--align", "64", "--align-height", "48", "--report", "json"])
        XCTAssertTrue(String(decoding: report.stdout, as: UTF8.self).contains("\"yuv_aligned_bytes\": \(tall.count)"))
        XCTAssertTrue(String(decoding: report.stdout, as: UTF8.self).contains("\"ffmpeg_rawvideo_input\": \"\""))
        // The text report labels the figure with both paddings (it said "aligned(64)" of a figure padded in height too).
        let text = try run(["report", png, "--format", "yuv420p", "--align", "64", "--align-height", "48", "--report", "text"])
        XCTAssertTrue(String(decoding: text.stdout, as: UTF8.self).contains("aligned(64, height 48) 6.0 KiB;"),
                      String(decoding: text.stdout, as: UTF8.self))
        // --align-height alone: rows tight, planes 48 and 24 rows; the report's aligned figure is that file's size
        // (it assumed 64-byte rows before: 6144 for a 2304-byte file).
        let heightOnly = try run([png, "-o", "t.yuv", "--align-height", "48", "--report", "json", "-q"])
        XCTAssertEqual(try data("t.yuv").count, 48 * 32 + 2 * 24 * 16)
        XCTAssertTrue(String(decoding: heightOnly.stdout, as: UTF8.self).contains("\"yuv_aligned_bytes\": \(48 * 32 + 2 * 24 * 16)"),
                      String(decoding: heightOnly.stdout, as: UTF8.self))
        // --align-height 1 (or --align 1): asked for, so the figure is the file's too (the tight size, not
        // CoreVideo's 64-byte rows, which a value of 1 taken for the default would give).
        for flag in ["--align-height", "--align"] {
            let one = try run([png, "-o", "one\(flag).yuv", flag, "1", "--report", "json", "-q"])
            let bytes = try data("one\(flag).yuv").count
            XCTAssertEqual(bytes, tight.count)
            XCTAssertTrue(String(decoding: one.stdout, as: UTF8.self).contains("\"yuv_aligned_bytes\": \(bytes)"),
                          "\(flag) 1: " + String(decoding: one.stdout, as: UTF8.self))
        }
        var rows = Data()
        for r in 0..<32 { rows += tall[(r * 64)..<(r * 64 + 32)] }
        for (start, n) in [(48 * 64, 16), (48 * 64 + 24 * 64, 16)] {
            for r in 0..<n { rows += tall[(start + r * 64)..<(start + r * 64 + 16)] }
        }
        XCTAssertEqual(rows, tight)
        XCTAssertEqual(tall[(32 * 64)..<(48 * 64)], Data(count: 16 * 64))   // padding rows are zeros
        XCTAssertEqual(try run([png, "-o", "x.y4m", "--align-height", "16"]).status, 2)
    }

    /// Raw YUV (with --size) and Y4M work from standard input, piped or redirected from a file, as from a file.
    func testRawAndY4MOnStandardInput() throws {
        let r = try sh("""
            "$B" "$F/photos/rocket.jpg" -o ref.y4m -q && "$B" ref.y4m -o ref.png -q \
              && "$B" "$F/photos/rocket.jpg" -o ref.nv12 -q && "$B" ref.nv12 --size 640x427 -o ref2.png -q || exit 9
            cat ref.y4m | "$B" - -o a.png -q && cmp a.png ref.png && echo y4m-pipe
            "$B" - -o b.png -q < ref.y4m && cmp b.png ref.png && echo y4m-file
            cat ref.nv12 | "$B" - --size 640x427 -o c.png -q && cmp c.png ref2.png && echo raw-pipe
            cat "$F/photos/rocket.jpg" | "$B" - --size 640x427 -o d.nv12 -q && cmp d.nv12 ref.nv12 && echo image-with-size
            cat ref.nv12 | "$B" - -o e.png
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "y4m-pipe\ny4m-file\nraw-pipe\nimage-with-size\n", r.stderr)
        XCTAssertTrue(r.stderr.contains("<stdin>: not a JPEG or PNG file (unrecognised signature); raw YUV is converted one file at a time, its size given: yuvconv FILE --size WxH -o OUT"), r.stderr)
    }

    /// Y4M and raw YUV from a named stream — a FIFO, `/dev/stdin` and `/proc/self/fd/0` on a pipe, bash's
    /// `<(…)` — as from `-`: the route is chosen from the stream's first bytes, which its reader then gets back.
    /// Before, only a regular file and `-` were looked into: a Y4M from a FIFO was refused as "a YUV4MPEG2 (Y4M)
    /// stream … it converts on its own (yuvconv FILE -o OUTPUT)", the very command run, and with `--size` read as
    /// a raw frame of its header's bytes (exit 0, a wrong picture).
    func testY4MAndRawFromNamedStreams() throws {
        let r = try sh("""
            "$B" "$F/photos/rocket.jpg" -o ref.y4m -q && "$B" ref.y4m -o ref.png -q \
              && "$B" "$F/photos/rocket.jpg" -o ref.nv12 -q && "$B" ref.nv12 --size 640x427 -o ref2.png -q || exit 9
            mkfifo p q
            (cat ref.y4m > p &); timeout 20 "$B" p -o a.png -q && cmp a.png ref.png && echo fifo
            (cat ref.y4m > p &); timeout 20 "$B" p --size 640x427 -o b.png -q 2>/dev/null && cmp b.png ref.png && echo fifo-size
            cat ref.y4m | timeout 20 "$B" /dev/stdin -o c.png -q && cmp c.png ref.png && echo dev-stdin
            cat ref.y4m | timeout 20 "$B" /proc/self/fd/0 -o d.png -q && cmp d.png ref.png && echo proc-fd
            timeout 20 "$B" <(cat ref.y4m) -o e.png -q && cmp e.png ref.png && echo substitution
            (cat ref.nv12 > q &); timeout 20 "$B" q --size 640x427 -o f.png -q && cmp f.png ref2.png && echo raw-fifo
            (cat "$F/photos/rocket.jpg" > q &); timeout 20 "$B" q -o g.nv12 -q && cmp g.nv12 ref.nv12 && echo jpeg-fifo
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self),
                       "fifo\nfifo-size\ndev-stdin\nproc-fd\nsubstitution\nraw-fifo\njpeg-fifo\n", r.stderr)
    }

    /// A FIFO whose writer opens it a moment after the run started (`yuvconv p -o out & producer > p`, the usual
    /// order in a script) is waited for: its first read said the end at once ("nothing was written"), as it still
    /// does for a writer that closes it without writing; one no writer opens ends the run after a few seconds, in a
    /// batch as in a single conversion.
    func testAFIFOsWriterMayComeLate() throws {
        // (Each writer gives up after 10 s: one whose reader is gone waits in its open for ever.)
        let r = try sh("""
            "$B" "$F/photos/rocket.jpg" -o ref.nv12 -q || exit 9
            mkfifo p q e n
            timeout 20 "$B" p -o a.nv12 -q & P=$!
            sleep 1; timeout 10 sh -c 'cat "$F/photos/rocket.jpg" > p'; wait $P && cmp a.nv12 ref.nv12 && echo single
            timeout 20 "$B" "$F/photos/kodim23.png" q -o out/ -q & P=$!
            sleep 1; timeout 10 sh -c 'cat "$F/photos/rocket.jpg" > q'; wait $P && cmp out/q.nv12 ref.nv12 && echo batch
            timeout 20 "$B" e -o e.nv12 2> e.txt & P=$!
            sleep 0.5; timeout 10 sh -c ': > e'; wait $P; echo "empty $?"
            start=$(date +%s); timeout 20 "$B" n -o n.nv12 2> n.txt; echo "none $?"
            t=$(( $(date +%s) - start )); test $t -ge 4 && test $t -le 8 && echo "gave up"
            test -e e.nv12 || test -e n.nv12 || echo "no output"
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "single\nbatch\nempty 1\nnone 1\ngave up\nno output\n", r.stderr)
        let said = "nothing was written to the FIFO (its writer closed it without writing, or no writer opened it within 5 s)"
        for name in ["e", "n"] {
            let text = try String(contentsOfFile: work.appendingPathComponent(name + ".txt").path, encoding: .utf8)
            XCTAssertTrue(text.contains("\(name): cannot open: \(said)"), text)
        }
    }

    /// A FIFO is opened only by a run that goes ahead: a dry run (single or batch) and a run refused for its
    /// output or its options leave a writer waiting on it (opened and closed, the writer died of SIGPIPE); and a
    /// FIFO its writer removes once it is open is still read (the route's second look found no name).
    func testFIFOsAreOpenedOnlyByARunThatGoesAhead() throws {
        let r = try sh("""
            "$B" "$F/photos/rocket.jpg" -o ref.y4m -q && "$B" ref.y4m -o ref.png -q && touch there.png || exit 9
            mkfifo p
            (cat ref.y4m > p; echo "$?" > w1) &
            sleep 0.3
            timeout 10 "$B" --dry-run p -o a.png > /dev/null; echo "dry $?"
            timeout 10 "$B" --dry-run "$F/photos/rocket.jpg" p -o out/ > /dev/null; echo "batch-dry $?"
            timeout 10 "$B" p -o there.png 2>/dev/null; echo "refused $?"
            timeout 10 "$B" p 2>/dev/null; echo "no-output $?"
            timeout 10 "$B" p -o /dev/tty 2>/dev/null; echo "terminal $?"
            sleep 0.3; test -e w1 && echo "the writer was let go"
            timeout 10 "$B" p -o b.png -q && cmp b.png ref.png && echo read
            wait
            mkfifo q
            ( exec 3>q; rm q; cat ref.y4m >&3 ) &
            timeout 10 "$B" q -o c.png -q && cmp c.png ref.png && echo removed-read
            wait
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "dry 0\nbatch-dry 0\nrefused 1\nno-output 2\nterminal 2\nread\nremoved-read\n",
                       r.stderr)
    }

    /// A batch stops on its first SIGTERM even while a stream input stalls (a FIFO whose writer never writes,
    /// `<(…)` that sleeps): the read is given up and the file said interrupted — before, only a second signal
    /// ended it, without the summary. And a run refused for its output format or folder leaves a FIFO's writer
    /// waiting (a raw frame's run too: it read the frame, then found its output refused); a raw frame that starts
    /// like a JPEG reads the same from `/dev/stdin` as from `-`.
    func testStalledStreamsAndRefusedRunsAndRawFramesFromStreams() throws {
        let r = try sh("""
            "$B" "$F/photos/rocket.jpg" -o ref.png -q || exit 9
            mkfifo st.fifo; sleep 20 > st.fifo 2>/dev/null & S=$!
            "$B" convert st.fifo ref.png -o out/ -j 1 2> err.txt & P=$!
            sleep 1; kill -TERM $P; sleep 1
            if kill -0 $P 2>/dev/null; then echo "still running"; kill -KILL $P; fi
            wait $P; echo "batch $?"; kill $S
            grep -q "st.fifo: interrupted before it was finished" err.txt && echo said
            mkfifo p; (cat "$F/photos/rocket.jpg" > p; echo "$?" > w1) &
            sleep 0.3
            timeout 10 "$B" p -o out.xyz 2>/dev/null; echo "format $?"
            timeout 10 "$B" p -o nodir/x.nv12 2>/dev/null; echo "folder $?"
            touch there.nv12
            timeout 10 "$B" p --size 640x427 -o there.nv12 2>/dev/null; echo "raw there $?"
            timeout 10 "$B" p --size 640x427 -o nodir/x.nv12 2>/dev/null; echo "raw folder $?"
            sleep 0.3; test -e w1 && echo "the writer was let go"
            timeout 10 "$B" p -o a.png -q && cmp a.png ref.png && echo read
            wait
            python3 -c "
            import sys; d = bytearray([128]) * (83 * 61 + 2 * 42 * 31); d[:4] = b'\\xff\\xd8\\xff\\xe0'; open('frame.nv12', 'wb').write(d)"
            "$B" frame.nv12 -s 83x61 -o f.png -q && cat frame.nv12 | "$B" /dev/stdin -s 83x61 -o s.png -q && cmp f.png s.png && echo raw-stdin
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "batch 143\nsaid\nformat 2\nfolder 1\nraw there 1\nraw folder 1\nread\nraw-stdin\n",
                       r.stderr)
    }

    /// After a first SIGINT, a reader that takes the messages slowly still gets all of them: the wait for room was
    /// one second from the signal, so a reader draining 20 KB/s lost most of the summary's list of failures.
    func testASlowReaderAfterAStopGetsTheWholeSummary() throws {
        let r = try sh("""
            mkdir empt; for i in $(seq 3000); do : > empt/e$i.png; done
            "$B" convert empt -o out/ -j 2 -q 2>&1 >/dev/null \\
              | python3 -c 'import sys, time
            open("reading", "w").close()
            while True:
                b = sys.stdin.buffer.read1(4096)
                if not b: break
                sys.stdout.buffer.write(b); time.sleep(0.2)' > got.txt &
            # (The reader reading first: a python slow to start, on a loaded machine, was a stalled reader.)
            for i in $(seq 300); do [ -e reading ] && break; sleep 0.1; done
            sleep 1; kill -INT $(pgrep -f "^$B convert empt"); wait
            grep -c '^  failed:' got.txt; grep -oE '[0-9]+ failed' got.txt | tail -1
            """)
        let lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 2, String(decoding: r.stdout, as: UTF8.self) + r.stderr)
        XCTAssertEqual(lines.first.map(String.init), lines.last.map { String($0.split(separator: " ")[0]) },
                       String(decoding: r.stdout, as: UTF8.self))
    }

    /// A single conversion's `--force` replaces the file that was at the output's name when it began, and not one
    /// put there since — even when that one got the freed inode number of the first (a file removed and another
    /// made at its name at once): it was replaced, exit 0, where a batch kept it.
    func testASingleForceKeepsAFilePutAtTheNameMeanwhile() throws {
        let r = try sh("""
            echo OLD > out.png; mkfifo f
            "$B" f -o out.png --force -q & pid=$!
            exec 3> f; head -c 100 "$F/photos/rocket.jpg" >&3; sleep 1
            rm out.png; echo MINE > out.png
            tail -c +101 "$F/photos/rocket.jpg" >&3; exec 3>&-
            wait $pid; echo "status $?"; cat out.png
            "$B" "$F/photos/rocket.jpg" -o r.y4m -q; echo OLD > y.png; mkfifo g
            "$B" g -o y.png --force -q & pid=$!
            exec 3> g; head -c 100 r.y4m >&3; sleep 1
            rm y.png; echo MINE > y.png
            tail -c +101 r.y4m >&3; exec 3>&-
            wait $pid; echo "y4m status $?"; cat y.png
            # --update's report file chmod-ed and linked to during the run: the same file, replaced (it was refused as
            # "replaced during the run by another file").
            mkdir in; cp "$F/photos/rocket.jpg" in/a.jpg; "$B" convert in/ -o o/ --update --report json --report-file o/r.json -q
            mkfifo h
            "$B" convert in/a.jpg h -o o/ --update --report json --report-file o/r.json -j 1 -q 2> /dev/null & pid=$!
            exec 3> h; head -c 100 "$F/photos/rocket.jpg" >&3; sleep 1
            chmod 600 o/r.json; ln o/r.json o/r-link.json
            tail -c +101 "$F/photos/rocket.jpg" >&3; exec 3>&-
            wait $pid; echo "report status $?"
            """)
        // A Y4M input (the YUV route) alike: it took no look at all.
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "status 1\nMINE\ny4m status 1\nMINE\nreport status 0\n", r.stderr)
        XCTAssertTrue(r.stderr.contains("was replaced by another file during the run"), r.stderr)
    }

    /// Outputs that are hard links of one file (deduplicated by `hardlink` or `rdfind`), replaced with `--force`:
    /// each rename drops a link and moves the file's change time, which no longer makes its siblings "replaced by
    /// another file" (a rule by change time failed two of three); nor does a `touch` of an output during the run.
    func testForceOverHardLinkedOutputsReplacesEach() throws {
        let r = try sh("""
            mkdir in ob; for n in a b c; do cp "$F/photos/rocket.jpg" in/$n.jpg; done
            echo old > ob/a.nv12; ln ob/a.nv12 ob/b.nv12; ln ob/a.nv12 ob/c.nv12
            "$B" convert in/ -o ob/ --force -j 1 -q; echo "status $?"
            for n in a b c; do cmp -s ob/$n.nv12 ob/a.nv12 && [ "$(stat -c %s ob/$n.nv12)" -gt 4 ] && echo "$n new"; done
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "status 0\na new\nb new\nc new\n", r.stderr)
    }

    /// `yuvconv in.png -o - > in.png`: the shell empties the input before yuvconv starts; the refusal says so,
    /// rather than suggest the input was kept safe.
    func testAnInputEmptiedByTheShellsRedirectionIsSaid() throws {
        let r = try sh("""
            cp "$F/photos/rocket.jpg" in.jpg; "$B" in.jpg -o - > in.jpg; echo "status $?"
            cp "$F/photos/rocket.jpg" in2.jpg; "$B" in2.jpg -o - 1<> in2.jpg; echo "status $?"
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "status 1\nstatus 1\n", r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "refusing to overwrite an input").count - 1, 2, r.stderr)
        // Only where it was emptied: `1<>` keeps the file's bytes.
        XCTAssertEqual(r.stderr.components(separatedBy: "a `>` redirection to it empties it before any program starts").count - 1, 1, r.stderr)
    }

    /// The FIFO a picture is read from, named as the output through a descriptor (`-o /dev/fd/5 5<>in.fifo`,
    /// `-o - 1<>in.fifo`): refused as an input, as a regular file is — the picture went into its own stream.
    func testTheInputsFIFOIsNoOutput() throws {
        let r = try sh("""
            mkfifo f
            cat "$F/photos/rocket.jpg" > f 2>/dev/null & W=$!
            timeout 10 "$B" f -o /dev/fd/5 -q 5<>f; echo "fd $?"
            timeout 10 "$B" f -o - -q 1<>f; echo "stdout $?"
            kill $W 2>/dev/null; wait
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "fd 1\nstdout 1\n", r.stderr)
        XCTAssertTrue(r.stderr.contains("refusing to overwrite an input"), r.stderr)
    }

    /// --format writing another format than the output's name says (`-o x.png -f nv21`: raw NV21 in a file every
    /// viewer takes for a PNG) is a warning, for a single file and a batch's names alike (before: silent); `.yuv`
    /// holds raw planes of any layout, and a name that agrees says nothing.
    func testAFormatTheNameContradictsIsAWarning() throws {
        let png = fixture("pngsuite/basn2c08.png")
        let one = try run([png, "-o", "x.png", "-f", "nv21", "-q"])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertEqual(one.stderr, "yuvconv: warning: x.png: the name says PNG, but --format writes raw nv21 into it\n")
        let batch = try run([png, fixture("photos/rocket.jpg"), "-o", "o/", "-f", "y4m", "--name", "{stem}.jpg", "-q"])
        XCTAssertEqual(batch.status, 0, batch.stderr)
        XCTAssertTrue(batch.stderr.contains("o/rocket.jpg (and 1 more output whose name says another format): the name says JPEG, "
                                            + "but --format writes Y4M into it"), batch.stderr)
        // Each name is its own: `{name}` keeps each input's extension, and the one that says another format is found
        // whichever comes first.
        let mixed = try run([fixture("photos/rocket.jpg"), png, "-o", "m/", "-f", "jpeg", "--name", "{name}", "-q"])
        XCTAssertEqual(mixed.status, 0, mixed.stderr)
        XCTAssertTrue(mixed.stderr.hasPrefix("yuvconv: warning: m/basn2c08.png: the name says PNG, but --format writes JPEG into it\n"),
                      mixed.stderr)
        XCTAssertTrue(try run([png, "-o", "p.yuv", "-f", "png", "-q"]).stderr.contains("p.yuv: the name says raw yuv420p, but --format writes PNG into it"))
        for agreeing in [["-o", "a.yuv", "-f", "nv12"], ["-o", "b.nv12", "-f", "nv12"], ["-o", "c.y4m", "-f", "yuv4mpegpipe"], ["-o", "d", "-f", "nv12"]] {
            XCTAssertEqual(try run([png] + agreeing + ["-q"]).stderr, "", "\(agreeing)")
        }
    }

    /// Options that do nothing for this conversion draw a warning, with -q too (it drops the per-image line only).
    func testIgnoredOptionsAreNamed() throws {
        let jpg = fixture("photos/rocket.jpg")
        let q = try run([jpg, "-o", "a.nv12", "--quality", "50"])
        XCTAssertEqual(q.status, 0)
        XCTAssertTrue(q.stderr.contains("yuvconv: warning: --quality sets JPEG output's quality; nv12 output ignores it"), q.stderr)
        let s = try run([jpg, "-o", "b.nv12", "--size", "640x427"])
        XCTAssertTrue(s.stderr.contains("--size applies to raw YUV input; a JPEG or PNG input, which carries its own size and layout, ignores it"), s.stderr)
        let m = try run([jpg, "-o", "c.jpg", "--matrix", "bt709"])
        XCTAssertTrue(m.stderr.contains("--matrix applies to YUV output (a JPEG is BT.601 full range by definition); JPEG output ignores it"), m.stderr)
        // What a JPEG is anyway (BT.601 full range, centre-sited chroma) is no mistake: no warning for it.
        let same = try run([jpg, "-o", "d.jpg", "--matrix", "bt601", "--range", "full", "--chroma-loc", "center"])
        XCTAssertEqual(same.status, 0)
        XCTAssertEqual(same.stderr.contains("warning"), false, same.stderr)
        let half = try run([jpg, "-o", "d2.jpg", "--matrix", "bt601", "--range", "limited", "-q"])
        XCTAssertTrue(half.stderr.contains("--range applies to YUV output"), half.stderr)
        XCTAssertFalse(half.stderr.contains("--matrix"), half.stderr)
        // Only the options given are named (YUV input given --alpha alone named --jpeg-path and --orientation too).
        let raw = try run([jpg, "-o", "e.yuv", "--format", "yuv420p", "-q"])
        XCTAssertEqual(raw.status, 0)
        let alpha = try run(["e.yuv", "--size", "640x427", "-o", "e.nv12", "--alpha", "keep"])
        XCTAssertTrue(alpha.stderr.contains("warning: --alpha applies to input with alpha (a PNG's alpha channel or tRNS); YUV input ignores it"),
                      alpha.stderr)
        // Each said of what it applies to (--jpeg-path was said to apply to PNG input too, which refuses it).
        let path = try run(["e.yuv", "--size", "640x427", "-o", "e3.nv12", "--jpeg-path", "rgb", "--orientation", "ignore"])
        XCTAssertTrue(path.stderr.contains("warning: --jpeg-path applies to JPEG input; YUV input ignores it"), path.stderr)
        XCTAssertTrue(path.stderr.contains("warning: --orientation applies to JPEG and PNG input; YUV input ignores it"), path.stderr)
        // A YUV input's dry run says them too, as an image input's does.
        let rawDry = try run(["e.yuv", "--size", "640x427", "-o", "e2.nv12", "--alpha", "keep", "-n"])
        XCTAssertTrue(rawDry.stderr.contains("warning: --alpha applies to input with alpha"), rawDry.stderr)
        // A report a dry run will not write (batch and single file alike), --force for report without a file.
        for args in [[jpg, "-o", "dry.nv12"], [jpg, fixture("pngsuite/basn2c08.png"), "-o", "dry/"]] {
            let dry = try run(args + ["-n", "--report", "json"])
            XCTAssertTrue(dry.stderr.contains("warning: --report with --dry-run: nothing is converted, so no report is written"), dry.stderr)
        }
        XCTAssertTrue(try run(["report", jpg, "--force", "-q"]).stderr.contains("warning: --force lets --report-file replace a file"))
        XCTAssertEqual(try run([jpg, "-o", "d.nv12", "--quality", "50", "-q"]).stderr,
                       "yuvconv: warning: --quality sets JPEG output's quality; nv12 output ignores it\n")
        XCTAssertFalse(try run([jpg, "-o", "e.jpg", "--quality", "50"]).stderr.contains("warning"))
        // --metrics with a 10-bit output, which it does not measure (its fields were empty without a word).
        for args in [["-o", "m.p010"], ["-o", "m.y4m", "--depth", "10"]] {
            let ten = try run([jpg] + args + ["--report", "json", "--metrics", "-q"])
            XCTAssertEqual(ten.status, 0, ten.stderr)
            XCTAssertTrue(ten.stderr.contains("warning: --metrics measures 8-bit outputs;"), ten.stderr)
        }
        XCTAssertFalse(try run([jpg, "-o", "m.nv12", "--report", "json", "--metrics", "-q"]).stderr.contains("warning"))
        // Batch options on a single file, -0 without a list, JPEG decoding options for a PNG: each said too.
        let b = try run([jpg, "-o", "f.nv12", "-q", "-j", "2", "-r", "--fail-fast", "-0"])
        XCTAssertEqual(b.stderr, "yuvconv: warning: -0 says the --files-from list is NUL-separated; without --files-from it is ignored\n"
                       + "yuvconv: warning: --fail-fast, --jobs, --recursive apply to batches (folders, lists, many inputs); a single file ignores them\n")
        let png = try run([fixture("pngsuite/basn2c08.png"), "-o", "g.nv12", "-q", "--allow-truncated", "--max-scans", "9"])
        XCTAssertEqual(png.stderr, "yuvconv: warning: --allow-truncated, --max-scans apply to JPEG input; a PNG ignores them\n")
        XCTAssertEqual(try run([jpg, "-o", "h.nv12", "-q", "--allow-truncated", "--max-scans", "9"]).stderr, "")
        XCTAssertEqual(try run(["report", jpg, "-q", "-0"]).stderr,
                       "yuvconv: warning: -0 says the --files-from list is NUL-separated; without --files-from it is ignored\n")
        // A batch learns only as it goes whether any input was a JPEG: with none, its JPEG options are named at
        // the end; with one, nothing is said.
        let pngs = [fixture("pngsuite/basn2c08.png"), fixture("pngsuite/basn0g08.png")]
        let batch = try run(pngs + ["-o", "pngs/", "-q", "--jpeg-path", "rgb", "--max-scans", "9"])
        XCTAssertEqual(batch.status, 0)
        XCTAssertTrue(batch.stderr.hasPrefix("yuvconv: warning: --jpeg-path, --max-scans apply to JPEG input; a batch without one ignores them\n"),
                      batch.stderr)
        XCTAssertFalse(try run(pngs + [jpg, "-o", "mixed/", "-q", "--jpeg-path", "rgb"]).stderr.contains("warning"))
        // Its dry run says so too, from the inputs' first bytes.
        XCTAssertTrue(try run(pngs + ["-o", "dry/", "-n", "--max-scans", "9"]).stderr
            .hasPrefix("yuvconv: warning: --max-scans applies to JPEG input; a batch without one ignores it\n"))
        XCTAssertTrue(try run(["report"] + pngs + ["--allow-truncated"]).stderr
            .contains("yuvconv: warning: --allow-truncated applies to JPEG input; a batch without one ignores it"))
        // `report` names what does nothing for the conversion it measures, as convert does; its --metrics is used.
        XCTAssertEqual(try run(["report", jpg, "-q", "-f", "png", "--chroma-loc", "left"]).stderr,
                       "yuvconv: warning: --chroma-loc sites the chroma of YUV outputs; png output is centre-sited, so it is ignored\n")
        XCTAssertEqual(try run(["report", jpg, "-q", "--metrics"]).stderr, "")
    }

    /// On a terminal a batch shows a progress line, and each failure (with -v each image) stays above it.
    func testTerminalBatchKeepsFailuresAbove() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("no script(1)") }
        let r = try sh("""
            mkdir in && cp "$F/photos/rocket.jpg" in/a.jpg && head -c 100 "$F/photos/rocket.jpg" > in/b.jpg
            export TERM=xterm   # a runner's TERM=dumb turns the progress line off
            script -qec "\"$B\" convert in -o out/ -j 1" /dev/null; echo; script -qec "\"$B\" convert in -o out2/ -j 1 -v" /dev/null
            """)
        // Lines as the terminal ends them (bytes, since "\r\n" is one Character to Swift).
        let out = r.stdout.split(separator: 10).map { String(decoding: $0, as: UTF8.self) }
        // The failure is a line of its own (ended by a newline, not overwritten by the progress line).
        XCTAssertEqual(out.filter { $0.hasPrefix("\r\u{1B}[Kyuvconv: error: in/b.jpg") || $0.contains("\u{1B}[Kyuvconv: error: in/b.jpg") }.count, 2, "\(out)")
        XCTAssertTrue(out.contains { $0.contains("\u{1B}[K") && $0.contains("/2 ·") }, "\(out)")   // the progress line
        XCTAssertEqual(out.filter { $0.contains("in/a.jpg: 640x427 JPEG") }.count, 1, "\(out)")   // -v only
        // A report on standard output, the same terminal: the progress line is cleared before each of its lines
        // (they began on its end: "… ETA 0s{"type": …").
        for command in ["report in -j 1 --report json", "convert in -o out3/ -j 1 --report json",
                        "report in -j 1 --report json --report-file /dev/tty"] {
            let rep = try sh("""
                mkdir -p in && cp "$F/photos/rocket.jpg" in/a.jpg && cp in/a.jpg in/c.jpg && rm -f in/b.jpg
                script -qec "\"$B\" \(command)" /dev/null
                """)
            let lines = rep.stdout.split(separator: 10).filter { $0.count > 9 }
            let records = lines.compactMap { l in l.firstRange(of: Array("{\"type\"".utf8)).map { l[..<$0.lowerBound] } }
            XCTAssertEqual(records.count, 3, "\(command): two images and the totals")
            let glued = records.filter { !$0.isEmpty && !$0.suffix(3).elementsEqual([0x1B, 0x5B, 0x4B]) }
            XCTAssertTrue(glued.isEmpty, "\(command): \(glued.map { String(decoding: $0, as: UTF8.self) })")
        }
    }

    /// The progress line fits a narrow terminal, less its last column: a line wider than the terminal wrapped,
    /// and each redraw (`\r\e[K` clears the last row only) left a row behind, filling a 40-column terminal.
    func testProgressLineFitsANarrowTerminal() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("no script(1)") }
        let r = try sh("""
            mkdir in && for i in $(seq 40); do cp "$F/pngsuite/basn2c08.png" in/img_with_a_long_name_$i.png; done
            export TERM=xterm
            script -qec "stty cols 40 rows 24; \"$B\" convert in -o out/ -j 1" /dev/null
            """)
        let pieces = r.stdout.split(whereSeparator: { $0 == 13 || $0 == 10 })
            .map { String(decoding: $0, as: UTF8.self).replacingOccurrences(of: "\u{1B}[K", with: "") }
            .filter { $0.contains("img/s") || $0.contains("ETA") }
        XCTAssertFalse(pieces.isEmpty, r.stdout.isEmpty ? r.stderr : "no progress line")
        XCTAssertEqual(pieces.filter { $0.count > 39 }, [])
        // Cut between its fields, never inside one: at 9 columns 2986/3000 showed as 2986/300. At 6 columns each
        // piece shown is the count done/total alone ("1/40 · 426.8 img/s · …" cut to "1/40").
        let narrow = try sh("""
            export TERM=xterm
            script -qec "stty cols 6 rows 24; \"$B\" convert in -o out2/ -j 1" /dev/null
            """)
        let shown = narrow.stdout.split(whereSeparator: { $0 == 13 || $0 == 10 })
            .map { String(decoding: $0, as: UTF8.self).replacingOccurrences(of: "\u{1B}[K", with: "") }
            .filter { !$0.isEmpty && !$0.hasPrefix("yuvconv:") }
        XCTAssertFalse(shown.isEmpty, narrow.stderr)
        XCTAssertEqual(shown.filter { $0.range(of: #"^[0-9]+/40$"#, options: .regularExpression) == nil }, [])
    }

    /// A warning in a batch on a terminal clears the progress line first, as an error does: it began on the line's
    /// end ("… ETA 0syuvconv: warning: …").
    func testWarningsClearTheProgressLine() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("no script(1)") }
        let r = try sh("""
            mkdir in && for i in 1 2 3; do cp "$F/pngsuite/basn2c08.png" in/a$i.png; done && cp "$F/pngsuite/basn6a08.png" in/b.png
            export TERM=xterm
            script -qec "\"$B\" convert in -o out/ -j 1" /dev/null
            """)
        let text = String(decoding: r.stdout, as: UTF8.self)
        let warning = try XCTUnwrap(text.range(of: "yuvconv: warning: in/b.png: its alpha"), text)
        XCTAssertTrue(text[..<warning.lowerBound].hasSuffix("\r\u{1B}[K"), text)
        // With jobs drawing the line while others warn (-j 4): every warning still begins a line of its own (a
        // reviewer saw 3 to 12 of 300 on the end of the line when the check was made without the line's lock).
        let many = try sh("""
            mkdir many && for i in $(seq 100); do cp "$F/pngsuite/basn2c08.png" many/a$i.png; cp "$F/pngsuite/basn6a08.png" many/b$i.png; done
            export TERM=xterm
            script -qec "\"$B\" convert many -o out4/ -j 4" /dev/null
            """)
        let all = String(decoding: many.stdout, as: UTF8.self)
        let pieces = all.components(separatedBy: "yuvconv: warning: ")
        XCTAssertEqual(pieces.count - 1, 100, all.suffix(300).description)
        // (The terminal writes "\r\n" for "\n", one Character in Swift: its last scalar is looked at.)
        let glued = pieces.dropLast().filter { !$0.hasSuffix("\r\u{1B}[K") && $0.unicodeScalars.last != "\n" }
        XCTAssertEqual(glued.map { String($0.suffix(40)) }, [])
    }

    /// Quality metrics are opt-in: without --metrics a report measures the streaming conversion itself (its
    /// buffers are bands, not the picture) and has no PSNR; with it, PSNR and SSIM are there.
    func testMetricsAreOptIn() throws {
        let jpg = fixture("photos/rocket.jpg")
        let plain = String(decoding: try run(["report", jpg, "--report", "json"]).stdout, as: UTF8.self)
        XCTAssertTrue(plain.contains("\"psnr_y_db\": null"), plain)
        let measured = String(decoding: try run(["report", jpg, "--report", "json", "--metrics"]).stdout, as: UTF8.self)
        XCTAssertFalse(measured.contains("\"psnr_y_db\": null"), measured)
        func field(_ text: String, _ key: String) throws -> Int {
            let first = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.split(separator: "\n")[0].utf8)) as? [String: Any])
            return try XCTUnwrap(first[key] as? Int)
        }
        // The metrics are taken as the bands stream: a few rows on top of the conversion's bands (SSIM's 4-row
        // block sums, the current row planar, the chroma rows, copies of a waiting row), never the picture.
        let extra = try field(measured, "conversion_buffers_bytes") - field(plain, "conversion_buffers_bytes")
        let width = try field(plain, "width")
        XCTAssertGreaterThan(extra, 0)
        XCTAssertLessThanOrEqual(extra, 8 * width * 9 + 16 * width)
        XCTAssertLessThan(extra, try field(plain, "yuv_bytes") / 4)
        // `report` without --report prints the text table, with the image in it.
        let text = String(decoding: try run(["report", jpg]).stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("rocket.jpg") && text.contains("total: 1 image,"), text)
        let converted = String(decoding: try run([jpg, "-o", "a.nv12", "--report", "json", "-q"]).stdout, as: UTF8.self)
        XCTAssertTrue(converted.contains("\"psnr_y_db\": null"), converted)
    }

    /// A folder that cannot be made says why (not the "No such file" its first file would meet).
    func testUnwritableOutputFolderSaysWhy() throws {
        let r = try sh("""
            mkdir ro && mount -t tmpfs -o ro,size=64k tmpfs ro || exit 77
            "$B" convert "$F/photos/rocket.jpg" -o ro/sub/; rc=$?; umount ro; exit $rc
            """)
        if r.status == 77 { throw XCTSkip("cannot mount a tmpfs here (not root?)") }
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr, "yuvconv: error: cannot make the folder ro/sub: Read-only file system (-o ro/sub/)\n")
        // A folder that is there but takes no files, or a name that is a file: refused once before any work, the
        // dry run and the run alike (the dry run said "convert", exit 0; then each output was refused, two lines a
        // file).
        let there = try sh("""
            mkdir ro2 && mount -t tmpfs -o ro,size=64k tmpfs ro2 || exit 77
            "$B" convert "$F/photos/rocket.jpg" "$F/pngsuite/basn2c08.png" -o ro2/ -n; echo "dry $?"
            "$B" convert "$F/photos/rocket.jpg" "$F/pngsuite/basn2c08.png" -o ro2/ -q 2> real.err; echo "real $?"; umount ro2
            : > plain.png; "$B" convert "$F/photos/rocket.jpg" "$F/pngsuite/basn2c08.png" -o plain.png/; echo "file $?"
            "$B" convert "$F/photos/rocket.jpg" "$F/pngsuite/basn2c08.png" -o plain.png/sub/; echo "deep $?"
            """)
        if there.status == 77 { throw XCTSkip("cannot mount a tmpfs here (not root?)") }
        let out = String(decoding: there.stdout, as: UTF8.self)
        XCTAssertEqual(out, "dry 1\nreal 1\nfile 1\ndeep 1\n")
        let once = "yuvconv: error: cannot create a file in ro2/: Read-only file system (-o ro2/)"
        XCTAssertEqual(String(decoding: try data("real.err"), as: UTF8.self), once + "\n")
        XCTAssertEqual(there.stderr.split(separator: "\n"), [once[...],
                                 "yuvconv: error: plain.png/: is not a folder (a file or device is there): no output can be made in it",
                                 "yuvconv: error: plain.png/sub/: is not a folder (plain.png is a file or device): no output can be made in it"],
                       there.stderr)
    }

    /// An output folder that is a symbolic link to nothing (or a loop of links), or a path through one: refused
    /// once before any work, dry run and run alike — each file failed with "dl is not a folder".
    func testOutputFolderThroughADanglingLinkIsRefusedBeforeWork() throws {
        let r = try sh("""
            ln -s nowhere dl; ln -s l2 l1; ln -s l1 l2
            for o in dl/ dl/sub/ l1/; do
              "$B" convert "$F/photos/rocket.jpg" "$F/pngsuite/basn2c08.png" -o $o -q; echo "$o $?"
              "$B" convert "$F/photos/rocket.jpg" "$F/pngsuite/basn2c08.png" -o $o -n > /dev/null; echo "dry $?"
            done
            test -e nowhere || echo "nothing made"
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "dl/ 1\ndry 1\ndl/sub/ 1\ndry 1\nl1/ 1\ndry 1\nnothing made\n", r.stderr)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 6, r.stderr)
        XCTAssertTrue(lines.allSatisfy { $0.contains("is not a folder (") && $0.hasSuffix("): no output can be made in it") }, r.stderr)
        XCTAssertTrue(r.stderr.contains("dl/sub/: is not a folder (dl is a symbolic link to nowhere"), r.stderr)
    }

    /// A raw YUV input's output in a folder that is a file or a loop of links says so once, as an image input's
    /// does (the check made before its frame is read named the path twice and called both "does not exist").
    func testRawInputsFolderProblemsReadAsAnImagesDo() throws {
        let r = try sh("""
            "$B" "$F/photos/rocket.jpg" -o a.nv12 -q; : > file; ln -s lp lp
            for o in file/x.png lp/x.png; do
              "$B" a.nv12 --size 640x427 -o $o 2>> raw.err; "$B" "$F/photos/rocket.jpg" -o $o 2>> image.err
            done
            cmp raw.err image.err && cat raw.err
            """)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self),
                       "yuvconv: error: file/x.png: cannot create a file in file: Not a directory\n"
                       + "yuvconv: error: lp/x.png: cannot create a file in lp: Too many levels of symbolic links\n", r.stderr)
    }

    /// The dry run makes the folder checks of the real run for a single conversion's output and for the report
    /// file too (it said "convert", exit 0, where the run fails before any work).
    func testDryRunChecksEveryFolderTheRunWrites() throws {
        let r = try sh("""
            mkdir ro && mount -t tmpfs -o ro,size=64k tmpfs ro || exit 77
            for args in "-o ro/a.nv12" "-o a.nv12 --report json --report-file ro/r.json" \\
                        "-o a.nv12 --report json --report-file nope/r.json"; do
              "$B" "$F/photos/rocket.jpg" $args -n > dry.out 2>&1; d=$?
              "$B" "$F/photos/rocket.jpg" $args -q > real.out 2>&1; echo "$args: dry $d real $? $(cat dry.out)"
              rm -f a.nv12
            done
            "$B" convert "$F/photos/rocket.jpg" -o out/ --report json --report-file nope/r.json -n; echo "batch dry $?"
            "$B" convert "$F/photos/rocket.jpg" -o made/ --report json --report-file made/r.json -n -q; echo "inside dry $?"
            umount ro
            """)
        if r.status == 77 { throw XCTSkip("cannot mount a tmpfs here (not root?)") }
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(out.contains("-o ro/a.nv12: dry 1 real 1 refuse"), out)
        XCTAssertTrue(out.contains("ro/a.nv12: cannot create a file in ro: Read-only file system"), out)
        XCTAssertTrue(out.contains("--report-file ro/r.json: dry 1 real 1"), out)
        XCTAssertTrue(out.contains("yuvconv: error: ro/r.json: cannot create a file in ro: Read-only file system"), out)
        XCTAssertTrue(out.contains("--report-file nope/r.json: dry 1 real 1"), out)
        XCTAssertTrue(out.contains("yuvconv: error: nope/r.json: cannot create a file in nope: the folder does not exist"), out)
        XCTAssertTrue(out.contains("batch dry 1"), out)
        // A file of another user's in a sticky folder (as /tmp): the run cannot rename over it, so the dry run
        // refuses it too (run as nobody; root only).
        let sticky = try sh("""
            command -v setpriv >/dev/null && [ "$(id -u)" = 0 ] || exit 77
            cp "$F/pngsuite/basn2c08.png" in.png && chmod 644 in.png && chmod 755 . && mkdir s && chmod 1777 s
            echo x > s/owned.nv12
            N="setpriv --reuid=nobody --regid=nogroup --clear-groups"
            $N "$B" --version > /dev/null 2>&1 || exit 77   # the binary out of nobody's reach (a clone under /root)
            $N "$B" in.png -o s/owned.nv12 --force -n > /dev/null 2>&1; echo "sticky dry $?"
            $N "$B" in.png -o s/owned.nv12 --force -q 2> /dev/null; echo "sticky real $?"
            """)
        if sticky.status != 77 {
            XCTAssertTrue(String(decoding: sticky.stdout, as: UTF8.self).contains("sticky dry 1\nsticky real 1\n"),
                          String(decoding: sticky.stdout, as: UTF8.self) + sticky.stderr)
        }
        // --update with everything up to date but a touched input: the run would write the input's new time into the
        // manifest, which a folder that takes no files refuses — a warning, exit 0, since the time only saves the
        // next run a reading (it failed every run, exit 1); the dry run says the same (as nobody; root only).
        let touched = try sh("""
            command -v setpriv >/dev/null && [ "$(id -u)" = 0 ] || exit 77
            N="setpriv --reuid=nobody --regid=nogroup --clear-groups"
            $N "$B" --version > /dev/null 2>&1 || exit 77
            chmod 777 . && mkdir u && chmod 777 u && cp "$F/pngsuite/basn2c08.png" u/in.png && chmod 666 u/in.png
            $N "$B" convert u -o u/ -u -q || exit 1
            chmod 555 u && touch -d '+1 minute' u/in.png
            $N "$B" convert u -o u/ -u -n 2>&1 | grep -c 'nothing was converted: only the new times'; echo "touched dry ${PIPESTATUS[0]}"
            $N "$B" convert u -o u/ -u -q 2>&1 | grep -c 'nothing was converted: only the new times'; echo "touched real ${PIPESTATUS[0]}"
            # The same into a sticky folder whose manifest is root's: nobody cannot rename over it.
            mkdir i2 s2 && chmod 1777 s2 && cp "$F/pngsuite/basn2c08.png" i2/a.png && chmod -R a+rwX i2
            "$B" convert i2 -o s2/ -u -q && chmod 666 s2/.yuvconv-manifest && touch -d '+1 minute' i2/a.png
            $N "$B" convert i2 -o s2/ -u -n 2>&1 | grep -c 'nothing was converted: only the new times'; echo "sticky manifest dry ${PIPESTATUS[0]}"
            $N "$B" convert i2 -o s2/ -u -q 2>&1 | grep -c 'nothing was converted: only the new times'; echo "sticky manifest real ${PIPESTATUS[0]}"
            """)
        if touched.status != 77 {
            XCTAssertTrue(String(decoding: touched.stdout, as: UTF8.self).contains("1\ntouched dry 0\n1\ntouched real 0\n"),
                          String(decoding: touched.stdout, as: UTF8.self) + touched.stderr)
            XCTAssertTrue(String(decoding: touched.stdout, as: UTF8.self).contains("1\nsticky manifest dry 0\n1\nsticky manifest real 0\n"),
                          String(decoding: touched.stdout, as: UTF8.self) + touched.stderr)
        }
        // A report file inside the output folder: the batch makes that folder, so the dry run does not refuse it.
        XCTAssertTrue(out.contains("inside dry 0"), out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("made").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("out").path))
    }

    /// `--update` records what it converts in the output folder's manifest: a folder that takes no files while
    /// its {dir} subfolder does (a read-only mount with a writable one inside) let the run convert, then fail at
    /// the end (exit 1), while its dry run said exit 0. The dry run says it now, with the same status.
    func testUpdateDryRunSaysTheManifestCannotBeWritten() throws {
        let r = try sh("""
            mkdir -p X in && cp "$F/pngsuite/basn2c08.png" in/a.png || exit 9
            mount -t tmpfs -o size=1m tmpfs X || exit 77
            mkdir X/in && mount -o remount,ro X && mount -t tmpfs -o size=1m tmpfs X/in || { umount X; exit 77; }
            "$B" convert in -o X/ --update --name '{dir}/{stem}.{ext}' -n; echo "dry $?"
            "$B" convert in -o X/ --update --name '{dir}/{stem}.{ext}' -q; echo "real $?"
            umount X/in; umount X
            """)
        if r.status == 77 { throw XCTSkip("cannot mount a tmpfs here (not root?)") }
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(out.contains("dry 1\n") && out.contains("real 1\n"), out + r.stderr)
        XCTAssertTrue(r.stderr.contains("X/.yuvconv-manifest: the manifest could not be written: cannot create a file in X: Read-only file system"),
                      r.stderr)
    }

    /// An output name of up to 255 bytes works although its temporary twin would be longer.
    func testLongOutputNames() throws {
        let name = String(repeating: "a", count: 250) + ".nv12"
        let r = try run([fixture("photos/rocket.jpg"), "-o", name, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try leftovers(), [name])
    }

    /// `-j N` means N files at once, whatever the core count: the batch's runner gives each job a thread of
    /// its own. Six bodies that each wait until all six have started can only finish on six threads (a pool
    /// the size of this 2-core machine would time out).
    func testRunOnThreadsRunsThatManyAtOnce() {
        let started = UncheckedCounter()
        let finished = UncheckedCounter()
        runOnThreads(6) { _ in
            started.increment()
            let deadline = Date().addingTimeInterval(10)
            while started.value < 6 && Date() < deadline { usleep(1000) }
            if started.value == 6 { finished.increment() }
        }
        XCTAssertEqual(finished.value, 6)
    }
}

final class UncheckedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

extension Data {
    func repeated(_ n: Int) -> Data {
        var d = Data(capacity: count * n)
        for _ in 0..<n { d.append(self) }
        return d
    }
}

struct UncheckedPointer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Int32>
    init(_ p: UnsafeMutablePointer<Int32>) { pointer = p }
}
