import ArgumentParser
import OTLPWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered writing to standard output; diagnostics go straight to standard error.
///
/// Every write is checked. A closed pipe (the reader went away: `otlp-dump … | head`) only stops the
/// output, quietly; any other failure (`> /dev/full`, a full disk, an I/O error) also stops it and is kept
/// in ``failure`` for ``finish(status:)`` to report: exit status 2.
final class Output {
    nonisolated(unsafe) static let standard = Output(sink: .standardOutput, descriptor: 1)
    private let sink: OTLPFileSink
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Set when writing stopped (closed pipe or a write error): stop producing.
    private(set) var isBroken = false
    /// The write error that stopped the output, unless it was a closed pipe.
    private(set) var failure: OTLPWriteError?

    init(sink: OTLPFileSink, descriptor: Int32) {
        self.sink = sink
        self.descriptor = descriptor
        buffer.reserveCapacity(1 << 16)
    }

    var isTerminal: Bool { isatty(descriptor) == 1 }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard !isBroken, !buffer.isEmpty else { return }
        do {
            try buffer.withUnsafeBytes { bytes in Result { () throws(OTLPWriteError) in try sink.write(bytes) } }.get()
        } catch {
            isBroken = true  // nothing that follows can be written either
            if !Self.isClosedPipe(error) { failure = error }
        }
    }

    /// Flushes, then the command's exit status: `status`, unless a write failed other than on a closed
    /// pipe; then that failure is reported on stderr and the status is ``ExitStatus/ioError`` (2).
    func finish(status: ExitCode) -> ExitCode {
        flush()
        guard let failure else { return status }
        Self.diagnostic(Self.writeFailure(failure, path: "<stdout>"))
        return ExitStatus.ioError
    }

    /// Whether a write failed because the reader closed its pipe (`EPIPE`; `SIGPIPE` is ignored by the sink).
    static func isClosedPipe(_ error: OTLPWriteError) -> Bool {
        error.errno == EPIPE
    }

    /// The diagnostic for a failed write to `path`: `PATH: write failed: <errno text>` (the sink's own
    /// message would name the path a second time).
    static func writeFailure(_ error: OTLPWriteError, path: String) -> String {
        if error.errno != nil, let cause = error.cause { return "\(path): write failed: \(cause)" }
        return "\(path): \(error)"
    }

    /// One diagnostic line on standard error, prefixed with the program name.
    static func diagnostic(_ message: String) {
        standard.flush()
        let line = Array("otlp-dump: \(message)\n".utf8)
        try? line.withUnsafeBytes { bytes in Result { () throws(OTLPWriteError) in try OTLPFileSink.standardError.write(bytes) } }.get()
    }

    /// Writes `text` to standard error as it is (a progress line redrawn in place).
    static func diagnosticRaw(_ text: String) {
        let bytes = Array(text.utf8)
        try? bytes.withUnsafeBytes { bytes in Result { () throws(OTLPWriteError) in try OTLPFileSink.standardError.write(bytes) } }.get()
    }
}
