import Foundation
import Logging

/// swift-otel's diagnostic log handler, counting what it reports lost: spans or log records dropped by a
/// full queue (`dropped_count`) and batches that failed to export (`batch_size`). swift-otel has no public
/// counters; these warnings are how it reports loss. Every message is also printed to standard error.
public struct SwiftOTelDiagnostics: LogHandler {
    /// The count every copy of the handler adds to.
    public final class LostItems: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0

        /// Items reported lost so far.
        public var value: Int { lock.withLock { count } }

        /// A count starting at 0.
        public init() {}

        /// Adds `items` to the count.
        public func add(_ items: Int) { lock.withLock { count += items } }
    }

    /// The count this handler adds to.
    public let lost: LostItems
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .warning

    /// A handler adding to `lost`.
    public init(lost: LostItems) { self.lost = lost }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let callMetadata = event.metadata { merged.merge(callMetadata) { $1 } }
        let message = event.message.description
        if message.hasPrefix("Failed to export batch"), let size = merged["batch_size"].flatMap({ Int("\($0)") }) {
            lost.add(size)
        } else if message.contains("were dropped"), let dropped = merged["dropped_count"].flatMap({ Int("\($0)") }) {
            lost.add(dropped)
        }
        FileHandle.standardError.write(Data("swift-otel \(event.level): \(message) \(merged)\n".utf8))
    }
}
