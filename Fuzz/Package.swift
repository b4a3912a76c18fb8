// swift-tools-version:6.0
// libFuzzer targets for Groupie. Built and run by `make fuzz` (scripts/fuzz) with
// `swift build -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing`; each executable
// is one fuzz target defining LLVMFuzzerTestOneInput, whose top-level code hands over to
// libFuzzer's driver (CFuzzDriver): SwiftPM's own `main` replaces libFuzzer's.
import PackageDescription

let package = Package(
    name: "GroupieFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Groupie", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(name: "CFuzzDriver"),
        .executableTarget(
            name: "FuzzMissionFile",
            dependencies: ["CFuzzDriver", .product(name: "GroupieContent", package: "Groupie")]
        ),
        .executableTarget(
            name: "FuzzImageHeader",
            dependencies: ["CFuzzDriver", .product(name: "GroupieImaging", package: "Groupie")]
        ),
        .executableTarget(
            name: "FuzzMultipart",
            dependencies: [
                "CFuzzDriver",
                .product(name: "GroupieServer", package: "Groupie"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "FuzzZip",
            dependencies: [
                "CFuzzDriver",
                .product(name: "GroupieServer", package: "Groupie"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ]
)
