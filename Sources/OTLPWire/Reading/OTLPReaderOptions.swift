/// How an ``OTLPStreamReader`` reads its input.
public struct OTLPReaderOptions: Sendable {
    /// The framing; `nil` (the default) detects it from the file name, then from the content.
    public var framing: OTLPFraming?
    /// The signal; `nil` (the default) detects it from the content (then the file name for empty input).
    public var signal: OTLPSignal?
    /// Limits for each message (size applies to length prefixes too; nesting depth).
    public var decoding: OTLPDecodingOptions
    /// Longest JSON line accepted, in bytes. Default 64 MiB.
    public var maxLineBytes: Int
    /// Most bytes a gzip input may decompress to. Default: unlimited.
    public var maxDecompressedBytes: Int
    /// Bytes read from the input at a time. Default 256 KiB.
    public var chunkSize: Int

    public init(
        framing: OTLPFraming? = nil, signal: OTLPSignal? = nil, decoding: OTLPDecodingOptions = .default,
        maxLineBytes: Int = 64 << 20, maxDecompressedBytes: Int = .max, chunkSize: Int = 256 * 1024
    ) {
        self.framing = framing
        self.signal = signal
        self.decoding = decoding
        self.maxLineBytes = maxLineBytes
        self.maxDecompressedBytes = maxDecompressedBytes
        self.chunkSize = chunkSize
    }
}
