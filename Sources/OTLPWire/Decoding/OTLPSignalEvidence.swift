/// What the content of one record says about its signal, as signal detection weighs it.
///
/// A record is a traces request when only the traces schema reads it, and the same for logs; a metrics
/// request when it reads as metrics with metrics, and as neither traces nor logs or as spans without times. Records that
/// read as both are the hard case: a span that carries its 16-byte trace ID and 8-byte span ID can never
/// read as a log record (those fields have other wire types there), so a record valid as both holds spans
/// without IDs, which OTLP requires, or log records, which need none; it leans to logs. Records without
/// items (an empty request, resources or scopes only) say nothing.
enum OTLPSignalEvidence: Equatable {
    /// Only one signal reads the record (a JSON line names its signal).
    case decisive(OTLPSignal)
    /// Both signals read the record; this one is the plausible reading (fewer unknown fields; else log
    /// records rather than spans without IDs).
    case leaning(OTLPSignal)
    /// Both signals read the record and it holds no spans or log records; `isEmpty` when nothing in it would
    /// show differently as either signal (zero bytes, empty resource and scope envelopes, `{}`).
    case silent(isEmpty: Bool)
    /// Neither signal reads the record; `likelier` is the one that read further (for the error's wording).
    case invalid(likelier: OTLPSignal)
    /// A request of a signal the record readers do not read: `kind` is `profiles`.
    case unsupported(kind: String, message: String)
}
