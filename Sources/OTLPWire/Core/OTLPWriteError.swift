/// An error while writing OTLP data: its class (``code``), what was being done (``message``), and the
/// `errno` of a failed system call that caused it (``errno``).
///
/// Codes may be added in later versions, so compare with `==` rather than `switch` exhaustively:
///
/// ```swift
/// // Compiled copy: Tests/DocumentationExamples/OTLPWire/OTLPWireDocComments.swift
/// func readerClosedThePipe(_ error: OTLPWriteError) -> Bool {
///     error.code == .system && error.errno == EPIPE  // a write to a pipe whose reader has gone
/// }
/// ```
public struct OTLPWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of a write error. Its ``description`` is a machine-readable name (`system`).
    ///
    /// New codes may be added: compare with `==`, and keep a default branch when switching over one.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable {
            case io
            case system
            case compression
            case unframeable
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) {
            self.wrapped = wrapped
        }

        /// The machine-readable name of the class (`system`).
        public var description: String { wrapped.rawValue }

        /// A write, flush or sync to the sink failed (disk full, closed pipe, read-only file system), or a
        /// sink was used in a way it does not support.
        public static let io = Code(.io)
        /// A system call failed: ``OTLPWriteError/errno`` is the `errno` it set (`ENOSPC`, `ELOOP` for a
        /// symbolic link that is not followed, `EWOULDBLOCK` for an output locked by another pipeline,
        /// `EEXIST`).
        public static let system = Code(.system)
        /// The gzip compressor (libdeflate on Linux, zlib elsewhere) failed.
        public static let compression = Code(.compression)
        /// A record the framing cannot hold (for example a message over 4 GiB for a 4-byte length prefix, or
        /// a JSON line containing a newline); nothing of it was written.
        public static let unframeable = Code(.unframeable)
    }

    /// The class of the error.
    public var code: Code
    /// What was being done or what went wrong, in words (`cannot open traces.bin`).
    public var message: String
    /// The underlying error, where there is one: a failed system call (see ``errno``), a zlib or libdeflate failure.
    package var cause: (any Error)?

    /// An error of class `code`, described by `message`, caused by `cause`.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The `errno` a failed system call set, when that call caused this error (``Code/system``).
    public var errno: Int32? { (cause as? SystemCallError)?.errno }

    /// A write, flush or sync to the sink failed (``Code/io``).
    package static func io(_ message: String) -> Self {
        Self(code: .io, message: message)
    }

    /// A system call failed while doing `message` (`cannot open traces.bin`), setting `errno`
    /// (``Code/system``).
    package static func system(_ message: String, errno: Int32) -> Self {
        Self(code: .system, message: message, cause: SystemCallError(errno: errno))
    }

    /// The gzip compressor (libdeflate on Linux, zlib elsewhere) failed (``Code/compression``).
    package static func compression(_ message: String) -> Self {
        Self(code: .compression, message: message)
    }

    /// A record the framing cannot hold; nothing of it was written (``Code/unframeable``).
    package static func unframeable(_ message: String) -> Self {
        Self(code: .unframeable, message: message)
    }

    /// `write failed: cannot open traces.bin: Permission denied`: the class in words, the message, and for
    /// a failed system call the C library's text for its `errno`.
    public var description: String {
        switch code {
        case .io: "write failed: \(message)"
        case .system: "write failed: \(message)" + (cause.map { ": \($0)" } ?? "")
        case .compression: "compression failed: \(message)"
        case .unframeable: "record cannot be framed: \(message)"
        default: "\(code): \(message)"
        }
    }

    /// Whether two errors are the same: class and message equal, and causes both absent, equal `Equatable`
    /// values of one type, or (not `Equatable`) of one type with the same description.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && ErrorCause.equal(lhs.cause, rhs.cause)
    }
}
