// OTLPTesting.docc/RecordingSpans.md.
import OTLPInstrumentation
import OTLPTelemetry
import OTLPTesting
import OTLPWire

func recordAViewsSpans() throws -> [String] {
    let recorder = OTLPSpanRecorder()
    let tracer = recorder.tracer(scope: ViewTraceTracker<OTLPTracer>.scope)
    let cart = ViewTraceTracker("CartScreen", tracer: tracer, clock: recorder.clock)
    recorder.clock.advance(seconds: 0.1)
    let title = cart.body { "Cart" }
    cart.onAppear()
    recorder.clock.advance(seconds: 2)
    cart.onDisappear()
    print(title)
    return try recorder.spans().map { $0.span.name }  // CartScreen.body, CartScreen.onAppear, CartScreen.onDisappear, CartScreen
}

func deterministicTelemetry() -> OTLPTelemetry {
    let clock = OTLPManualClock()  // 1,700,000,000 s after the epoch until moved
    return OTLPTelemetry(
        configuration: .init(traces: .init(path: "traces.u32be.bin")),
        resource: OTLPResource(attributes: [OTLPAttribute("service.name", "tests")]), clock: clock,
        idGenerator: OTLPSequentialIDGenerator())
}
