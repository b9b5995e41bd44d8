/// Consecutive picture rows `first ..< end`, `rowBytes` bytes each, held in one buffer of `capacity` rows:
/// what a stage whose output lags its input (sharp chroma) keeps of the rows not yet written — their kept
/// alpha, their source rows for the quality stage. Rows come in order at the end and leave in order at the
/// front; the rows kept are moved to the front of the buffer when the next ones would not fit behind them.
public final class RowWindow {
    public let rowBytes: Int
    public let capacity: Int
    /// The first row held and the row after the last.
    public private(set) var first = 0, end = 0
    /// The picture row at the start of the buffer.
    private var origin = 0
    private let base: UnsafeMutableRawPointer

    public init(rowBytes: Int, capacity: Int) {
        precondition(rowBytes > 0 && capacity > 0)
        self.rowBytes = rowBytes
        self.capacity = capacity
        base = .allocate(byteCount: rowBytes * capacity, alignment: 64)
    }

    deinit { base.deallocate() }

    /// Bytes the buffer holds, for a conversion's ledger.
    public var byteCount: Int { rowBytes * capacity }

    /// Row `row` (held).
    @inline(__always)
    public func row(_ row: Int) -> UnsafeMutableRawPointer {
        precondition(row >= first && row < end, "row \(row) is not held (\(first)..<\(end))")
        return base + (row - origin) * rowBytes
    }

    /// Forgets the rows before `row`.
    public func drop(before row: Int) {
        first = min(max(first, row), end)
    }

    /// Room for the next `count` rows (`end ..< end + count`), returned to be filled; the rows held move to the
    /// front of the buffer first when they would not fit.
    public func append(_ count: Int) -> UnsafeMutableRawPointer {
        precondition(end - first + count <= capacity, "\(end - first) rows held, \(count) more, room for \(capacity)")
        if end + count - origin > capacity {
            if end > first { base.copyMemory(from: base + (first - origin) * rowBytes, byteCount: (end - first) * rowBytes) }
            origin = first
        }
        defer { end += count }
        return base + (end - origin) * rowBytes
    }
}
