// OTLPServiceLifecycle.docc/OTLPServiceLifecycle.md.
import Logging
import OTLPServiceLifecycle
import OTLPTelemetry
import ServiceLifecycle
import Tracing

struct CheckoutWork: Service {
    func run() async throws {
        for order in 0..<100 { withSpan("order \(order)") { _ in } }
    }
}

func runCheckoutService() async throws {
    let telemetry = OTLPTelemetry(
        configuration: .init(service: .init(name: "checkout"), traces: .init(path: "traces.u32be.bin")))
    telemetry.bootstrapTracing()
    let group = ServiceGroup(
        configuration: .init(
            services: [
                .init(service: telemetry),  // first in the list: shut down last, after the services it traces
                .init(service: CheckoutWork(), successTerminationBehavior: .gracefullyShutdownGroup),
            ],
            logger: Logger(label: "checkout")))
    try await group.run()  // the work done, the group shuts down: the telemetry exports its queue
}
