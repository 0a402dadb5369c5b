import OTLPWire

/// Text from the input made safe to print on a terminal: what could move the cursor, clear the screen, set
/// the window title or fake a line (C0 and C1 control characters, DEL) is escaped, as are quotes and
/// backslashes, the way OTLP/JSON writes them (`\n`, `\u001b`). Everything else is kept as it is.
enum TerminalText {
    /// `text` cut to `maxCharacters` characters (then "…": a collector's message may be megabytes long), with
    /// control characters, quotes and backslashes escaped.
    static func escaped(_ text: String, maxCharacters: Int) -> String {
        escaped(text.count > maxCharacters ? text.prefix(maxCharacters) + "…" : text)
    }

    /// `text` with control characters, quotes and backslashes escaped (without surrounding quotes).
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.append(scalar)
                continue
            }
            switch scalar {
            case "\"": out.append(contentsOf: #"\""#.unicodeScalars)
            case "\\": out.append(contentsOf: #"\\"#.unicodeScalars)
            case "\n": out.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": out.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": out.append(contentsOf: #"\t"#.unicodeScalars)
            default:
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            }
        }
        return String(out)
    }

    /// What `Unicode.Scalar.isTerminalControl` names, and `"` and `\` (escaped as OTLP/JSON escapes them).
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isTerminalControl || scalar == "\"" || scalar == "\\"
    }
}
