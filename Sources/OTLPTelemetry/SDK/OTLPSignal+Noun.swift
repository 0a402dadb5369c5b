package import OTLPWire

extension OTLPSignal {
    /// "span", "spans", "log record", "log records", "metric" or "metrics": the noun of this signal's items, for messages about
    /// `count` of them.
    package func noun(_ count: Int) -> String {
        switch self {
        case .traces: count == 1 ? "span" : "spans"
        case .logs: count == 1 ? "log record" : "log records"
        case .metrics: count == 1 ? "metric" : "metrics"
        }
    }
}
