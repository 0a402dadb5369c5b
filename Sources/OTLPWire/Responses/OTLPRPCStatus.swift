/// A server's error body: a `google.rpc.Status`, which OTLP/HTTP servers send with a 4xx or 5xx response.
///
/// See the [OTLP specification, "Failures"](https://opentelemetry.io/docs/specs/otlp/#failures-1): the
/// body SHOULD be a `Status` in the request's encoding (protobuf or JSON), and ``message`` SHOULD say what
/// went wrong. ``code`` is a `google.rpc.Code` value (3 `INVALID_ARGUMENT`, 8 `RESOURCE_EXHAUSTED`, …).
/// Of the `details`, only their types are kept (``detailTypeURLs``).
///
/// Decode with ``init(protobuf:)`` or ``init(json:)``,
/// according to the response's `Content-Type`; both treat every byte as hostile and throw an
/// ``OTLPReadError``. ``encoded()`` and ``jsonEncoded()`` make bodies, as a test server sends them.
///
/// ```swift
/// // Compiled copy: Tests/DocumentationExamples/OTLPWire/OTLPWireDocComments.swift
/// func describeRefusal(body: [UInt8]) throws -> String {
///     let status = try OTLPRPCStatus(protobuf: body)
///     return "rejected with status \(status.code): \(status.message)"
/// }
/// ```
public struct OTLPRPCStatus: Sendable, Equatable {
    /// The largest body the decoders read: 4 MiB, as for `OTLPExportResponse`. A larger body is
    /// refused with ``OTLPReadError/Code/recordTooLarge``, so a client SHOULD stop reading a body there.
    package static let maxBodyBytes = ResponseBody.maxBodyBytes

    /// The `google.rpc.Code` value, as the server sent it (0 is `OK`; any `Int32` may arrive).
    public var code: Int32
    /// The server's description of the error, meant for a developer; empty when it sent none.
    public var message: String
    /// The type URL of each detail message, in order (`type.googleapis.com/google.rpc.ErrorInfo`); their
    /// contents are not read.
    public var detailTypeURLs: [String]

    /// A status with `code`, `message` and details of the types `detailTypeURLs` (with no contents).
    public init(code: Int32, message: String = "", detailTypeURLs: [String] = []) {
        self.code = code
        self.message = message
        self.detailTypeURLs = detailTypeURLs
    }

    /// The message's name, for error messages.
    static let messageName = "google.rpc.Status"
}
