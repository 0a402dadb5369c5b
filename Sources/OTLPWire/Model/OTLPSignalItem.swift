/// What one signal's item type (``OTLPSpan``, ``OTLPLogRecord``) says about its signal: the facts that let the
/// resource → scope → items walks (protobuf, JSON, reading, exporting) be written once for both signals.
protocol OTLPSignalItem {
    /// The signal whose requests carry this item.
    static var signal: OTLPSignal { get }
}

extension OTLPSpan: OTLPSignalItem {
    static var signal: OTLPSignal { .traces }
}

extension OTLPLogRecord: OTLPSignalItem {
    static var signal: OTLPSignal { .logs }
}
