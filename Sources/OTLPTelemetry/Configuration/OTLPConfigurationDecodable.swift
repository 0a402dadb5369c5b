package import Foundation

/// A configuration value the package's loaders read from JSON (``OTLPTelemetryConfiguration/load(json:)``, the
/// app configuration's loader). Decoding is not part of the configuration types' public API: users build a
/// configuration in Swift or load it through those loaders, so the types are `Encodable` but not `Decodable`,
/// and decode through ``OTLPConfigurationDecoding`` inside the package.
package protocol OTLPConfigurationDecodable {
    /// Reads the value from `decoder`, every key optional unless said otherwise, unknown keys reported
    /// (`Decoder.reportUnknownKeys(_:)`).
    init(configurationFrom decoder: any Decoder) throws
}

/// A configuration value as a `Decodable`, for `JSONDecoder` and decoding containers.
package struct OTLPConfigurationDecoding<Value: OTLPConfigurationDecodable>: Decodable {
    /// The decoded value.
    package var value: Value

    package init(from decoder: any Decoder) throws {
        value = try Value(configurationFrom: decoder)
    }
}

extension KeyedDecodingContainer {
    /// The configuration section under `key`, or `nil` when the key is absent or `null`.
    package func decodeIfPresent<Value: OTLPConfigurationDecodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        try decodeIfPresent(OTLPConfigurationDecoding<Value>.self, forKey: key)?.value
    }
}

extension JSONDecoder {
    /// A configuration value read from the JSON document `data`.
    package func decode<Value: OTLPConfigurationDecodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try decode(OTLPConfigurationDecoding<Value>.self, from: data).value
    }
}

extension OTLPConfigurationDecodable where Self: RawRepresentable, RawValue == String {
    /// One of the raw values (`"flush"`, `"u32be"`); any other string is an error naming the key, worded as
    /// `Decodable`'s own.
    package init(configurationFrom decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(rawValue: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "Cannot initialize \(Self.self) from invalid String value \(text)"))
        }
        self = value
    }
}
