/// Something a configuration holds that was read past without failing: which key, and why.
///
/// Programs tell warnings apart by ``code`` and ``keyPath``; ``description`` is the line for a person
/// (`unknown configuration key batch.maxQueueSise (ignored)`).
public struct OTLPConfigurationWarning: Sendable, Hashable, CustomStringConvertible {
    /// What kind of warning. More codes may be added; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case unknownKey
            case environmentVariable
        }

        private let value: Value

        private init(_ value: Value) { self.value = value }

        /// A key that no setting has; it is ignored.
        public static let unknownKey = Code(.unknownKey)
        /// An environment variable whose value is malformed or not supported; the ``keyPath`` is its name
        /// and the ``message`` says what became of it (usually `ignored`).
        public static let environmentVariable = Code(.environmentVariable)

        /// The words that start a warning's ``OTLPConfigurationWarning/description``.
        public var description: String {
            switch value {
            case .unknownKey: "unknown configuration key"
            case .environmentVariable: "environment variable"
            }
        }
    }

    /// What kind of warning.
    public var code: Code
    /// The key, one element per level of nesting (`["batch", "maxQueueSise"]`). An element is a JSON key as
    /// written, so it may itself hold a dot. For an ``Code/environmentVariable`` warning: one element, the
    /// variable's name (`["OTEL_BSP_MAX_QUEUE_SIZE"]`).
    public var keyPath: [String]
    /// What became of the key (`ignored`).
    public var message: String

    /// A warning of kind `code` about the key at `keyPath`.
    package init(code: Code, keyPath: [String], message: String) {
        self.code = code
        self.keyPath = keyPath
        self.message = message
    }

    /// An unknown key, ignored.
    package static func unknownKey(_ keyPath: [String]) -> OTLPConfigurationWarning {
        OTLPConfigurationWarning(code: .unknownKey, keyPath: keyPath, message: "ignored")
    }

    /// A malformed or unsupported environment variable: `message` says what is wrong and what became of it.
    package static func environmentVariable(_ name: String, _ message: String) -> OTLPConfigurationWarning {
        OTLPConfigurationWarning(code: .environmentVariable, keyPath: [name], message: message)
    }

    /// ``keyPath`` joined with dots (`batch.maxQueueSise`).
    package var dottedKeyPath: String { keyPath.joined(separator: ".") }

    /// `<code> <key path> (<message>)`: `unknown configuration key batch.maxQueueSise (ignored)`,
    /// `environment variable OTEL_BSP_MAX_QUEUE_SIZE (not an integer: "lots"; ignored)`.
    public var description: String { "\(code) \(dottedKeyPath) (\(message))" }
}
