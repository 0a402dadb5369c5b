#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered writing to standard output; diagnostics go straight to standard error.
final class Output {
    nonisolated(unsafe) static let standard = Output(descriptor: 1)
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Set when the reader of our output went away (closed pipe): stop producing.
    private(set) var isBroken = false

    init(descriptor: Int32) {
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
        var offset = 0
        while offset < buffer.count, !isBroken {
            let written = buffer.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                isBroken = true  // EPIPE and friends: nobody reads what follows
                break
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// One diagnostic line on standard error, prefixed with the program name.
    static func diagnostic(_ message: String) {
        standard.flush()
        let line = Array("otlp-dump: \(message)\n".utf8)
        _ = line.withUnsafeBytes { systemWrite(2, $0.baseAddress!, $0.count) }
    }
}

@inline(__always)
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, buffer, count)
    #else
    Darwin.write(fd, buffer, count)
    #endif
}
