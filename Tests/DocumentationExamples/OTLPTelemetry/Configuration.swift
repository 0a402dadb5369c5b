// OTLPTelemetry.docc/Configuration.md.
import Foundation
import OTLPTelemetry
import OTLPWire

func loadConfiguration(path: String) throws -> OTLPTelemetryConfiguration {
    // The configuration and the warnings (unknown keys), as a pair.
    let (configuration, warnings) = try OTLPTelemetryConfiguration.load(contentsOf: URL(fileURLWithPath: path))
    for warning in warnings { print(warning) }  // unknown configuration key batch.maxQueueSise (ignored)

    // OTEL_* variables win over the file.
    let (effective, environmentWarnings) = configuration.applyingEnvironment()
    for warning in environmentWarnings { print(warning) }
    return effective
}

func configurationInCode() throws -> OTLPTelemetryConfiguration {
    var configuration = OTLPTelemetryConfiguration(
        service: .init(name: "checkout", version: "1.4.0", attributes: ["deployment.environment.name": "prod"]),
        traces: .init(path: "traces.u32be.bin"),
        logs: .init(path: "logs.jsonl", framing: .jsonl),
        durability: .fsync,
        rotation: .init(maxFileBytes: 100 << 20, maxFiles: 10))
    configuration.batch.scheduleDelaySeconds = 1
    configuration.sampling = .init(ratio: 0.25)
    try configuration.validate()  // throws the first problem; OTLPTelemetry reports them all
    return configuration
}

func environmentOverDefaults() -> [String] {
    let environment = ["OTEL_SERVICE_NAME": "checkout", "OTEL_BSP_MAX_QUEUE_SIZE": "lots"]
    let (configuration, warnings) = OTLPTelemetryConfiguration.default.applyingEnvironment(environment)
    print(configuration.service.name ?? "")  // checkout
    return warnings.map(\.description)  // environment variable OTEL_BSP_MAX_QUEUE_SIZE (not a whole number: "lots"; ignored)
}
