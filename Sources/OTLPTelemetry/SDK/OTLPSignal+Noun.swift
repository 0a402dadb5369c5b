package import OTLPWire

extension OTLPSignal {
    /// "span", "spans", "log record" or "log records": the noun of this signal's items, for messages about
    /// `count` of them.
    package func noun(_ count: Int) -> String {
        switch self {
        case .traces: count == 1 ? "span" : "spans"
        case .logs: count == 1 ? "log record" : "log records"
        }
    }
}
