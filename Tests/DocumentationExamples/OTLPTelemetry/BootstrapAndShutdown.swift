// OTLPTelemetry.docc/BootstrapAndShutdown.md: run in a child process of its own (it bootstraps swift-log).
import Logging
import OTLPTelemetry
import Tracing

func bootstrapSwiftLogYourself() {
    let telemetry = OTLPTelemetry(
        configuration: .init(
            service: .init(name: "checkout"),
            traces: .init(path: "traces.u32be.bin"), logs: .init(path: "logs.u32be.bin")))
    // The program's own handlers, the telemetry's among them; the provider adds trace_id and span_id.
    LoggingSystem.bootstrap(
        { label, provider in
            MultiplexLogHandler([
                telemetry.logEmitter.logHandler(label: label, metadataProvider: provider),
                StreamLogHandler.standardOutput(label: label, metadataProvider: provider),
            ])
        }, metadataProvider: .otlpTraceContext)
    telemetry.bootstrapTracing()  // the tracer alone: swift-log is bootstrapped already
    withSpan("checkout") { _ in Logger(label: "cart").info("paid") }  // … info cart: span_id=… trace_id=… [module] paid
    telemetry.shutdown()
}
