/// Compression of OTLP/HTTP request bodies (`Content-Encoding`).
public enum OTLPCompression: String, Sendable, Hashable, CaseIterable, Encodable, OTLPConfigurationDecodable, CustomStringConvertible {
    /// `gzip`: the body is gzip-compressed and sent with `Content-Encoding: gzip`. The default.
    case gzip
    /// `none`: the body is sent as it is.
    case none

    /// Decodes `gzip` or `none`; any other string is an error saying what is accepted.
    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(String.self)
        guard let parsed = Self(rawValue: value) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "must be gzip or none"))
        }
        self = parsed
    }

    /// The raw value (`gzip`).
    public var description: String { rawValue }
}
