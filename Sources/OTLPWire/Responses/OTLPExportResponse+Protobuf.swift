internal import COTLPProto
internal import CProtobufC

private typealias PBTraceResponse = Opentelemetry__Proto__Collector__Trace__V1__ExportTraceServiceResponse
private typealias PBTracePartialSuccess = Opentelemetry__Proto__Collector__Trace__V1__ExportTracePartialSuccess
private typealias PBLogsResponse = Opentelemetry__Proto__Collector__Logs__V1__ExportLogsServiceResponse
private typealias PBLogsPartialSuccess = Opentelemetry__Proto__Collector__Logs__V1__ExportLogsPartialSuccess

extension OTLPExportResponse {
    /// Decodes a protobuf body (`Content-Type: application/x-protobuf`): the `ExportTraceServiceResponse`
    /// (traces) or `ExportLogsServiceResponse` (logs) that answers a request of `signal`.
    ///
    /// An empty body is a full success. Fields unknown to the schema are skipped; a `partial_success` sent
    /// more than once is merged, as protobuf defines.
    ///
    /// - Throws: ``OTLPReadError`` with code ``OTLPReadError/Code/recordTooLarge`` for a body over
    ///   ``maxBodyBytes`` (or one that would take more than 32 MiB to unpack), and
    ///   ``OTLPReadError/Code/malformedProtobuf`` for bytes that are not such a message (truncated, a wrong
    ///   wire type for a known field, a group, an `error_message` that is not UTF-8).
    public init(protobuf body: UnsafeRawBufferPointer, for signal: OTLPSignal) throws(OTLPReadError) {
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

    /// Decodes a protobuf body held in an array (see ``init(protobuf:for:)-(UnsafeRawBufferPointer,_)``).
    public init(protobuf body: [UInt8], for signal: OTLPSignal) throws(OTLPReadError) {
        self = try body.withUnsafeBytes { buffer in
            Result { () throws(OTLPReadError) in try OTLPExportResponse(protobuf: buffer, for: signal) }
        }.get()
    }

    private static func unpack(_ body: UnsafeRawBufferPointer, _ signal: OTLPSignal, _ message: String) throws(OTLPReadError) -> Self {
        switch signal {
        case .traces:
            return try ResponseBody.unpack(body, message, opentelemetry__proto__collector__trace__v1__export_trace_service_response__unpack) {
                (response) throws(OTLPReadError) in
                guard let partial = response.pointee.partial_success?.pointee else { return OTLPExportResponse() }
                return OTLPExportResponse(
                    rejectedItems: partial.rejected_spans,
                    errorMessage: try ResponseBody.string(partial.error_message, field: "partial_success.error_message", of: message))
            }
        case .logs:
            return try ResponseBody.unpack(body, message, opentelemetry__proto__collector__logs__v1__export_logs_service_response__unpack) {
                (response) throws(OTLPReadError) in
                guard let partial = response.pointee.partial_success?.pointee else { return OTLPExportResponse() }
                return OTLPExportResponse(
                    rejectedItems: partial.rejected_log_records,
                    errorMessage: try ResponseBody.string(partial.error_message, field: "partial_success.error_message", of: message))
            }
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
            case .traces:
                let response = arena.allocate(PBTraceResponse.self)
                opentelemetry__proto__collector__trace__v1__export_trace_service_response__init(response)
                if !isFullSuccess {
                    let partial = arena.allocate(PBTracePartialSuccess.self)
                    opentelemetry__proto__collector__trace__v1__export_trace_partial_success__init(partial)
                    partial.pointee.rejected_spans = rejectedItems
                    partial.pointee.error_message = builder.bytes(errorMessage)
                    response.pointee.partial_success = partial
                }
                return ResponseBody.pack(UnsafeRawPointer(response).assumingMemoryBound(to: ProtobufCMessage.self))
            case .logs:
                let response = arena.allocate(PBLogsResponse.self)
                opentelemetry__proto__collector__logs__v1__export_logs_service_response__init(response)
                if !isFullSuccess {
                    let partial = arena.allocate(PBLogsPartialSuccess.self)
                    opentelemetry__proto__collector__logs__v1__export_logs_partial_success__init(partial)
                    partial.pointee.rejected_log_records = rejectedItems
                    partial.pointee.error_message = builder.bytes(errorMessage)
                    response.pointee.partial_success = partial
                }
                return ResponseBody.pack(UnsafeRawPointer(response).assumingMemoryBound(to: ProtobufCMessage.self))
            }
        }
    }
}
