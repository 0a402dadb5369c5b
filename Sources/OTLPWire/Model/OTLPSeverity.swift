/// A log severity number of the OpenTelemetry log data model (1...24; 0 is unspecified).
public struct OTLPSeverity: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 0: no severity given.
    public static let unspecified = OTLPSeverity(rawValue: 0)
    /// 1, `TRACE` (2...4 are `TRACE2`...`TRACE4`).
    public static let trace = OTLPSeverity(rawValue: 1)
    /// 5, `DEBUG` (6...8 are `DEBUG2`...`DEBUG4`).
    public static let debug = OTLPSeverity(rawValue: 5)
    /// 9, `INFO` (10...12 are `INFO2`...`INFO4`).
    public static let info = OTLPSeverity(rawValue: 9)
    /// 13, `WARN` (14...16 are `WARN2`...`WARN4`).
    public static let warn = OTLPSeverity(rawValue: 13)
    /// 17, `ERROR` (18...20 are `ERROR2`...`ERROR4`).
    public static let error = OTLPSeverity(rawValue: 17)
    /// 21, `FATAL` (22...24 are `FATAL2`...`FATAL4`).
    public static let fatal = OTLPSeverity(rawValue: 21)

    private static let names = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"]

    /// The short name of the data model: `INFO`, `WARN2`, …; `UNSPECIFIED` for 0.
    public var description: String {
        guard (1...24).contains(rawValue) else { return rawValue == 0 ? "UNSPECIFIED" : "SEVERITY(\(rawValue))" }
        let group = Int(rawValue - 1) / 4
        let step = Int(rawValue - 1) % 4
        return Self.names[group] + (step == 0 ? "" : String(step + 1))
    }

    /// Parses a name such as `info`, `WARN`, `error3`, or a number `1`...`24`.
    package init?(name: String) {
        if let number = Int32(name), (0...24).contains(number) {
            self.init(rawValue: number)
            return
        }
        let upper = name.uppercased()
        for (group, base) in Self.names.enumerated() where upper.hasPrefix(base) {
            let rest = upper.dropFirst(base.count)
            let step = rest.isEmpty ? 1 : Int(rest) ?? 0
            guard (1...4).contains(step) else { return nil }
            self.init(rawValue: Int32(group * 4 + step))
            return
        }
        return nil
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
