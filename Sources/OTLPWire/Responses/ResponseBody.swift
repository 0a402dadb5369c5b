internal import COTLPProto
internal import CProtobufC

/// What decoding and encoding the collector's response bodies (``OTLPExportResponse``, ``OTLPRPCStatus``)
/// share: the limits, protobuf-c's unpack into a bounded arena and out through pack, UTF-8 checks, the JSON
/// tree.
///
/// A body comes from the network and is hostile: it is refused over ``maxBodyBytes``; protobuf-c's unpack
/// takes its memory from an arena that refuses to pass ``maxDecodedBytes`` (a body of empty repeated
/// messages unpacks to ~30 times its size); the JSON parser works within the same memory and a nesting limit.
/// The response messages nest at most two levels, so protobuf-c's recursion needs no pre-scan.
enum ResponseBody {
    /// The largest body decoded: 4 MiB. An `ExportTraceServiceResponse` or a `Status` is a few hundred bytes.
    static let maxBodyBytes = 4 * 1024 * 1024
    /// The most memory decoding one body may take (protobuf-c's structs, or the JSON tree): 32 MiB.
    static let maxDecodedBytes = 32 * 1024 * 1024
    /// The deepest JSON nesting read (a `Status` detail may hold any JSON the server's detail type maps to).
    static let maxJSONNestingDepth = 100

    /// Throws `record_too_large` when a body of `count` bytes is over ``maxBodyBytes``.
    static func checkSize(_ count: Int, _ message: String) throws(OTLPReadError) {
        guard count <= maxBodyBytes else {
            throw OTLPReadError(.recordTooLarge, "\(message) body of \(count) bytes is over the limit of \(maxBodyBytes) bytes")
        }
    }

    // MARK: - Protobuf

    /// Unpacks `bytes` with protobuf-c's `unpack` into an arena bounded by ``maxDecodedBytes`` and reads the
    /// result with `read` while the arena holds it. A refused allocation is `record_too_large`, any other
    /// failure `malformed_protobuf`.
    static func unpack<Message, R>(
        _ bytes: UnsafeRawBufferPointer, _ message: String,
        _ unpack: (UnsafeMutablePointer<ProtobufCAllocator>, Int, UnsafePointer<UInt8>?) -> UnsafeMutablePointer<Message>?,
        _ read: (UnsafeMutablePointer<Message>) throws(OTLPReadError) -> R
    ) throws(OTLPReadError) -> R {
        let arena = ProtobufCArena(minimumChunkSize: max(4096, bytes.count * 2))
        let unpacked = try arena.withAllocator(limitBytes: maxDecodedBytes) { allocator in
            unpack(allocator, bytes.count, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        }
        guard let unpacked else {
            if arena.refusedAllocation {
                throw OTLPReadError(
                    .recordTooLarge, "decoding this \(message) would take more than \(maxDecodedBytes) bytes of memory",
                    offsetIn: .record)
            }
            throw OTLPReadError(
                .malformedProtobuf,
                "not a valid \(message): a field is truncated or overlong, has a wire type its schema does not allow, or is a group",
                offsetIn: .record)
        }
        return try withExtendedLifetime(arena) { () throws(OTLPReadError) -> R in try read(unpacked) }
    }

    /// The text of a `string` field (declared `bytes` in the bindings, so protobuf-c does not check it):
    /// `malformed_protobuf` unless it is valid UTF-8, as the reference decoders require.
    static func string(_ value: ProtobufCBinaryData, field: String, of message: String) throws(OTLPReadError) -> String {
        guard value.len > 0, let data = value.data else { return "" }
        guard let string = String(validating: UnsafeBufferPointer(start: data, count: value.len), as: UTF8.self) else {
            throw OTLPReadError(.malformedProtobuf, "\(message).\(field) is not valid UTF-8", offsetIn: .record)
        }
        return string
    }

    /// `bytes` with every occurrence of the length-delimited top-level field `number` merged into one, or
    /// `nil` when it occurs at most once. This is protobuf's rule for a singular message field sent more
    /// than once (the occurrences are read as one message, their concatenation); protobuf-c 1.4.1 instead
    /// loses the scalars of the earlier occurrences. Only the top level is walked; protobuf-c checks the rest.
    static func mergingOccurrences(
        ofField number: UInt64, in bytes: UnsafeRawBufferPointer, _ message: String
    ) throws(OTLPReadError) -> [UInt8]? {
        var others: [Range<Int>] = []
        var payloads: [Range<Int>] = []
        var index = 0
        func varint() throws(OTLPReadError) -> UInt64 {
            let start = index
            var value: UInt64 = 0
            for shift in stride(from: UInt64(0), to: 70, by: 7) {
                guard index < bytes.count else {
                    throw OTLPReadError(.malformedProtobuf, "\(message) ends inside a varint", byteOffset: start, offsetIn: .record)
                }
                let byte = bytes[index]
                index += 1
                if shift < 64 { value |= UInt64(byte & 0x7F) << shift }
                if byte & 0x80 == 0 { return value }
            }
            throw OTLPReadError(.malformedProtobuf, "\(message) has a varint longer than 10 bytes", byteOffset: start, offsetIn: .record)
        }
        func skip(_ count: UInt64, _ start: Int) throws(OTLPReadError) {
            guard count <= UInt64(bytes.count - index) else {
                throw OTLPReadError(.malformedProtobuf, "\(message) ends inside a field", byteOffset: start, offsetIn: .record)
            }
            index += Int(count)
        }
        while index < bytes.count {
            let start = index
            let tag = try varint()
            guard tag >> 3 != 0 else {
                throw OTLPReadError(.malformedProtobuf, "\(message) has a field numbered 0", byteOffset: start, offsetIn: .record)
            }
            switch tag & 7 {
            case 0: _ = try varint()
            case 1: try skip(8, start)
            case 2:
                let length = try varint()
                let payloadStart = index
                try skip(length, start)
                if tag >> 3 == number {
                    payloads.append(payloadStart..<index)
                    continue
                }
            case 5: try skip(4, start)
            default:
                throw OTLPReadError(
                    .malformedProtobuf, "\(message) has a group or an invalid wire type (\(tag & 7))", byteOffset: start,
                    offsetIn: .record)
            }
            others.append(start..<index)
        }
        guard payloads.count > 1 else { return nil }
        var merged: [UInt8] = []
        merged.reserveCapacity(bytes.count + 10)
        for range in others { merged.append(contentsOf: bytes[range]) }
        appendVarint(number << 3 | 2, to: &merged)
        appendVarint(UInt64(payloads.reduce(0) { $0 + $1.count }), to: &merged)
        for range in payloads { merged.append(contentsOf: bytes[range]) }
        return merged
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Packs a message built in `arena` with protobuf-c: its packed size, then pack into an array of it.
    static func pack(_ message: UnsafePointer<ProtobufCMessage>) -> [UInt8] {
        let size = protobuf_c_message_get_packed_size(message)
        var written = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            written = size == 0 ? 0 : protobuf_c_message_pack(message, buffer.baseAddress)
            initialized = written
        }
        // protobuf-c packs without bounds checks; its own size pass is the bound, and this proves it held.
        precondition(written == size, "protobuf-c packed \(written) bytes, not the \(size) it computed")
        return bytes
    }

    // MARK: - JSON

    /// The root object of a JSON body, or `nil` for an empty one (nothing but JSON whitespace), which OTLP
    /// servers send for a full success. Not JSON, or not an object: `malformed_json`; too deep or too large:
    /// `nesting_too_deep` or `record_too_large`. Duplicate keys are refused as in the request decoder.
    static func jsonObject(_ bytes: UnsafeRawBufferPointer, _ message: String) throws(OTLPReadError) -> JSONObject? {
        let whitespace: [UInt8] = [0x20, 0x0A, 0x0D, 0x09]
        if bytes.allSatisfy({ whitespace.contains($0) }) { return nil }
        var treeBytes = 0
        let root: JSONValue
        do {
            root = try JSONParser.parse(
                bytes.bindMemory(to: UInt8.self), maxDepth: maxJSONNestingDepth, maxTreeBytes: maxDecodedBytes,
                treeBytes: &treeBytes)
        } catch {
            let code: OTLPReadError.Code =
                switch error.kind {
                case .nestingTooDeep: .nestingTooDeep
                case .treeTooLarge: .recordTooLarge
                case .unexpectedEnd, .unexpectedToken, .invalidNumber, .invalidString, .invalidEscape: .malformedJSON
                }
            throw OTLPReadError(code, "\(message) JSON: \(error.message)", byteOffset: error.offset, offsetIn: .record)
        }
        do {
            return try JSONObject(root, path: "$", budget: JSONDecodingBudget(used: treeBytes, limit: maxDecodedBytes))
        } catch {
            throw OTLPReadError(error.code, "\(message) JSON: \(error.message)", offsetIn: .record)
        }
    }
}
