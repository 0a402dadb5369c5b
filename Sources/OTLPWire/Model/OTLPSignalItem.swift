/// An item of one signal's requests: ``OTLPSpan`` (traces) or ``OTLPLogRecord`` (logs).
///
/// It says what is particular to its signal, so that the resource → scope → items walks (protobuf, JSON,
/// reading, exporting) are written once for both, and code generic over the signal (an exporter of either)
/// encodes an ``OTLPSignalData`` of its items directly, with no detour through ``OTLPPayload``: with
/// ``OTLPEncoder``, ``OTLPJSONEncoder`` or ``OTLPRecordWriter``. Only this package's item types conform; the
/// underscored requirements are how the encoders reach them.
public protocol OTLPSignalItem: Sendable {
    /// The signal whose requests carry this item.
    static var signal: OTLPSignal { get }
    /// The encoders' entry for this item type (use ``OTLPEncoder`` instead): encodes `data` as a protobuf
    /// request and hands the bytes to `body`.
    static func _encode<R>(_ data: OTLPSignalData<Self>, with encoder: OTLPEncoder, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
    /// The encoders' entry for this item type (use ``OTLPJSONEncoder`` instead): `data` as one line of OTLP JSON.
    static func _encodeJSON(_ data: OTLPSignalData<Self>, with encoder: OTLPJSONEncoder) -> [UInt8]
}

extension OTLPSpan: OTLPSignalItem {
    public static var signal: OTLPSignal { .traces }
    public static func _encode<R>(_ data: OTLPTracesData, with encoder: OTLPEncoder, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try encoder.withEncodedRequest(data, body)
    }
    public static func _encodeJSON(_ data: OTLPTracesData, with encoder: OTLPJSONEncoder) -> [UInt8] { encoder.encodeRequest(data) }
}

extension OTLPLogRecord: OTLPSignalItem {
    public static var signal: OTLPSignal { .logs }
    public static func _encode<R>(_ data: OTLPLogsData, with encoder: OTLPEncoder, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try encoder.withEncodedRequest(data, body)
    }
    public static func _encodeJSON(_ data: OTLPLogsData, with encoder: OTLPJSONEncoder) -> [UInt8] { encoder.encodeRequest(data) }
}
