// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Groupie",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "groupie", targets: ["groupie"]),
        .library(name: "GroupieServer", targets: ["GroupieServer"]),
        // For the libFuzzer targets in Fuzz/, which depend on this package by path.
        .library(name: "GroupieContent", targets: ["GroupieContent"]),
        .library(name: "GroupieImaging", targets: ["GroupieImaging"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams.git", exact: "5.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // Traces over OTLP/HTTP only: the gRPC exporter is not built.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .target(name: "GroupieCore"),
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .target(name: "CPNG", linkerSettings: [.linkedLibrary("png16")]),
        .target(name: "CSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .target(name: "CVipsShim", dependencies: ["CVips"]),
        .systemLibrary(name: "CPangoCairo", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        .systemLibrary(name: "CRsvg", pkgConfig: "librsvg-2.0", providers: [.apt(["librsvg2-dev"])]),
        .target(name: "CPoster", dependencies: ["CPangoCairo", "CRsvg"]),
        // OpenCV's face detection (libopencv-objdetect-dev, opencv-data): Debian ships no
        // opencv4.pc without all of OpenCV (libopencv-dev), so the three libraries it needs are
        // linked by name and its headers found in their folder.
        .target(
            name: "CFaces",
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])],
            linkerSettings: [.linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core")]
        ),
        .target(name: "GroupieImaging", dependencies: ["GroupieCore", "CQRencode", "CPNG", "CVipsShim", "CZlib", "CPoster", "CFaces"]),
        .target(
            name: "GroupieContent",
            dependencies: [
                "GroupieCore",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(name: "GroupieStorage", dependencies: ["GroupieCore"]),
        .target(
            name: "GroupieSQLite",
            dependencies: [
                "GroupieCore",
                "GroupieStorage",
                "CSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "GroupiePostgres",
            dependencies: [
                "GroupieCore",
                "GroupieStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "GroupieServer",
            dependencies: [
                "GroupieCore",
                "GroupieContent",
                "GroupieStorage",
                "GroupieSQLite",
                "GroupiePostgres",
                "GroupieImaging",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/templates")]
        ),
        .executableTarget(
            name: "groupie",
            dependencies: [
                "GroupieServer",
                "GroupieContent",
                "GroupieCore",
                "GroupieImaging",
                "GroupieStorage",
                "GroupieSQLite",
                "GroupiePostgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The bare Hummingbird route `make bench` measures beside Groupie's own.
        .executableTarget(
            name: "bare-route",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Benchmarks/BareRoute"
        ),
        .testTarget(
            name: "GroupieCoreTests",
            dependencies: ["GroupieCore", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "GroupieStorageTests",
            dependencies: ["GroupieStorage", "GroupieSQLite", "GroupiePostgres", "GroupieCore", "GroupieTestSupport", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .target(name: "GroupieTestSupport", path: "Tests/GroupieTestSupport"),
        .testTarget(name: "GroupieImagingTests", dependencies: ["GroupieImaging", "GroupieTestSupport"]),
        .testTarget(
            name: "GroupieContentTests",
            dependencies: ["GroupieContent", "GroupieCore", "GroupieTestSupport"],
            resources: [.copy("BrokenMissions")]
        ),
        .testTarget(
            name: "GroupieServerTests",
            dependencies: [
                "GroupieServer",
                "GroupieImaging",
                "GroupieStorage",
                "GroupieSQLite",
                "GroupiePostgres",
                "GroupieTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Yams", package: "Yams"),
            ],
            // Read from the source tree by path.
            exclude: ["BadImages"]
        ),
    ]
)
