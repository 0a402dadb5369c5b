import ArgumentParser

/// The documented exit statuses (see `otlp-dump --help`).
enum ExitStatus {
    /// Damaged or invalid input.
    static let damagedInput = ExitCode(1)
    /// A file could not be opened, read or written.
    static let ioError = ExitCode(2)
    /// `send`: the collector refused data (wholly or partly) or stayed unreachable past the retries.
    static let collectorRefused = ExitCode(3)
}
