/// Recognises compressed formats other than gzip and zstd by their magic numbers, so that such input is reported
/// as not supported instead of being read as records (an xz file's first bytes make a 4.2 GB u32be prefix).
enum ForeignCompression {
    /// The most bytes a magic number here takes.
    static let maxMagicBytes = 10

    private static let magics: [(name: String, tool: String, magic: [UInt8?])] = [
        ("xz", "xz -d", [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]),
        ("lzma", "xz -d", [0x5D, 0x00, 0x00]),
        ("bzip2", "bzip2 -d", [0x42, 0x5A, 0x68]),
        ("lz4", "lz4 -d", [0x04, 0x22, 0x4D, 0x18]),
        ("lz4 (legacy)", "lz4 -d", [0x02, 0x21, 0x4C, 0x18]),
        ("zip", "unzip", [0x50, 0x4B, 0x03, 0x04]),
        ("7z", "7z x", [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]),
        ("snappy (framed)", "a snappy tool", [0xFF, 0x06, 0x00, 0x00, 0x73, 0x4E, 0x61, 0x50, 0x70, 0x59]),
    ]

    /// The error for input whose first bytes are another compressor's magic number; `nil` when they are not.
    static func fault(head: [UInt8]) -> OTLPReadError? {
        for entry in magics where head.count >= entry.magic.count {
            guard zip(entry.magic, head).allSatisfy({ $0.0 == nil || $0.0 == $0.1 }) else { continue }
            if entry.name == "bzip2", !(UInt8(ascii: "1")...UInt8(ascii: "9")).contains(head.count > 3 ? head[3] : 0) { continue }
            let hex = head.prefix(entry.magic.count).map {
                String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
            }
            return OTLPReadError(
                .unsupportedCompression,
                "\(entry.name)-compressed input (starts \(hex.joined(separator: " "))) is not supported: only gzip and zstd are read; decompress it first (\(entry.tool))",
                recordIndex: 0, byteOffset: 0, offsetIn: .file)
        }
        return nil
    }
}
