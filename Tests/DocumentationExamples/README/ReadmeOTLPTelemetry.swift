// README.md, "OTLPTelemetry": a command-line tool's telemetry, as a newcomer writes it from the README. The tests
// run it in a child process of its own (bootstrap is once per process), with the OTEL_* variables a user sets.
import Foundation
import Logging
import OTLPTelemetry
import Tracing

func runCheckout(orders: Int) {
    let (configuration, warnings) = OTLPTelemetryConfiguration(
        service: .init(name: "checkout", version: "1.4.0"),
        traces: .init(path: "telemetry/traces.u32be.bin"),  // the folder is made when it is missing
        logs: .init(path: "telemetry/logs.u32be.bin.gz", gzip: true)
    ).applyingEnvironment()  // OTEL_* variables win
    for warning in warnings { FileHandle.standardError.write(Data("\(warning)\n".utf8)) }
    let telemetry = OTLPTelemetry(configuration: configuration)
    telemetry.bootstrap()  // InstrumentationSystem (swift-distributed-tracing) and LoggingSystem (swift-log)

    let logger = Logger(label: "checkout")
    DispatchQueue.concurrentPerform(iterations: 4) { worker in  // four workers share the orders
        for order in stride(from: worker, to: orders, by: 4) {
            withSpan("place order") { span in
                span.attributes["order.id"] = order
                logger.info("order placed", metadata: ["order": "\(order)"])  // carries the span's trace and span IDs
            }
        }
    }
    telemetry.shutdown()  // exports everything queued; reports anything dropped, and the setting to raise
}
