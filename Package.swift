// swift-tools-version:6.0
// yuvconv — exact RGB → YUV 4:2:0 conversion. No outside packages: system C libraries come in through
// pkg-config system-library targets, and C that must stay in C (setjmp/longjmp error handling) lives in CShims.
import PackageDescription

let optimise: [SwiftSetting] = []

let package = Package(
    name: "yuvconv",
    products: [
        .executable(name: "yuvconv", targets: ["yuvconv"]),
        .library(name: "YUVCore", targets: ["YUVCore"]),
        .library(name: "YUVIO", targets: ["YUVIO"]),
        .library(name: "YUVReport", targets: ["YUVReport"]),
        .library(name: "YUVBatch", targets: ["YUVBatch"]),
    ],
    targets: [
        .systemLibrary(name: "CJPEG", path: "Sources/CJPEG", pkgConfig: "libjpeg",
                       providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(name: "CTurboJPEG", path: "Sources/CTurboJPEG", pkgConfig: "libturbojpeg",
                       providers: [.apt(["libturbojpeg0-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(name: "CLCMS", path: "Sources/CLCMS", pkgConfig: "lcms2",
                       providers: [.apt(["liblcms2-dev"]), .brew(["little-cms2"])]),
        // zlib inflates PNG image data in CShims (libpng needs it anyway; macOS has it in the SDK).
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // No unsafeFlags anywhere: a package that depends on these libraries could not build them otherwise
        // (SwiftPM's release configuration already compiles C with -O2).
        .target(name: "CShims", dependencies: ["CJPEG", "CPNG", "CLCMS", "CZlib", "CSIMD"], path: "Sources/CShims"),
        .target(name: "CSIMD", path: "Sources/CSIMD"),
        .target(name: "YUVCore", dependencies: ["CSIMD"], path: "Sources/YUVCore", swiftSettings: optimise),
        .target(name: "YUVIO", dependencies: ["YUVCore", "CShims", "CTurboJPEG"], path: "Sources/YUVIO"),
        .target(name: "YUVReport", dependencies: ["YUVCore", "YUVIO"], path: "Sources/YUVReport"),
        .target(name: "YUVBatch", dependencies: ["YUVCore", "YUVIO"], path: "Sources/YUVBatch"),
        .executableTarget(name: "yuvconv", dependencies: ["YUVCore", "YUVIO", "YUVReport", "YUVBatch"], path: "Sources/yuvconv"),
        .executableTarget(name: "yuvbench", dependencies: ["YUVCore"], path: "Sources/yuvbench"),
        // What the test targets share: fixture paths, the seeded generator, the CLI test base class.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "YUVCoreTests", dependencies: ["YUVCore", "TestSupport"], path: "Tests/YUVCoreTests"),
        .testTarget(name: "YUVIOTests", dependencies: ["YUVCore", "YUVIO", "CShims", "CTurboJPEG", "CLCMS", "TestSupport"],
                    path: "Tests/YUVIOTests"),
        .testTarget(name: "YUVReportTests", dependencies: ["YUVCore", "YUVIO", "YUVReport", "TestSupport"],
                    path: "Tests/YUVReportTests"),
        .testTarget(name: "YUVBatchTests", dependencies: ["YUVCore", "YUVIO", "YUVBatch", "TestSupport"],
                    path: "Tests/YUVBatchTests"),
        .testTarget(name: "yuvconvTests", dependencies: ["YUVCore", "YUVIO", "CShims", "TestSupport"],
                    path: "Tests/yuvconvTests"),
    ],
    swiftLanguageModes: [.v6]
)
