internal import COTLPProto
internal import COTLPShims
internal import CProtobufC

/// Encodes traces, logs and metrics requests to OTLP protobuf bytes through the protoc-c bindings.
///
/// An encoder keeps its C memory (one arena for the structs of a request) and its output buffer between
/// calls, so encoding a stream of similar batches allocates nothing after the first. It is not thread-safe:
/// use one encoder per thread or task.
///
/// ```swift
/// // Compiled copy: Tests/DocumentationExamples/OTLPWire/OTLPWireDocComments.swift
/// func encodeSpans(_ spans: [OTLPSpan], resource: OTLPResource, scope: OTLPInstrumentationScope) -> [UInt8] {
///     let encoder = OTLPEncoder()  // one per thread: it reuses its memory from request to request
///     return encoder.encode(OTLPTracesData(resource: resource, scope: scope, items: spans))
/// }
/// ```
public final class OTLPEncoder {
    private let arena = ProtobufCArena()
    private var output: UnsafeMutableRawPointer
    private var outputCapacity: Int

    /// An encoder with a 64 KiB output buffer, grown as requests need.
    public init() {
        outputCapacity = 64 * 1024
        output = UnsafeMutableRawPointer.allocate(byteCount: outputCapacity, alignment: 16)
    }

    deinit {
        output.deallocate()
    }

    /// The `ExportTraceServiceRequest`, `ExportLogsServiceRequest` or `ExportMetricsServiceRequest` bytes of `data`.
    public func encode<Item: OTLPSignalItem>(_ data: OTLPSignalData<Item>) -> [UInt8] {
        withEncoded(data) { Array($0) }
    }

    /// Encodes `data` (any signal) and hands the bytes to `body`; they are valid only inside `body`.
    package func withEncoded<Item: OTLPSignalItem, R>(
        _ data: OTLPSignalData<Item>, _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        try withEncoded(data.payload, body)
    }

    /// Encodes the request `payload` holds (any signal) and hands the bytes to `body`; they are valid only
    /// inside `body`.
    package func withEncoded<R>(_ payload: OTLPPayload, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch payload {
        case .traces(let data): try withEncodedRequest(data, body)
        case .logs(let data): try withEncodedRequest(data, body)
        case .metrics(let data): try withEncodedRequest(data, body)
        }
    }

    /// Encodes `data` and hands `body` the bytes (valid only inside `body`) with what the encoder proved
    /// about them while building: whether readers would read them back (``OTLPReadabilityProof``).
    package func withEncoded<Item: OTLPSignalItem, R>(
        _ data: OTLPSignalData<Item>, proving body: (UnsafeRawBufferPointer, OTLPReadabilityProof) throws -> R
    ) rethrows -> R {
        switch data.payload {
        case .traces(let data): try withEncodedRequest(data, proving: body)
        case .logs(let data): try withEncodedRequest(data, proving: body)
        case .metrics(let data): try withEncodedRequest(data, proving: body)
        }
    }

    /// The request of any kind: the envelope is built and packed once for all.
    func withEncodedRequest<Item: ProtobufCItem, R>(
        _ data: OTLPSignalData<Item>, _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        try withEncodedRequest(data, proving: { bytes, _ in try body(bytes) })
    }

    /// ``withEncodedRequest(_:_:)``, with the builder's proof of readability.
    func withEncodedRequest<Item: ProtobufCItem, R>(
        _ data: OTLPSignalData<Item>, proving body: (UnsafeRawBufferPointer, OTLPReadabilityProof) throws -> R
    ) rethrows -> R {
        defer { arena.reset() }
        var builder = ProtobufCBuilder(arena: arena)
        let request = builder.request(data)
        let count = pack(bound: builder.packedSizeBound) { COTLPShims_pack_request(request, $0) }
        let proof = OTLPReadabilityProof(
            kind: Item.requestKind, census: builder.census, maxValueNesting: builder.maxValueNesting,
            maxItemAttributes: builder.maxItemAttributes, messageBytes: count)
        return try body(UnsafeRawBufferPointer(start: output, count: count), proof)
    }

    private func pack(bound: Int, _ packer: (UnsafeMutablePointer<UInt8>) -> Int) -> Int {
        let needed = bound + 64
        if needed > outputCapacity {
            output.deallocate()
            outputCapacity = max(needed, outputCapacity * 2)
            output = UnsafeMutableRawPointer.allocate(byteCount: outputCapacity, alignment: 16)
        }
        let count = packer(output.assumingMemoryBound(to: UInt8.self))
        // protobuf-c packs without bounds checks; the bound is computed to be safe, and this proves it held.
        precondition(count <= needed, "OTLPEncoder: packed \(count) bytes over the bound of \(needed)")
        return count
    }
}
