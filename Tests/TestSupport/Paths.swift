import Foundation

/// The package's root folder, found from this file's path (tests run from a fresh clone, from any folder).
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The committed test data: `Fixtures/`.
public let fixturesURL = packageRoot.appendingPathComponent("Fixtures")

/// The path of a file in `Fixtures/corpus/` (the images copied from the shared corpus), e.g. `photos/rocket.jpg`.
public func fixture(_ path: String) -> String { fixturesURL.appendingPathComponent("corpus/" + path).path }

/// A new, empty folder under the system's temporary folder, named `prefix` and a UUID: a test's scratch space
/// (its tearDown removes it).
public func scratchFolder(_ prefix: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
