// swift-tools-version:6.0
// A package that uses yuvconv as a library, as another project would: it depends on the repository by path
// and on its library products only. `make test` builds and runs it (Examples/README.md).
import PackageDescription

let package = Package(
    name: "LibraryUser",
    dependencies: [.package(name: "yuvconv", path: "../..")],
    targets: [
        .executableTarget(name: "LibraryUser", dependencies: [
            .product(name: "YUVCore", package: "yuvconv"),
            .product(name: "YUVIO", package: "yuvconv"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
