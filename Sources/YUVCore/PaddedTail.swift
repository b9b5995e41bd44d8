/// libyuv's `_Any_` rows, written once for every SIMD row: a row function that works in whole steps runs its
/// last, partial step through the same code on stack copies — each input's remaining elements with the last
/// one repeated to a whole step, each output into scratch — and copies back only the elements that exist. So
/// a row's bytes never depend on its width, and no row reads or writes past its end.
public enum PaddedTail {
    /// An input row's remaining elements: where the first is, its size, and how many there are (at least 1).
    public struct Input {
        let base: UnsafeRawPointer, elementBytes: Int, count: Int
        public init(_ base: UnsafeRawPointer, elementBytes: Int = 1, count: Int) {
            precondition(count >= 1)
            (self.base, self.elementBytes, self.count) = (base, elementBytes, count)
        }
    }

    /// An output row's remaining bytes (nil when the row is not written), and how many bytes a whole step
    /// writes there.
    public struct Output {
        let base: UnsafeMutableRawPointer?, bytes: Int, capacity: Int
        public init(_ base: UnsafeMutableRawPointer?, bytes: Int, capacity: Int) {
            precondition(bytes <= capacity)
            (self.base, self.bytes, self.capacity) = (base, bytes, capacity)
        }
    }

    /// Runs `body` once on the padded copies of `inputs` (each `step` elements) and scratch for `outputs`
    /// (nil where the output is nil), then copies each output's existing bytes back.
    @inline(never)
    public static func run(step: Int, inputs: [Input], outputs: [Output],
                           _ body: ([UnsafeRawPointer], [UnsafeMutableRawPointer?]) -> Void) {
        func rounded(_ n: Int) -> Int { (n + 63) & ~63 }
        let inBytes = inputs.map { rounded($0.elementBytes * step) }, outBytes = outputs.map { rounded($0.capacity) }
        withUnsafeTemporaryAllocation(byteCount: inBytes.reduce(0, +) + outBytes.reduce(0, +), alignment: 64) { buffer in
            var at = buffer.baseAddress!
            var padded: [UnsafeRawPointer] = []
            for (input, size) in zip(inputs, inBytes) {
                let e = input.elementBytes
                at.copyMemory(from: input.base, byteCount: input.count * e)
                let last = input.base + (input.count - 1) * e
                for i in input.count..<step { (at + i * e).copyMemory(from: last, byteCount: e) }
                padded.append(UnsafeRawPointer(at))
                at += size
            }
            var scratch: [UnsafeMutableRawPointer?] = []
            for (output, size) in zip(outputs, outBytes) {
                scratch.append(output.base == nil ? nil : at)
                at += size
            }
            body(padded, scratch)
            for (output, s) in zip(outputs, scratch) {
                if let base = output.base, let s { base.copyMemory(from: s, byteCount: output.bytes) }
            }
        }
    }
}
