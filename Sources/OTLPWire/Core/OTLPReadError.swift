/// An error found while reading OTLP data: what went wrong and where.
///
/// ``code`` names the fault with the error classes of the OTLP test vectors (`truncated_record`,
/// `nesting_too_deep`, …). ``recordIndex`` is the 0-based index of the record that could not be read, which
/// is also the number of records delivered before it; ``byteOffset`` is where the fault was found, in the
/// decompressed record stream or in the file as stored (``offsetIn``). The ``message`` says what an
/// underlying error (a failed system call, a zlib failure) adds.
///
/// Codes may be added in later versions, so compare with `==` rather than `switch` exhaustively:
///
/// ```swift
/// // Compiled copy: Tests/DocumentationExamples/OTLPWire/OTLPWireDocComments.swift
/// func isOverALimit(_ error: OTLPReadError) -> Bool {
///     error.code == .recordTooLarge || error.code == .nestingTooDeep || error.code == .tooManyAttributes
/// }
/// ```
public struct OTLPReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of a fault. Its ``description`` is the machine-readable name (`record_too_large`).
    ///
    /// New codes may be added: compare with `==`, and keep a default branch when switching over one. The
    /// classes a program acts on (input cut short, a limit reached, bad options, I/O) have a member here; the
    /// other kinds of damaged or unsupported input (a bad length prefix, corrupt gzip or zstd data, another
    /// signal or compression) are told apart by ``description``.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable {
            case truncatedLengthPrefix = "truncated_length_prefix"
            case truncatedRecord = "truncated_record"
            case recordTooLarge = "record_too_large"
            case badLengthPrefix = "bad_length_prefix"
            case malformedProtobuf = "malformed_protobuf"
            case nestingTooDeep = "nesting_too_deep"
            case tooManyAttributes = "too_many_attributes"
            case wrongKind = "wrong_kind"
            case ambiguousSignal = "ambiguous_signal"
            case unsupportedSignal = "unsupported_signal"
            case unsupportedCompression = "unsupported_compression"
            case gzipBadHeader = "gzip_bad_header"
            case gzipTruncated = "gzip_truncated"
            case gzipCRCMismatch = "gzip_crc_mismatch"
            case gzipSizeMismatch = "gzip_size_mismatch"
            case gzipCorrupt = "gzip_corrupt"
            case gzipTooLarge = "gzip_too_large"
            case zstdTruncated = "zstd_truncated"
            case zstdCorrupt = "zstd_corrupt"
            case zstdTooLarge = "zstd_too_large"
            case malformedJSON = "malformed_json"
            case lineTooLong = "line_too_long"
            case io = "io_error"
            case invalidOptions = "invalid_options"
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) {
            self.wrapped = wrapped
        }

        /// The machine-readable name of the class, as in the test vectors' manifests (`record_too_large`).
        public var description: String { wrapped.rawValue }

        /// `truncated_length_prefix`: the input ends inside a record's length prefix.
        public static let truncatedLengthPrefix = Code(.truncatedLengthPrefix)
        /// `truncated_record`: the input ends inside a record.
        public static let truncatedRecord = Code(.truncatedRecord)
        /// `record_too_large`: a record, or the memory to decode it, exceeds a limit.
        public static let recordTooLarge = Code(.recordTooLarge)
        /// `bad_length_prefix`: a length prefix that cannot be valid (an overlong varint).
        package static let badLengthPrefix = Code(.badLengthPrefix)
        /// `malformed_protobuf`: a record that is not a valid protobuf message of its signal.
        public static let malformedProtobuf = Code(.malformedProtobuf)
        /// `nesting_too_deep`: messages or JSON nested deeper than the limit.
        public static let nestingTooDeep = Code(.nestingTooDeep)
        /// `too_many_attributes`: an item with more attributes than the limit.
        public static let tooManyAttributes = Code(.tooManyAttributes)
        /// `wrong_kind`: a request of another signal than the one being read.
        public static let wrongKind = Code(.wrongKind)
        /// `ambiguous_signal`: the content reads as traces and as logs alike (no spans, log records or metrics
        /// decide it) and no file name token says which: give the signal (`--signal`).
        public static let ambiguousSignal = Code(.ambiguousSignal)
        /// `unsupported_signal`: a request of a signal this package does not read: OTLP profiles.
        package static let unsupportedSignal = Code(.unsupportedSignal)
        /// `unsupported_compression`: input compressed with something other than gzip or zstd (xz, bzip2, lz4,
        /// zip).
        package static let unsupportedCompression = Code(.unsupportedCompression)
        /// `gzip_bad_header`: bytes that do not start a gzip member, or an invalid member header.
        package static let gzipBadHeader = Code(.gzipBadHeader)
        /// `gzip_truncated`: the input ends inside a gzip member.
        public static let gzipTruncated = Code(.gzipTruncated)
        /// `gzip_crc_mismatch`: a gzip member's CRC-32 does not match its content.
        package static let gzipCRCMismatch = Code(.gzipCRCMismatch)
        /// `gzip_size_mismatch`: a gzip member's ISIZE does not match its content length.
        package static let gzipSizeMismatch = Code(.gzipSizeMismatch)
        /// `gzip_corrupt`: invalid compressed data inside a gzip member.
        package static let gzipCorrupt = Code(.gzipCorrupt)
        /// `gzip_too_large`: input that inflates past the decompressed size or inflation ratio limit.
        public static let gzipTooLarge = Code(.gzipTooLarge)
        /// `zstd_truncated`: the input (or a record) ends inside a zstd frame.
        public static let zstdTruncated = Code(.zstdTruncated)
        /// `zstd_corrupt`: bytes that do not start a zstd frame where one must be, or invalid data or a wrong
        /// checksum inside a frame.
        package static let zstdCorrupt = Code(.zstdCorrupt)
        /// `zstd_too_large`: zstd input that decompresses past the decompressed size or inflation ratio limit, or
        /// a frame that needs a larger window than the reader allows.
        public static let zstdTooLarge = Code(.zstdTooLarge)
        /// `malformed_json`: a JSON line that is not valid JSON or not a valid OTLP JSON request.
        public static let malformedJSON = Code(.malformedJSON)
        /// `line_too_long`: a JSON line longer than the limit.
        public static let lineTooLong = Code(.lineTooLong)
        /// `io_error`: the input could not be opened or read, or zlib failed.
        public static let io = Code(.io)
        /// `invalid_options`: reader or decoder options outside their documented ranges (nothing was read).
        public static let invalidOptions = Code(.invalidOptions)
    }

    /// Where ``OTLPReadError/byteOffset`` counts from.
    public enum OffsetBase: String, Sendable {
        /// The record stream after decompression.
        case stream
        /// The file as stored (gzip and zstd faults).
        case file
        /// The start of the record's message bytes.
        case record
    }

    /// The class of the fault.
    public var code: Code
    /// Index of the faulty record (= records delivered before it); `nil` when not about one record.
    public var recordIndex: Int?
    /// Where the fault was found, counted from ``offsetIn``; `nil` when not known.
    public var byteOffset: Int?
    /// Where ``byteOffset`` counts from.
    public var offsetIn: OffsetBase
    /// What went wrong, in words.
    public var message: String
    /// The underlying error, where there is one: a failed system call (its `errno`), a zlib or libzstd failure.
    package var cause: (any Error)?

    /// An error of class `code`, described by `message`, found at `byteOffset` of record `recordIndex`.
    public init(
        _ code: Code, _ message: String, recordIndex: Int? = nil, byteOffset: Int? = nil, offsetIn: OffsetBase = .stream,
        cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.recordIndex = recordIndex
        self.byteOffset = byteOffset
        self.offsetIn = offsetIn
        self.cause = cause
    }

    /// `record 3, byte offset 120: truncated_record: <message>`: the location, the class and the message
    /// (not the cause: the message already says what it adds).
    public var description: String {
        var parts: [String] = []
        if let recordIndex { parts.append("record \(recordIndex)") }
        if let byteOffset { parts.append("byte offset \(byteOffset)\(offsetIn == .stream ? "" : " (\(offsetIn.rawValue))")") }
        let location = parts.isEmpty ? "" : parts.joined(separator: ", ") + ": "
        return "\(location)\(code): \(message)"
    }

    /// Whether two errors are the same: class, location and message equal, and causes both absent, equal
    /// `Equatable` values of one type, or (not `Equatable`) of one type with the same description.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.code == rhs.code && lhs.recordIndex == rhs.recordIndex && lhs.byteOffset == rhs.byteOffset
            && lhs.offsetIn == rhs.offsetIn && lhs.message == rhs.message && ErrorCause.equal(lhs.cause, rhs.cause)
    }
}

extension OTLPReadError {
    /// `noun` behind its indefinite article, for messages naming what holds a fault: `a span`, `an exemplar`.
    static func withArticle(_ noun: String) -> String {
        (noun.first.map { "aeiou".contains($0) } == true ? "an " : "a ") + noun
    }
}
