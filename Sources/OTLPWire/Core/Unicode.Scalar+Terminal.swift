extension Unicode.Scalar {
    /// Whether the scalar must not reach a terminal or a log line as it is: C0 controls (U+0000–U+001F), DEL and
    /// C1 controls (U+007F–U+009F), which move the cursor, clear the screen or fake a line, and format characters
    /// (bidirectional overrides such as U+202E, which reorder what is shown, zero-width ones). Every diagnostic
    /// and `otlp-dump`'s output escape these. (`otlp-dump`'s tree fuzz target links this file too.)
    package var isTerminalControl: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || (value >= 0xA0 && properties.generalCategory == .format)
    }
}
