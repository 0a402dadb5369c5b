public import OTLPWire

/// An emitted log record with the instrumentation scope that produced it.
public struct OTLPScopedLogRecord: Sendable {
    /// The instrumentation scope of the emitter that made the record.
    public var scope: OTLPInstrumentationScope
    /// The emitted log record.
    public var record: OTLPLogRecord

    /// A log record produced under `scope`.
    package init(scope: OTLPInstrumentationScope, record: OTLPLogRecord) {
        self.scope = scope
        self.record = record
    }
}

extension OTLPScopedLogRecord: OTLPExportable {
    public static var signal: OTLPSignal { .logs }

    public func nestsValues(deeperThan levels: Int) -> Bool {
        scope.attributes.nest(deeperThan: levels) || record.attributes.nest(deeperThan: levels)
            || record.body?.nests(deeperThan: levels) == true
    }

    public static func request(_ items: [OTLPScopedLogRecord], resource: OTLPResource) -> OTLPLogsData {
        OTLPSignalData(resource: resource, grouping: items, scope: { $0.scope }, item: { $0.record })
    }
}
