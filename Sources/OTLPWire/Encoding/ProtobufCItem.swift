internal import COTLPProto
internal import COTLPShims
internal import CProtobufC

/// An item type with its protoc-c message: how the builder fills one and the reader turns one into the model.
/// The envelope around the items is the same for every request (`COTLPShims_Request`).
protocol ProtobufCItem: OTLPRequestItem {
    /// The protoc-c struct of one item (`Span`, `LogRecord`); it starts with its `ProtobufCMessage` base.
    associatedtype CMessage

    /// Fills `pointer` (uninitialized arena memory) from the item at `item` (in the request's array, which
    /// outlives the call; read in place, not copied), allocating what it refers to from `builder`.
    static func build(_ item: UnsafePointer<Self>, into pointer: UnsafeMutablePointer<CMessage>, with builder: inout ProtobufCBuilder)

    /// The model of an item protobuf-c unpacked (IDs of the wrong length throw).
    static func read(_ message: CMessage) throws(OTLPReadError) -> Self
}

extension OTLPSpan: ProtobufCItem {
    typealias CMessage = PBSpan

    @inline(__always)
    static func build(_ item: UnsafePointer<OTLPSpan>, into pointer: UnsafeMutablePointer<PBSpan>, with builder: inout ProtobufCBuilder) {
        builder.span(item, into: pointer)
    }

    static func read(_ message: PBSpan) throws(OTLPReadError) -> OTLPSpan {
        try ProtobufCReader.span(message)
    }
}

extension OTLPLogRecord: ProtobufCItem {
    typealias CMessage = PBLogRecord

    @inline(__always)
    static func build(
        _ item: UnsafePointer<OTLPLogRecord>, into pointer: UnsafeMutablePointer<PBLogRecord>, with builder: inout ProtobufCBuilder
    ) {
        builder.logRecord(item, into: pointer)
    }

    static func read(_ message: PBLogRecord) throws(OTLPReadError) -> OTLPLogRecord {
        try ProtobufCReader.logRecord(message)
    }
}

extension OTLPMetric: ProtobufCItem {
    typealias CMessage = PBMetric

    static func build(_ item: UnsafePointer<OTLPMetric>, into pointer: UnsafeMutablePointer<PBMetric>, with builder: inout ProtobufCBuilder)
    {
        builder.metric(item.pointee, into: pointer)
    }

    static func read(_ message: PBMetric) throws(OTLPReadError) -> OTLPMetric {
        try ProtobufCReader.metric(message)
    }
}

extension OTLPSignal {
    /// The scanner's and `COTLPShims_unpack_request`'s code for this signal.
    var shimsKind: Int32 { OTLPRequestKind(self).shimsKind }
}
