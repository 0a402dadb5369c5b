// README.md, "OTLPTesting".
import OTLPTelemetry
import OTLPTesting
import OTLPWire
import Tracing

func recordOnePaymentSpan() throws -> OTLPSpan? {
    let recorder = OTLPSpanRecorder()
    let tracer = recorder.tracer(scope: OTLPInstrumentationScope(name: "checkout"))
    // Without `at:`, the Tracing API times spans by the real clock: give them the recorder's.
    let span = tracer.startSpan("pay", at: DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: recorder.clock.nowUnixNano()))
    recorder.clock.advance(seconds: 0.25)
    span.end(at: DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: recorder.clock.nowUnixNano()))
    return try recorder.spans().first?.span  // 250 ms long, trace ID 1, span ID 2: the same on every run
}
