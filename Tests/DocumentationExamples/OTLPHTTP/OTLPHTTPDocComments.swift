// The examples in the doc comments of OTLPHTTP's types (Sources/OTLPHTTP).
import OTLPHTTP
import OTLPTelemetry

func deliverWhereTheEnvironmentSays() -> OTLPTelemetry {
    let (configuration, warnings) = OTLPTelemetryConfiguration.default.applyingEnvironment()
    warnings.forEach { print($0) }
    return OTLPTelemetry(configuration: configuration, exporterFactory: OTLPHTTPExporterFactory())
}
