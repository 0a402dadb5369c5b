// OTLPTesting.docc/OTLPTesting.md (the landing page).
import OTLPTelemetry
import OTLPTesting
import OTLPWire
import Tracing

func recordAPaySpan() throws -> [(scope: OTLPInstrumentationScope?, span: OTLPSpan)] {
    let recorder = OTLPSpanRecorder()
    let tracer = recorder.tracer(scope: OTLPInstrumentationScope(name: "checkout"))
    let start = DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: recorder.clock.nowUnixNano())
    let span = tracer.startSpan("pay", at: start)
    recorder.clock.advance(seconds: 0.25)
    span.end(at: DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: recorder.clock.nowUnixNano()))
    let spans = try recorder.spans()
    return spans
}
