#if canImport(UIKit)
public import OTLPTelemetry
public import UIKit

/// A view controller traced like a SwiftUI view (`view.type=uikit`): `{name}` from initialisation to the
/// first disappearance, `{name}.body` for `viewDidLoad`, `{name}.onAppear` / `{name}.onDisappear` for
/// `viewDidAppear` / `viewDidDisappear`. Subclass it, or drive a ``ViewTraceTracker`` from your own
/// controller the same way.
open class OTLPTracedViewController: UIViewController {
    /// The tracker this controller drives; its counts say what was traced.
    package let viewTraceTracker: ViewTraceTracker<OTLPTracer>

    /// A controller traced as the view `traceName`, with `attributes` on its root span.
    public init(traceName: String, attributes: [String: String] = [:], tracer: OTLPTracer?, isEnabled: Bool = true) {
        viewTraceTracker = ViewTraceTracker(traceName, viewType: "uikit", attributes: attributes, tracer: tracer, isEnabled: isEnabled)
        super.init(nibName: nil, bundle: nil)
    }

    /// Unavailable: a traced controller needs a trace name and a tracer.
    @available(*, unavailable)
    public required init?(coder: NSCoder) {
        fatalError("init(coder:) is not supported: use init(traceName:attributes:tracer:isEnabled:)")
    }

    /// Loads the view inside a `{name}.body` span.
    open override func viewDidLoad() {
        viewTraceTracker.body { super.viewDidLoad() }
    }

    /// Records `{name}.onAppear` after the superclass's work.
    open override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        viewTraceTracker.onAppear()
    }

    /// Records `{name}.onDisappear` (the first one ends the root span) after the superclass's work.
    open override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        viewTraceTracker.onDisappear()
    }
}
#endif
