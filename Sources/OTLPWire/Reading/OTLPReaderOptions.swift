/// How an ``OTLPRecordReader`` reads its input.
///
/// Every limit has a documented range; a reader refuses options outside it with
/// ``OTLPReadError/Code/invalidOptions``.
public struct OTLPReaderOptions: Sendable, Equatable {
    /// The framing; `nil` (the default) detects it from the file name, then from the content.
    public var framing: OTLPFraming?
    /// The compression; `nil` (the default) detects it from the first bytes: gzip's and zstd's magic numbers
    /// start a compressed stream, a `u32be` prefix followed by zstd's starts a file of zstd records.
    public var compression: OTLPFileCompression?
    /// The signal; `nil` (the default) decides it from the content's evidence, then a whole `traces`/`logs`
    /// token of the file name, else reading ends with `ambiguous_signal` (see ``OTLPRecordReader``).
    public var signal: OTLPSignal?
    /// Limits for each record (size applies to length prefixes too; nesting depth).
    public var decoding: OTLPDecodingOptions
    /// Longest JSON line accepted, in bytes. Default 8 MiB: a line is held whole while its JSON tree and
    /// model are built (both bounded by ``OTLPDecodingOptions/maxDecodedBytes``). Range 1...2,147,483,647.
    public var maxLineBytes: Int
    /// Most bytes a gzip or zstd input may decompress to (with zstd records, all records together), at least 1. Default (and maximum): `Int.max`, no limit.
    public var maxDecompressedBytes: Int
    /// Most decompressed bytes per compressed byte, checked once 16 MiB have been decompressed: stops a
    /// small file that inflates to gigabytes (deflate reaches about 1032:1 on zeros; OTLP data compresses
    /// 5-20:1). Default 200, at least 1; `Int.max` turns the check off.
    public var maxInflationRatio: Int
    /// Bytes read from the input at a time. Default 256 KiB, range 1 KiB to 64 MiB.
    public var chunkSize: Int

    /// The documented defaults: framing and signal detected, ``OTLPDecodingOptions/default`` limits.
    public static let `default` = OTLPReaderOptions(
        framing: nil, compression: nil, signal: nil, decoding: .default, maxLineBytes: 8 << 20, maxDecompressedBytes: .max,
        maxInflationRatio: 200,
        chunkSize: 256 * 1024)

    /// Options with ``default``'s values unless given; checked against their ranges by the reader.
    public init(
        framing: OTLPFraming? = OTLPReaderOptions.default.framing,
        compression: OTLPFileCompression? = OTLPReaderOptions.default.compression, signal: OTLPSignal? = OTLPReaderOptions.default.signal,
        decoding: OTLPDecodingOptions = OTLPReaderOptions.default.decoding, maxLineBytes: Int = OTLPReaderOptions.default.maxLineBytes,
        maxDecompressedBytes: Int = OTLPReaderOptions.default.maxDecompressedBytes,
        maxInflationRatio: Int = OTLPReaderOptions.default.maxInflationRatio, chunkSize: Int = OTLPReaderOptions.default.chunkSize
    ) {
        self.maxInflationRatio = maxInflationRatio
        self.framing = framing
        self.compression = compression
        self.signal = signal
        self.decoding = decoding
        self.maxLineBytes = maxLineBytes
        self.maxDecompressedBytes = maxDecompressedBytes
        self.chunkSize = chunkSize
    }

    /// Accepted values of ``maxLineBytes``: 1 byte to 2 GiB - 1.
    package static let maxLineBytesRange: ClosedRange<Int> = 1...Int(Int32.max)
    /// Accepted values of ``maxDecompressedBytes``: 1 byte to `Int.max` (no limit).
    package static let maxDecompressedBytesRange: ClosedRange<Int> = 1...Int.max
    /// Accepted values of ``maxInflationRatio``: 1 to `Int.max` (no limit).
    package static let maxInflationRatioRange: ClosedRange<Int> = 1...Int.max
    /// Accepted values of ``chunkSize``: 1 KiB to 64 MiB.
    package static let chunkSizeRange: ClosedRange<Int> = 1024...(64 << 20)

    /// Throws ``OTLPReadError/Code/invalidOptions`` naming the first limit outside its range.
    package func validate() throws(OTLPReadError) {
        try decoding.validate()
        try OTLPDecodingOptions.check("maxLineBytes", maxLineBytes, Self.maxLineBytesRange)
        try OTLPDecodingOptions.check("maxDecompressedBytes", maxDecompressedBytes, Self.maxDecompressedBytesRange)
        try OTLPDecodingOptions.check("maxInflationRatio", maxInflationRatio, Self.maxInflationRatioRange)
        try OTLPDecodingOptions.check("chunkSize", chunkSize, Self.chunkSizeRange)
    }
}
