// OTLPTelemetry.docc/OTLPTelemetry.md (the landing page): run in a child process of its own (bootstrap).
import Logging
import OTLPTelemetry
import Tracing

func traceACheckout() {
    let telemetry = OTLPTelemetry(
        configuration: .init(
            service: .init(name: "checkout"),
            traces: .init(path: "traces.u32be.bin"), logs: .init(path: "logs.u32be.bin")))
    telemetry.bootstrap()
    withSpan("checkout") { _ in Logger(label: "cart").info("paid") }
    telemetry.shutdown()
}
