/// How an ``OTLPStreamReader`` reads its input.
public struct OTLPReaderOptions: Sendable {
    /// The framing; `nil` (the default) detects it from the file name, then from the content.
    public var framing: OTLPFraming?
    /// The signal; `nil` (the default) decides it from the content's evidence, then a whole `traces`/`logs`
    /// token of the file name, else reading ends with `ambiguous_signal` (see ``OTLPStreamReader``).
    public var signal: OTLPSignal?
    /// Limits for each message (size applies to length prefixes too; nesting depth).
    public var decoding: OTLPDecodingOptions
    /// Longest JSON line accepted, in bytes. Default 64 MiB.
    public var maxLineBytes: Int
    /// Most bytes a gzip input may decompress to. Default: unlimited.
    public var maxDecompressedBytes: Int
    /// Most decompressed bytes per compressed byte, checked once 16 MiB have been decompressed: stops a
    /// small file that inflates to gigabytes (deflate reaches about 1032:1 on zeros; OTLP data compresses
    /// 5-20:1). Default 200.
    public var maxInflationRatio: Int
    /// Bytes read from the input at a time. Default 256 KiB.
    public var chunkSize: Int

    public init(
        framing: OTLPFraming? = nil, signal: OTLPSignal? = nil, decoding: OTLPDecodingOptions = .default,
        maxLineBytes: Int = 64 << 20, maxDecompressedBytes: Int = .max, maxInflationRatio: Int = 200, chunkSize: Int = 256 * 1024
    ) {
        self.maxInflationRatio = maxInflationRatio
        self.framing = framing
        self.signal = signal
        self.decoding = decoding
        self.maxLineBytes = maxLineBytes
        self.maxDecompressedBytes = maxDecompressedBytes
        self.chunkSize = chunkSize
    }
}
