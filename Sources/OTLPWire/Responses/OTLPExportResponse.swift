/// A collector's answer to an accepted export: how many spans or log records it rejected, and why.
///
/// This is the body of a 2xx OTLP/HTTP response, an `ExportTraceServiceResponse` or
/// `ExportLogsServiceResponse` (see the [OTLP specification, "Partial
/// Success"](https://opentelemetry.io/docs/specs/otlp/#partial-success)). A response without a
/// `partial_success` (an empty body, or `{}` in JSON) is a full success: ``rejectedItems`` is 0 and
/// ``errorMessage`` is empty. A server MAY also send `partial_success` with 0 rejected items and a message,
/// a warning about a request it accepted in full.
///
/// Decode a body with ``init(protobuf:for:)`` or
/// ``init(json:for:)``, according to the response's `Content-Type`; both treat
/// every byte as hostile and throw an ``OTLPReadError``. ``encoded(for:)`` and ``jsonEncoded(for:)`` make
/// bodies, as a test server sends them.
///
/// ```swift
/// // Compiled copy: Tests/DocumentationExamples/OTLPWire/OTLPWireDocComments.swift
/// func describePartialSuccess(body: [UInt8]) throws -> String? {
///     let response = try OTLPExportResponse(protobuf: body, for: .traces)
///     if response.rejectedItems > 0 { return "\(response.rejectedItems) spans rejected: \(response.errorMessage)" }
///     return nil
/// }
/// ```
public struct OTLPExportResponse: Sendable, Equatable {
    /// The largest body the decoders read: 4 MiB (a response is a few hundred bytes). A larger body is
    /// refused with ``OTLPReadError/Code/recordTooLarge``, so a client SHOULD stop reading a body there.
    package static let maxBodyBytes = ResponseBody.maxBodyBytes

    /// The spans (traces) or log records (logs) the server rejected: `rejected_spans` or
    /// `rejected_log_records`, as the server sent it. It is not checked against the request, so it may be
    /// negative or larger than the number sent: clamp it before counting.
    public var rejectedItems: Int64
    /// The server's explanation of the rejection, or its warning; empty when it sent none.
    public var errorMessage: String

    /// A response that rejected `rejectedItems` items with `errorMessage` (default: a full success).
    public init(rejectedItems: Int64 = 0, errorMessage: String = "") {
        self.rejectedItems = rejectedItems
        self.errorMessage = errorMessage
    }

    /// Whether the server accepted everything without a word: no rejected items and no message.
    public var isFullSuccess: Bool { rejectedItems == 0 && errorMessage.isEmpty }

    /// The response message's name for `signal` (`ExportTraceServiceResponse`), for error messages.
    static func messageName(_ signal: OTLPSignal) -> String {
        switch signal {
        case .traces: "ExportTraceServiceResponse"
        case .logs: "ExportLogsServiceResponse"
        case .metrics: "ExportMetricsServiceResponse"
        }
    }
}
