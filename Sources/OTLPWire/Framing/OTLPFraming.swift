/// How records follow one another in a file or stream.
public enum OTLPFraming: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A 4-byte big-endian length, then the message: the Collector file exporter's `format: proto`. The default.
    case u32be
    /// A protobuf varint length, then the message (protobuf's `writeDelimitedTo`).
    case varint
    /// One OTLP/JSON request per line: what the Collector's `otlpjsonfile` receiver reads. Readers also accept
    /// a single (pretty-printed) JSON request as the whole input.
    case jsonl
    /// One bare message, no framing (a `.pb` / `.binpb` file).
    case unframed = "none"

    public var description: String { rawValue }

    /// The framing a file name announces (`x.u32be.bin`, `x.varint.bin.gz`, `x.jsonl.zst`, `x.pb`), if any.
    package static func fromFileName(_ name: String) -> OTLPFraming? {
        var base = Substring(name.split(separator: "/").last ?? "")
        for suffix in [".gz", ".zst", ".zstd"] where base.hasSuffix(suffix) { base = base.dropLast(suffix.count) }
        if base.hasSuffix(".jsonl") || base.hasSuffix(".ndjson") { return .jsonl }
        if base.hasSuffix(".pb") || base.hasSuffix(".binpb") { return .unframed }
        if base.contains(".u32be") { return .u32be }
        if base.contains(".varint") { return .varint }
        return nil
    }
}
