import Foundation

/// The package's root folder, found from this file's path (tests run from a fresh clone, from any folder).
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The committed test data: `Fixtures/`.
public let fixturesURL = packageRoot.appendingPathComponent("Fixtures")

/// The path of a file in `Fixtures/corpus/` (the images copied from the shared corpus), e.g. `photos/rocket.jpg`.
public func fixture(_ path: String) -> String { fixturesURL.appendingPathComponent("corpus/" + path).path }
