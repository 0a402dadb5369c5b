// swift-tools-version:6.0
// The tracing pipeline benchmark, kept out of the library package so users never resolve its dependency
// (malloc-interposer counts allocations; it must be LD_PRELOADed: see run.sh).
import PackageDescription

let package = Package(
    name: "TracingBenchmark",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "OTLPWire", path: "../.."),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.0"),
        .package(url: "https://github.com/ordo-one/malloc-interposer.git", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "tracing-benchmark",
            dependencies: [
                .product(name: "OTLPTelemetry", package: "OTLPWire"),
                .product(name: "OTLPInstrumentation", package: "OTLPWire"),
                .product(name: "OTLPMetricKit", package: "OTLPWire"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ]
        )
    ]
)
