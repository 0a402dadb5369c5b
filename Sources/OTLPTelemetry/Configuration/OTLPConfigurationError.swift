import Foundation

/// An invalid configuration: which key, and what is wrong with it.
public struct OTLPConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Dotted path of the key (`batch.maxQueueSize`, `traces.framing`); empty for the document itself.
    public var keyPath: String
    /// What is wrong with the value.
    public var message: String

    /// An error at `keyPath` (dotted; empty for the whole document) saying `message`.
    package init(keyPath: String, message: String) {
        self.keyPath = keyPath
        self.message = message
    }

    /// The error a `JSONDecoder` failure means, with the key path it names.
    package init(decodingError: DecodingError) {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".").replacingOccurrences(
                of: ".[", with: "[")
        }
        switch decodingError {
        case .typeMismatch(let type, let context):
            self.init(keyPath: path(context.codingPath), message: "expected \(Self.describe(type))")
        case .valueNotFound(let type, let context):
            self.init(keyPath: path(context.codingPath), message: "expected \(Self.describe(type)), found null")
        case .keyNotFound(let key, let context):
            self.init(keyPath: path(context.codingPath + [key]), message: "is required")
        case .dataCorrupted(let context):
            let keyPath = path(context.codingPath)
            if keyPath.isEmpty {
                // Foundation puts the parser's reason (for example "Number 1e400 is not representable in
                // Swift.") in the underlying error.
                let reason = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
                self.init(keyPath: "", message: reason.map { "not valid JSON: \($0)" } ?? "not valid JSON")
            } else {
                self.init(keyPath: keyPath, message: "invalid value (\(context.debugDescription))")
            }
        @unknown default:
            self.init(keyPath: "", message: "\(decodingError)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type: "an integer"
        case is Double.Type: "a number"
        default: "\(type)"
        }
    }

    public var description: String { keyPath.isEmpty ? "configuration: \(message)" : "configuration key \(keyPath): \(message)" }
}
