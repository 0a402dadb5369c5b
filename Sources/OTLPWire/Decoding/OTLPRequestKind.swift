internal import COTLPShims

/// The OTLP export requests the codecs read and write, one for each ``OTLPSignal``.
enum OTLPRequestKind: Sendable, Equatable, CustomStringConvertible {
    case traces
    case logs
    case metrics

    init(_ signal: OTLPSignal) {
        switch signal {
        case .traces: self = .traces
        case .logs: self = .logs
        case .metrics: self = .metrics
        }
    }

    /// The scanner's and `COTLPShims_unpack_request`'s code.
    var shimsKind: Int32 {
        switch self {
        case .traces: Int32(COTLPSHIMS_KIND_TRACES)
        case .logs: Int32(COTLPSHIMS_KIND_LOGS)
        case .metrics: Int32(COTLPSHIMS_KIND_METRICS)
        }
    }

    /// The requests a message of this kind is checked against when it does not read as this kind, so that a
    /// request of another kind is named (`wrong_kind`) rather than reported as damaged.
    var others: [OTLPRequestKind] {
        switch self {
        case .traces: [.logs]
        case .logs: [.traces]
        case .metrics: [.traces, .logs]
        }
    }

    var description: String {
        switch self {
        case .traces: "traces"
        case .logs: "logs"
        case .metrics: "metrics"
        }
    }
}

/// An item of one kind of request, as the internal codecs know it (``ProtobufCItem``, ``JSONItem``).
protocol OTLPRequestItem: Sendable {
    /// The request that carries this item.
    static var requestKind: OTLPRequestKind { get }
}

extension OTLPSpan: OTLPRequestItem {
    static var requestKind: OTLPRequestKind { .traces }
}

extension OTLPLogRecord: OTLPRequestItem {
    static var requestKind: OTLPRequestKind { .logs }
}

extension OTLPMetric: OTLPRequestItem {
    static var requestKind: OTLPRequestKind { .metrics }
}
