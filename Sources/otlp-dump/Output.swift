import OTLPWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered writing to standard output; diagnostics go straight to standard error.
final class Output {
    nonisolated(unsafe) static let standard = Output(sink: .standardOutput, descriptor: 1)
    private let sink: OTLPFileSink
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Set when the reader of our output went away (closed pipe): stop producing.
    private(set) var isBroken = false

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
            isBroken = true  // EPIPE and friends: nobody reads what follows
        }
    }

    /// One diagnostic line on standard error, prefixed with the program name.
    static func diagnostic(_ message: String) {
        standard.flush()
        let line = Array("otlp-dump: \(message)\n".utf8)
        try? line.withUnsafeBytes { bytes in Result { () throws(OTLPWriteError) in try OTLPFileSink.standardError.write(bytes) } }.get()
    }
}
