/// How an OTLP/HTTP request body is encoded: the values of the specification's `OTEL_EXPORTER_OTLP_PROTOCOL`
/// that HTTP supports (`grpc` is not supported).
public enum OTLPHTTPProtocol: String, Sendable, Hashable, CaseIterable, Encodable, OTLPConfigurationDecodable, CustomStringConvertible {
    /// `http/protobuf`: the binary protobuf request, `Content-Type: application/x-protobuf`. The default.
    case httpProtobuf = "http/protobuf"
    /// `http/json`: the OTLP JSON request, `Content-Type: application/json`.
    case httpJSON = "http/json"

    /// Decodes `http/protobuf` or `http/json`; any other string is an error saying what is accepted.
    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(String.self)
        guard let parsed = Self(rawValue: value) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: Self.rejection(of: value)))
        }
        self = parsed
    }

    /// Why `value` is not a protocol: `grpc` gets its own advice.
    static func rejection(of value: String) -> String {
        value.lowercased() == "grpc"
            ? "grpc is not supported, use http/protobuf"
            : "must be \(allCases.map(\.rawValue).joined(separator: " or "))"
    }

    /// The raw value (`http/protobuf`).
    public var description: String { rawValue }
}
