// swift-tools-version:6.0
// The Swift fuzz target, built only by `make fuzz` (with -sanitize=fuzzer): a separate package so the main
// build never sees a program without a main. It depends on the project by path (no outside package).
import PackageDescription

let package = Package(
    name: "yuvfuzz",
    dependencies: [.package(name: "yuvconv", path: "..")],
    targets: [
        .executableTarget(name: "yuvfuzz", dependencies: [.product(name: "YUVIO", package: "yuvconv"),
                                                          .product(name: "YUVCore", package: "yuvconv")],
                          path: "Sources/yuvfuzz",
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    ]
)
