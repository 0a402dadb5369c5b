/// An error while writing OTLP data.
public enum OTLPWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A write, flush or sync to the sink failed (disk full, closed pipe, read-only file system).
    case io(String)
    /// zlib failed while compressing.
    case compression(String)
    /// A record too large for its framing's length prefix (`u32be` holds at most 4 GiB - 1); nothing was written.
    case recordTooLarge(String)

    public var description: String {
        switch self {
        case .io(let message): "write failed: \(message)"
        case .compression(let message): "compression failed: \(message)"
        case .recordTooLarge(let message): "record too large: \(message)"
        }
    }
}
