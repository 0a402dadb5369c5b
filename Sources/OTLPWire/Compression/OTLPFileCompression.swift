/// How a file's bytes are compressed, as a reader reads them.
public enum OTLPFileCompression: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Not compressed.
    case none
    /// The whole stream is gzip: one or more members (RFC 1952).
    case gzip
    /// The whole stream is zstd: one or more frames (RFC 8878), as the Collector's file exporter writes with
    /// its `exporter.file.nativeCompression` feature gate, or the `zstd` tool.
    case zstd
    /// Each `u32be` record is one zstd frame of a message (protobuf or OTLP JSON): the Collector's file exporter
    /// with `compression: zstd`, and ``OTLPRecordWriter`` with `zstd`.
    case zstdRecords = "zstd-records"

    /// The raw value (`zstd-records`).
    public var description: String { rawValue }
}
