/// How a rotating file output names its rotated files: the number goes before the extension, so they keep it
/// (`traces.u32be.bin` rotates to `traces.1.u32be.bin`, `traces.2.u32be.bin`…, 1 the newest, as logrotate's
/// `extension` option does) and a glob on the extension (`traces*.u32be.bin`) matches every one.
///
/// The extension is the longest run of dot-separated parts at the end of the file name that are all known OTLP
/// file parts (``knownExtensionParts``: framings, `bin`, `pb`, `json`, compression); when the last part is not
/// one of them, the extension is that last part alone; a name without a dot has none. The stem (what is before
/// the extension) is never empty: `u32be.bin` has the stem `u32be`.
///
/// | Path | Rotated |
/// | --- | --- |
/// | `traces.u32be.bin` | `traces.1.u32be.bin` |
/// | `logs.u32be.bin.gz` | `logs.1.u32be.bin.gz` |
/// | `app.v2.jsonl` | `app.v2.1.jsonl` |
/// | `spans.data` | `spans.1.data` |
/// | `spans` | `spans.1` |
package struct OTLPRotatedFileName: Equatable, Sendable {
    /// The folder part of the path, with its trailing slash (empty for a bare file name).
    let directory: String
    /// The file name before the extension.
    let stem: String
    /// The extension with its leading dot (`.u32be.bin`), or empty.
    let fileExtension: String

    /// The file name parts that belong to an OTLP file's extension.
    static let knownExtensionParts: Set<Substring> = [
        "u32be", "varint", "jsonl", "ndjson", "json", "bin", "pb", "binpb", "proto", "otlp", "gz", "zst",
    ]

    package init(path: String) {
        let slash = path.lastIndex(of: "/")
        directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { path[path.index(after: $0)...] } ?? path[...]
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        // The first part always stays in the stem; a leading dot (a hidden file) belongs to it.
        let firstStemParts = parts.first?.isEmpty == true ? 2 : 1
        var extensionParts = 0
        while parts.count - extensionParts > firstStemParts,
            Self.knownExtensionParts.contains(parts[parts.count - 1 - extensionParts])
        {
            extensionParts += 1
        }
        if extensionParts == 0 && parts.count > firstStemParts && !(parts.last?.isEmpty ?? true) { extensionParts = 1 }
        stem = parts.dropLast(extensionParts).joined(separator: ".")
        fileExtension = extensionParts == 0 ? "" : "." + parts.suffix(extensionParts).joined(separator: ".")
    }

    /// The path of rotated file number `index` (1 is the newest).
    func path(index: Int) -> String {
        "\(directory)\(stem).\(index)\(fileExtension)"
    }

    /// The number of a rotated file named `name` (a name in ``directory``), or `nil` when `name` is not one:
    /// exactly `STEM.N.EXT` with `N` a decimal number from 1 to `Int.max` written without leading zeros.
    package func index(ofName name: String) -> Int? {
        let prefix = stem + "."
        guard name.hasPrefix(prefix), name.hasSuffix(fileExtension), name.utf8.count > prefix.utf8.count + fileExtension.utf8.count
        else { return nil }
        let digits = name.dropFirst(prefix.count).dropLast(fileExtension.count)
        guard let first = digits.first, first != "0", digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }
}
