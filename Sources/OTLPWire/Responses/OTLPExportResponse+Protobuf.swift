internal import COTLPProto
internal import CProtobufC

fileprivate typealias PBTraceResponse = Opentelemetry__Proto__Collector__Trace__V1__ExportTraceServiceResponse
fileprivate typealias PBTracePartialSuccess = Opentelemetry__Proto__Collector__Trace__V1__ExportTracePartialSuccess
fileprivate typealias PBLogsResponse = Opentelemetry__Proto__Collector__Logs__V1__ExportLogsServiceResponse
fileprivate typealias PBLogsPartialSuccess = Opentelemetry__Proto__Collector__Logs__V1__ExportLogsPartialSuccess
fileprivate typealias PBMetricsResponse = Opentelemetry__Proto__Collector__Metrics__V1__ExportMetricsServiceResponse
fileprivate typealias PBMetricsPartialSuccess = Opentelemetry__Proto__Collector__Metrics__V1__ExportMetricsPartialSuccess

extension OTLPExportResponse {
    /// Decodes a protobuf body in memory (the public entry takes any collection of bytes).
    package init(protobuf body: UnsafeRawBufferPointer, for signal: OTLPSignal) throws(OTLPReadError) {
        let message = Self.messageName(signal)
        try ResponseBody.checkSize(body.count, message)
        if let merged = try ResponseBody.mergingOccurrences(ofField: 1, in: body, message) {
            self = try merged.withUnsafeBytes { merged in
                Result { () throws(OTLPReadError) in try Self.unpack(merged, signal, message) }
            }.get()
        } else {
            self = try Self.unpack(body, signal, message)
        }
    }

    /// Decodes a protobuf body (`Content-Type: application/x-protobuf`): the `ExportTraceServiceResponse`
    /// (traces), `ExportLogsServiceResponse` (logs) or `ExportMetricsServiceResponse` (metrics) that answers a request of `signal`.
    ///
    /// An empty body is a full success. Fields unknown to the schema are skipped; a `partial_success` sent
    /// more than once is merged, as protobuf defines.
    ///
    /// - Throws: ``OTLPReadError`` with code ``OTLPReadError/Code/recordTooLarge`` for a body over
    ///   4 MiB (or one that would take more than 32 MiB to unpack), and
    ///   ``OTLPReadError/Code/malformedProtobuf`` for bytes that are not such a message (truncated, a wrong
    ///   wire type for a known field, a group, an `error_message` that is not UTF-8).
    public init(protobuf body: some Collection<UInt8>, for signal: OTLPSignal) throws(OTLPReadError) {
        self = try ByteCollection.withBytes(body) { (buffer) throws(OTLPReadError) in try OTLPExportResponse(protobuf: buffer, for: signal)
        }
    }

    private static func unpack(_ body: UnsafeRawBufferPointer, _ signal: OTLPSignal, _ message: String) throws(OTLPReadError) -> Self {
        switch signal {
        case .traces: try unpack(body, as: PBTraceResponse.self, message)
        case .logs: try unpack(body, as: PBLogsResponse.self, message)
        case .metrics: try unpack(body, as: PBMetricsResponse.self, message)
        }
    }

    /// Either signal's response, read once: only the protoc-c types differ (``ProtobufCResponse``).
    private static func unpack<Response: ProtobufCResponse>(
        _ body: UnsafeRawBufferPointer, as type: Response.Type, _ message: String
    ) throws(OTLPReadError) -> Self {
        try ResponseBody.unpack(body, message, Response.unpack) { (response) throws(OTLPReadError) in
            guard let partial = response.pointee[keyPath: Response.partialSuccess]?.pointee else { return OTLPExportResponse() }
            return OTLPExportResponse(
                rejectedItems: partial[keyPath: Response.rejectedItems],
                errorMessage: try ResponseBody.string(
                    partial[keyPath: Response.errorMessage], field: "partial_success.error_message", of: message))
        }
    }

    /// The protobuf body of this response to a request of `signal`, packed by protobuf-c: empty for a full
    /// success (no `partial_success`), otherwise a `partial_success` holding ``rejectedItems`` and
    /// ``errorMessage``.
    public func encoded(for signal: OTLPSignal) -> [UInt8] {
        // The structs live in the arena: stable addresses for protobuf-c, freed with it.
        let arena = ProtobufCArena(minimumChunkSize: 1024)
        var builder = ProtobufCBuilder(arena: arena)
        return withExtendedLifetime(arena) {
            switch signal {
            case .traces: packed(as: PBTraceResponse.self, arena: arena, builder: &builder)
            case .logs: packed(as: PBLogsResponse.self, arena: arena, builder: &builder)
            case .metrics: packed(as: PBMetricsResponse.self, arena: arena, builder: &builder)
            }
        }
    }

    /// Either signal's response, packed once: only the protoc-c types differ (``ProtobufCResponse``).
    private func packed<Response: ProtobufCResponse>(
        as type: Response.Type, arena: ProtobufCArena, builder: inout ProtobufCBuilder
    ) -> [UInt8] {
        let response = builder.allocate(Response.self)
        Response.initialize(response)
        if !isFullSuccess {
            let partial = builder.allocate(Response.Partial.self)
            Response.initialize(partial)
            partial.pointee[keyPath: Response.rejectedItems] = rejectedItems
            partial.pointee[keyPath: Response.errorMessage] = builder.bytes(errorMessage)
            response.pointee[keyPath: Response.partialSuccess] = partial
        }
        return ResponseBody.pack(UnsafeRawPointer(response).assumingMemoryBound(to: ProtobufCMessage.self))
    }
}

/// What differs between the signals' export responses: only their protoc-c types and functions
/// (`ExportTraceServiceResponse` with `rejected_spans`, `ExportLogsServiceResponse` with
/// `rejected_log_records`, `ExportMetricsServiceResponse` with `rejected_data_points`); reading and packing
/// are written once.
fileprivate protocol ProtobufCResponse {
    /// The `…PartialSuccess` message.
    associatedtype Partial
    static func unpack(
        _ allocator: UnsafeMutablePointer<ProtobufCAllocator>, _ length: Int, _ data: UnsafePointer<UInt8>?
    ) -> UnsafeMutablePointer<Self>?
    static func initialize(_ response: UnsafeMutablePointer<Self>)
    static func initialize(_ partial: UnsafeMutablePointer<Partial>)
    static var partialSuccess: WritableKeyPath<Self, UnsafeMutablePointer<Partial>?> { get }
    static var rejectedItems: WritableKeyPath<Partial, Int64> { get }
    static var errorMessage: WritableKeyPath<Partial, ProtobufCBinaryData> { get }
}

extension PBTraceResponse: ProtobufCResponse {
    fileprivate static func unpack(
        _ allocator: UnsafeMutablePointer<ProtobufCAllocator>, _ length: Int, _ data: UnsafePointer<UInt8>?
    ) -> UnsafeMutablePointer<Self>? {
        opentelemetry__proto__collector__trace__v1__export_trace_service_response__unpack(allocator, length, data)
    }
    fileprivate static func initialize(_ response: UnsafeMutablePointer<Self>) {
        opentelemetry__proto__collector__trace__v1__export_trace_service_response__init(response)
    }
    fileprivate static func initialize(_ partial: UnsafeMutablePointer<PBTracePartialSuccess>) {
        opentelemetry__proto__collector__trace__v1__export_trace_partial_success__init(partial)
    }
    fileprivate static var partialSuccess: WritableKeyPath<Self, UnsafeMutablePointer<PBTracePartialSuccess>?> { \.partial_success }
    fileprivate static var rejectedItems: WritableKeyPath<PBTracePartialSuccess, Int64> { \.rejected_spans }
    fileprivate static var errorMessage: WritableKeyPath<PBTracePartialSuccess, ProtobufCBinaryData> { \.error_message }
}

extension PBLogsResponse: ProtobufCResponse {
    fileprivate static func unpack(
        _ allocator: UnsafeMutablePointer<ProtobufCAllocator>, _ length: Int, _ data: UnsafePointer<UInt8>?
    ) -> UnsafeMutablePointer<Self>? {
        opentelemetry__proto__collector__logs__v1__export_logs_service_response__unpack(allocator, length, data)
    }
    fileprivate static func initialize(_ response: UnsafeMutablePointer<Self>) {
        opentelemetry__proto__collector__logs__v1__export_logs_service_response__init(response)
    }
    fileprivate static func initialize(_ partial: UnsafeMutablePointer<PBLogsPartialSuccess>) {
        opentelemetry__proto__collector__logs__v1__export_logs_partial_success__init(partial)
    }
    fileprivate static var partialSuccess: WritableKeyPath<Self, UnsafeMutablePointer<PBLogsPartialSuccess>?> { \.partial_success }
    fileprivate static var rejectedItems: WritableKeyPath<PBLogsPartialSuccess, Int64> { \.rejected_log_records }
    fileprivate static var errorMessage: WritableKeyPath<PBLogsPartialSuccess, ProtobufCBinaryData> { \.error_message }
}

extension PBMetricsResponse: ProtobufCResponse {
    fileprivate static func unpack(
        _ allocator: UnsafeMutablePointer<ProtobufCAllocator>, _ length: Int, _ data: UnsafePointer<UInt8>?
    ) -> UnsafeMutablePointer<Self>? {
        opentelemetry__proto__collector__metrics__v1__export_metrics_service_response__unpack(allocator, length, data)
    }
    fileprivate static func initialize(_ response: UnsafeMutablePointer<Self>) {
        opentelemetry__proto__collector__metrics__v1__export_metrics_service_response__init(response)
    }
    fileprivate static func initialize(_ partial: UnsafeMutablePointer<PBMetricsPartialSuccess>) {
        opentelemetry__proto__collector__metrics__v1__export_metrics_partial_success__init(partial)
    }
    fileprivate static var partialSuccess: WritableKeyPath<Self, UnsafeMutablePointer<PBMetricsPartialSuccess>?> { \.partial_success }
    fileprivate static var rejectedItems: WritableKeyPath<PBMetricsPartialSuccess, Int64> { \.rejected_data_points }
    fileprivate static var errorMessage: WritableKeyPath<PBMetricsPartialSuccess, ProtobufCBinaryData> { \.error_message }
}
