// swift-tools-version:6.0
// libFuzzer targets for every reader of untrusted bytes. Built only by `make fuzz` (scripts/fuzz.sh), with
// -sanitize=fuzzer,address; kept out of the library package so normal builds never see them.
import PackageDescription

let package = Package(
    name: "OTLPWireFuzzTesting",
    dependencies: [.package(name: "OTLPWire", path: "..")],
    targets: [
        .executableTarget(name: "FuzzFrameReader", dependencies: [.product(name: "OTLPWire", package: "OTLPWire")]),
        .executableTarget(name: "FuzzDecoder", dependencies: [.product(name: "OTLPWire", package: "OTLPWire")]),
        .executableTarget(name: "FuzzMetricsDecoder", dependencies: [.product(name: "OTLPWire", package: "OTLPWire")]),
        .executableTarget(name: "FuzzJSONLines", dependencies: [.product(name: "OTLPWire", package: "OTLPWire")]),
        .executableTarget(name: "FuzzMetricKit", dependencies: [.product(name: "OTLPMetricKit", package: "OTLPWire")]),
        .executableTarget(
            name: "FuzzMetricKitArithmetic",
            dependencies: [.product(name: "OTLPMetricKit", package: "OTLPWire"), .product(name: "OTLPWire", package: "OTLPWire")]),
        .executableTarget(name: "FuzzResponses", dependencies: [.product(name: "OTLPWire", package: "OTLPWire")]),
        .executableTarget(name: "FuzzJSONNumbers", dependencies: [.product(name: "OTLPWire", package: "OTLPWire")]),
        .executableTarget(name: "FuzzRoundTrip", dependencies: [.product(name: "OTLPWire", package: "OTLPWire")]),
        // otlp-dump's tree printer: TreeRenderer.swift and UnixTime.swift are links to Sources/otlp-dump.
        .executableTarget(name: "FuzzTreePrinter", dependencies: [.product(name: "OTLPWire", package: "OTLPWire")]),
        .executableTarget(
            name: "FuzzConfiguration",
            dependencies: [
                .product(name: "OTLPTelemetry", package: "OTLPWire"), .product(name: "OTLPInstrumentation", package: "OTLPWire"),
            ]
        ),
    ]
)
