// swift-tools-version:6.2
// OTLPWire beside swift-otel on the same workloads, each SDK in its own process:
//   delivery-benchmark  the yardstick workload delivered to a collector (run-delivery.sh, make bench-delivery)
//   pipeline-benchmark  the span hot path: startSpan, 8 attributes, end (run-pipeline.sh, make bench-pipeline)
// Kept out of the library package so users never resolve swift-otel (it takes minutes to build).
import PackageDescription

let package = Package(
    name: "SwiftOTelComparison",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "OTLPWire", path: "../.."),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    ],
    targets: [
        .target(
            name: "PeerSupport",
            dependencies: [
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "delivery-benchmark",
            dependencies: [
                "PeerSupport",
                .product(name: "OTLPTelemetry", package: "OTLPWire"),
                .product(name: "OTLPHTTP", package: "OTLPWire"),
                .product(name: "OTel", package: "swift-otel"),
            ]
        ),
        .executableTarget(
            name: "pipeline-benchmark",
            dependencies: [
                "PeerSupport",
                .product(name: "OTLPTelemetry", package: "OTLPWire"),
                .product(name: "OTLPHTTP", package: "OTLPWire"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
    ]
)
