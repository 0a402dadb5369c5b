// OTLPInstrumentation.docc/ViewTracing.md.
import OTLPInstrumentation
import OTLPTelemetry

func traceCartScreen(telemetry: OTLPTelemetry, enabled: Bool) -> Int {
    let tracer = telemetry.tracer(scope: ViewTraceTracker<OTLPTracer>.scope)
    let cart = ViewTraceTracker("CartScreen", attributes: ["cart.items": "3"], tracer: tracer, isEnabled: enabled)
    let rows = cart.body { ["apples", "pears", "plums"] }  // CartScreen.body, view.body.evaluation 1
    cart.onAppear()  // CartScreen.onAppear, view.appear.count 1
    let count = cart.body { rows.count }  // CartScreen.body, view.body.evaluation 2
    cart.onDisappear()  // CartScreen.onDisappear; the root span CartScreen ends
    print(count)  // 3: a disabled tracker still runs the bodies, and makes no span
    return cart.bodyEvaluationCount  // 2; 0 when disabled
}
