/// An error found while reading OTLP data: what went wrong and where.
///
/// ``Kind`` names the fault with the error classes of the OTLP test vectors (`truncated_record`,
/// `nesting_too_deep`, …). ``recordIndex`` is the 0-based index of the record that could not be read, which
/// is also the number of records delivered before it; ``byteOffset`` is where the fault was found, in the
/// decompressed record stream or in the file as stored (``offsetIn``).
public struct OTLPReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of a fault.
    public enum Kind: String, Sendable, CaseIterable {
        case truncatedLengthPrefix = "truncated_length_prefix"
        case truncatedRecord = "truncated_record"
        case recordTooLarge = "record_too_large"
        case badLengthPrefix = "bad_length_prefix"
        case malformedProtobuf = "malformed_protobuf"
        case nestingTooDeep = "nesting_too_deep"
        case tooManyAttributes = "too_many_attributes"
        case wrongKind = "wrong_kind"
        /// The content reads as traces and as logs alike (no spans or log records decide it) and no file
        /// name token says which: give the signal (`--signal`).
        case ambiguousSignal = "ambiguous_signal"
        /// A request of a signal this package does not read: OTLP metrics or profiles.
        case unsupportedSignal = "unsupported_signal"
        /// Input compressed with something other than gzip (zstd, xz, bzip2, lz4, zip).
        case unsupportedCompression = "unsupported_compression"
        case gzipBadHeader = "gzip_bad_header"
        case gzipTruncated = "gzip_truncated"
        case gzipCRCMismatch = "gzip_crc_mismatch"
        case gzipSizeMismatch = "gzip_size_mismatch"
        case gzipCorrupt = "gzip_corrupt"
        case gzipTooLarge = "gzip_too_large"
        case malformedJSON = "malformed_json"
        case lineTooLong = "line_too_long"
        case io = "io_error"
        /// Reader or decoder options outside their documented ranges (nothing was read).
        case invalidOptions = "invalid_options"
    }

    /// Where ``OTLPReadError/byteOffset`` counts from.
    public enum OffsetBase: String, Sendable {
        /// The record stream after decompression.
        case stream
        /// The file as stored (gzip faults).
        case file
        /// The start of the record's message bytes.
        case record
    }

    public var kind: Kind
    /// Index of the faulty record (= records delivered before it); `nil` when not about one record.
    public var recordIndex: Int?
    public var byteOffset: Int?
    public var offsetIn: OffsetBase
    /// What went wrong, in words.
    public var message: String

    public init(_ kind: Kind, _ message: String, recordIndex: Int? = nil, byteOffset: Int? = nil, offsetIn: OffsetBase = .stream) {
        self.kind = kind
        self.message = message
        self.recordIndex = recordIndex
        self.byteOffset = byteOffset
        self.offsetIn = offsetIn
    }

    public var description: String {
        var parts: [String] = []
        if let recordIndex { parts.append("record \(recordIndex)") }
        if let byteOffset { parts.append("byte offset \(byteOffset)\(offsetIn == .stream ? "" : " (\(offsetIn.rawValue))")") }
        let location = parts.isEmpty ? "" : parts.joined(separator: ", ") + ": "
        return "\(location)\(kind.rawValue): \(message)"
    }
}
