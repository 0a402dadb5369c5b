import OTLPWire

/// Default diagnostic hooks.
public enum OTLPDiagnostics {
    /// Writes the message and a newline to standard error.
    @Sendable public static func standardError(_ message: String) {
        let line = Array("\(message)\n".utf8)
        try? line.withUnsafeBytes { bytes in Result { () throws(OTLPWriteError) in try OTLPFileSink.standardError.write(bytes) } }.get()
    }

    /// Text from outside (an environment variable, a collector's answer) made safe for a diagnostic line:
    /// at most `maxCharacters` characters (then "…"), control and format characters (escape sequences,
    /// line breaks, bidirectional overrides) escaped.
    package static func printable(_ text: String, maxCharacters: Int) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(maxCharacters) {
            shown += scalar.isTerminalControl ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return shown + (text.unicodeScalars.count > maxCharacters ? "…" : "")
    }
}
