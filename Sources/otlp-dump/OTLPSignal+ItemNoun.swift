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

    /// The noun for `count` items: `1 span`, `2 log records`.
    func itemNoun(count: Int) -> String {
        guard count == 1 else { return itemNoun }
        switch self {
        case .traces: return "span"
        case .logs: return "log record"
        case .metrics: return "metric"
        }
    }
}
