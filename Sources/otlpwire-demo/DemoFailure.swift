import ArgumentParser

/// A failure the demo reports as one line on stderr (`otlpwire-demo: <message>`) before exiting with
/// `status`.
struct DemoFailure: Error, CustomStringConvertible {
    /// The exit statuses, as otlp-dump's.
    enum Status: Int32 {
        /// Telemetry was dropped, or the configuration is invalid.
        case dataError = 1
        /// A file or folder could not be read, created or written.
        case ioError = 2
        /// Wrong arguments.
        case usage = 64
    }

    var message: String
    var status: Status

    init(_ message: String, status: Status) {
        self.message = message
        self.status = status
    }

    var description: String { message }
}
