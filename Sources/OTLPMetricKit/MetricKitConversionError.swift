/// A payload that cannot be converted: where (JSON path) and why.
public struct MetricKitConversionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// JSON path of the offending value (`$.memoryMetrics.peakMemoryUsage`), or `$` for the document.
    public var path: String
    /// What is wrong with the value.
    public var message: String

    /// An error at `path` (a JSON path) saying `message`.
    package init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
