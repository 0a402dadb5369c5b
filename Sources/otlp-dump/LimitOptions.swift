import ArgumentParser
import OTLPWire

/// The readers' limits as options (OTLPWire.docc/FileFormats.md, "Limits and errors"); shared by every command that reads.
struct LimitOptions: ParsableArguments {
    // The three limits below are named as in OTLPDecodingOptions; the help states their defaults.
    @Option(
        name: .customLong("max-record-bytes"),
        help: "Largest record accepted, in bytes (1...2147483647). (default: \(OTLPDecodingOptions.default.maxRecordBytes))")
    var maxRecordBytes: Int?

    @Option(
        name: .customLong("max-nesting-depth"),
        help: "Deepest message nesting accepted below the request (1...128). (default: \(OTLPDecodingOptions.default.maxNestingDepth))")
    var maxNestingDepth: Int?

    @Option(
        name: .customLong("max-attributes-per-item"),
        help:
            "Most attributes accepted on one span, event, link, log record, resource, scope, metric (metadata), data point or exemplar (0...1000000). (default: \(OTLPDecodingOptions.default.maxAttributesPerItem))"
    )
    var maxAttributesPerItem: Int?

    @Option(
        name: .customLong("max-decoded-bytes"),
        help:
            "Most memory decoding one record may take (protobuf-c's structs, the JSON tree and the model), as estimated before decoding (1...68719476736)."
    )
    var maxDecodedBytes: Int = OTLPDecodingOptions.default.maxDecodedBytes

    @Option(name: .customLong("max-line-bytes"), help: "Longest JSON line accepted, in bytes (1...2147483647).")
    var maxLineBytes: Int = OTLPReaderOptions.default.maxLineBytes

    @Option(name: .customLong("max-decompressed-bytes"), help: "Most bytes a gzip or zstd input may decompress to (0: no limit).")
    var maxDecompressedBytes: Int = Self.decompressedBytesOption(OTLPReaderOptions.default.maxDecompressedBytes)

    @Option(
        name: .customLong("max-inflation-ratio"),
        help: "Most decompressed bytes per compressed byte past the first 16 MiB (stops gzip and zstd bombs; 1...9223372036854775807).")
    var maxInflationRatio: Int = OTLPReaderOptions.default.maxInflationRatio

    /// `--max-decompressed-bytes` for a limit: 0 for none (`Int.max`).
    static func decompressedBytesOption(_ limit: Int) -> Int { limit == .max ? 0 : limit }

    private var recordBytes: Int { maxRecordBytes ?? OTLPDecodingOptions.default.maxRecordBytes }
    private var nestingDepth: Int { maxNestingDepth ?? OTLPDecodingOptions.default.maxNestingDepth }
    private var attributesPerItem: Int { maxAttributesPerItem ?? OTLPDecodingOptions.default.maxAttributesPerItem }

    func validate() throws {
        try Self.check("--max-record-bytes", recordBytes, OTLPDecodingOptions.maxRecordBytesRange)
        try Self.check("--max-nesting-depth", nestingDepth, OTLPDecodingOptions.maxNestingDepthRange)
        try Self.check("--max-attributes-per-item", attributesPerItem, OTLPDecodingOptions.maxAttributesPerItemRange)
        try Self.check("--max-decoded-bytes", maxDecodedBytes, OTLPDecodingOptions.maxDecodedBytesRange)
        try Self.check("--max-line-bytes", maxLineBytes, OTLPReaderOptions.maxLineBytesRange)
        guard maxDecompressedBytes >= 0 else { throw ValidationError("--max-decompressed-bytes must be 0 (no limit) or positive") }
        try Self.check("--max-inflation-ratio", maxInflationRatio, OTLPReaderOptions.maxInflationRatioRange)
    }

    /// A usage error (exit 64) naming the option and its range when `value` is outside it.
    private static func check(_ option: String, _ value: Int, _ range: ClosedRange<Int>) throws {
        guard range.contains(value) else {
            throw ValidationError("\(option) must be in \(range.lowerBound)...\(range.upperBound), got \(value)")
        }
    }

    /// Reader options with these limits, reading `framing`, `compression` and `signal` (`nil`: detected).
    func readerOptions(framing: OTLPFraming?, compression: OTLPFileCompression?, signal: OTLPSignal?) -> OTLPReaderOptions {
        OTLPReaderOptions(
            framing: framing, compression: compression, signal: signal,
            decoding: OTLPDecodingOptions(
                maxRecordBytes: recordBytes, maxNestingDepth: nestingDepth, maxAttributesPerItem: attributesPerItem,
                maxDecodedBytes: maxDecodedBytes),
            maxLineBytes: maxLineBytes, maxDecompressedBytes: maxDecompressedBytes == 0 ? .max : maxDecompressedBytes,
            maxInflationRatio: maxInflationRatio)
    }
}
