internal import COTLPProto
internal import CProtobufC

private typealias PBRPCStatus = Google__Rpc__Status
private typealias PBProtobufAny = Google__Protobuf__Any

extension OTLPRPCStatus {
    /// Decodes a protobuf body in memory (the public entry takes any collection of bytes).
    package init(protobuf body: UnsafeRawBufferPointer) throws(OTLPReadError) {
        let name = Self.messageName
        try ResponseBody.checkSize(body.count, name)
        self = try ResponseBody.unpack(body, name, google__rpc__status__unpack) { (status) throws(OTLPReadError) in
            let status = status.pointee
            var typeURLs: [String] = []
            typeURLs.reserveCapacity(status.n_details)
            for index in 0..<status.n_details {
                guard let detail = status.details[index] else { continue }
                typeURLs.append(try ResponseBody.string(detail.pointee.type_url, field: "details[\(index)].type_url", of: name))
            }
            return OTLPRPCStatus(
                code: status.code, message: try ResponseBody.string(status.message, field: "message", of: name),
                detailTypeURLs: typeURLs)
        }
    }

    /// Decodes a protobuf body (`Content-Type: application/x-protobuf`): a `google.rpc.Status`.
    ///
    /// An empty body is a status with code 0 and no message. Fields unknown to the schema are skipped.
    ///
    /// - Throws: ``OTLPReadError`` with code ``OTLPReadError/Code/recordTooLarge`` for a body over
    ///   4 MiB (or one that would take more than 32 MiB to unpack), and
    ///   ``OTLPReadError/Code/malformedProtobuf`` for bytes that are not a `Status` (truncated, a wrong wire
    ///   type for a known field, a group, a `message` or type URL that is not UTF-8).
    public init(protobuf body: some Collection<UInt8>) throws(OTLPReadError) {
        self = try ByteCollection.withBytes(body) { (buffer) throws(OTLPReadError) in try OTLPRPCStatus(protobuf: buffer) }
    }

    /// The protobuf body of this status, packed by protobuf-c; each detail is a `google.protobuf.Any` with
    /// its type URL and an empty value.
    public func encoded() -> [UInt8] {
        // The structs live in the arena: stable addresses for protobuf-c, freed with it.
        let arena = ProtobufCArena(minimumChunkSize: 1024)
        var builder = ProtobufCBuilder(arena: arena)
        return withExtendedLifetime(arena) {
            let status = builder.allocate(PBRPCStatus.self)
            google__rpc__status__init(status)
            status.pointee.code = code
            status.pointee.message = builder.bytes(message)
            if !detailTypeURLs.isEmpty {
                let details = builder.allocate(UnsafeMutablePointer<PBProtobufAny>?.self, count: detailTypeURLs.count)
                for (index, typeURL) in detailTypeURLs.enumerated() {
                    let detail = builder.allocate(PBProtobufAny.self)
                    google__protobuf__any__init(detail)
                    detail.pointee.type_url = builder.bytes(typeURL)
                    details[index] = detail
                }
                status.pointee.n_details = detailTypeURLs.count
                status.pointee.details = details
            }
            return ResponseBody.pack(UnsafeRawPointer(status).assumingMemoryBound(to: ProtobufCMessage.self))
        }
    }
}
