// swift-tools-version:6.2
// The delivery benchmark: the yardstick workload through OTLPWire's OTLP/HTTP exporter and through
// swift-otel's, to a collector on loopback. Kept out of the library package so users never resolve
// swift-otel (it takes minutes to build): see run.sh.
import PackageDescription

let package = Package(
    name: "DeliveryBenchmark",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "OTLPWire", path: "../.."),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.4.1"),
    ],
    targets: [
        .executableTarget(
            name: "delivery-benchmark",
            dependencies: [
                .product(name: "OTLPTelemetry", package: "OTLPWire"),
                .product(name: "OTLPHTTP", package: "OTLPWire"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)
