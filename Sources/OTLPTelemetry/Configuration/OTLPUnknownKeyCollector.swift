import Foundation

/// Collects the keys a configuration document has and its decoding does not read.
///
/// Each configuration type's `init(configurationFrom:)` calls ``Swift/Decoder/reportUnknownKeys(_:)`` with the
/// `CodingKeys` it decodes, so the keys known to the check are the keys the decoding reads: there is no
/// second list to keep in step. A decoder without a collector in its `userInfo` (any decoding outside
/// ``OTLPTelemetryConfiguration/load(json:)``) reports nothing.
package final class OTLPUnknownKeyCollector: @unchecked Sendable {
    /// Where a decoder's `userInfo` holds the collector.
    package static let userInfoKey = CodingUserInfoKey(rawValue: "OTLPUnknownKeyCollector")!

    private let lock = NSLock()
    private var collected: [OTLPConfigurationWarning] = []

    package init() {}

    /// The warnings so far, in key path order (level by level, keys sorted).
    package var warnings: [OTLPConfigurationWarning] {
        lock.withLock { collected }.sorted { $0.keyPath.lexicographicallyPrecedes($1.keyPath) }
    }

    fileprivate func add(_ warning: OTLPConfigurationWarning) {
        lock.withLock { collected.append(warning) }
    }
}

extension Decoder {
    /// Reports to the decoder's ``OTLPUnknownKeyCollector``, if it has one, every key of the object being
    /// decoded that `Keys` does not have.
    package func reportUnknownKeys<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws {
        guard let collector = userInfo[OTLPUnknownKeyCollector.userInfoKey] as? OTLPUnknownKeyCollector else { return }
        let known = Set(Keys.allCases.map(\.stringValue))
        let path = codingPath.map(\.stringValue)
        for key in try container(keyedBy: AnyConfigurationKey.self).allKeys where !known.contains(key.stringValue) {
            collector.add(.unknownKey(path + [key.stringValue]))
        }
    }
}

/// Any key of a JSON object.
private struct AnyConfigurationKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
