#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An error while writing OTLP data.
public enum OTLPWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A write, flush or sync to the sink failed (disk full, closed pipe, read-only file system).
    case io(String)
    /// A system call failed: what was being done (`cannot open traces.bin`) and the `errno` it set
    /// (`ENOSPC`, `ELOOP` for a symbolic link that is not followed, `EWOULDBLOCK` for an output locked by
    /// another pipeline, `EEXIST`).
    case system(String, errno: Int32)
    /// zlib failed while compressing.
    case compression(String)
    /// A record the framing cannot hold (for example a message over 4 GiB for a 4-byte length prefix, or a
    /// JSON line containing a newline); nothing of it was written.
    case unframeable(String)

    public var description: String {
        switch self {
        case .io(let message): "write failed: \(message)"
        case .system(let message, let code): "write failed: \(message): \(String(cString: strerror(code)))"
        case .compression(let message): "compression failed: \(message)"
        case .unframeable(let message): "record cannot be framed: \(message)"
        }
    }
}
