import OTLPWire

extension OTLPSignal {
    /// What a request of this signal holds, for counts on screen: `spans`, `log records` or `metrics`.
    var itemNoun: String {
        switch self {
        case .traces: "spans"
        case .logs: "log records"
        case .metrics: "metrics"
        }
    }
}
