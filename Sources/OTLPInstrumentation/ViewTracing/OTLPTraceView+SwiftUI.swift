#if canImport(SwiftUI)
public import OTLPTelemetry
public import SwiftUI

/// The view behind `View.otlpTrace(_:attributes:tracer:isEnabled:)`: a thin wrapper over ``ViewTraceTracker``,
/// whose state lives in `@State` (a reference type: no re-renders).
package struct OTLPTraceView<Content: View>: View {
    @State private var tracker: ViewTraceTracker<OTLPTracer>
    private let content: () -> Content

    /// Traces `content` as the view `name`, with `attributes` on its root span.
    package init(
        _ name: String, attributes: [String: String] = [:], tracer: OTLPTracer?, isEnabled: Bool = true,
        @ViewBuilder content: @escaping () -> Content
    ) {
        _tracker = State(
            initialValue: ViewTraceTracker(name, viewType: "swiftui", attributes: attributes, tracer: tracer, isEnabled: isEnabled))
        self.content = content
    }

    /// `content`, its body evaluation, appearance and disappearance traced.
    package var body: some View {
        tracker.body { content() }
            .onAppear { tracker.onAppear() }
            .onDisappear { tracker.onDisappear() }
    }
}

extension View {
    /// Traces this view: `{name}` from initialisation to disappearance, `{name}.body` per body evaluation,
    /// `{name}.onAppear` / `{name}.onDisappear`, with `attributes` on the root span. A `nil` tracer or
    /// `isEnabled: false` turns tracing off.
    public func otlpTrace(_ name: String, attributes: [String: String] = [:], tracer: OTLPTracer?, isEnabled: Bool = true) -> some View {
        OTLPTraceView(name, attributes: attributes, tracer: tracer, isEnabled: isEnabled) { self }
    }
}
#endif
