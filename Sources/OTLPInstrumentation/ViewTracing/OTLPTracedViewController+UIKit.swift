#if canImport(UIKit)
public import OTLPTelemetry
public import UIKit

/// A view controller traced like a SwiftUI view (`view.type=uikit`): `{name}` from initialisation to the
/// first disappearance, `{name}.body` for `viewDidLoad`, `{name}.onAppear` / `{name}.onDisappear` for
/// `viewDidAppear` / `viewDidDisappear`. Subclass it, or drive a ``ViewTraceTracker`` from your own
/// controller the same way.
open class OTLPTracedViewController: UIViewController {
    public let viewTraceTracker: ViewTraceTracker<OTLPTracer>

    public init(traceName: String, attributes: [String: String] = [:], tracer: OTLPTracer?, isEnabled: Bool = true) {
        viewTraceTracker = ViewTraceTracker(traceName, viewType: "uikit", attributes: attributes, tracer: tracer, isEnabled: isEnabled)
        super.init(nibName: nil, bundle: nil)
    }

    @available(*, unavailable)
    public required init?(coder: NSCoder) {
        fatalError("init(coder:) is not supported: use init(traceName:attributes:tracer:isEnabled:)")
    }

    open override func viewDidLoad() {
        viewTraceTracker.body { super.viewDidLoad() }
    }

    open override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        viewTraceTracker.onAppear()
    }

    open override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        viewTraceTracker.onDisappear()
    }
}
#endif
