import Foundation

/// A benchmark result printed as one JSON line on standard output (snake_case keys, sorted), which the
/// run scripts collect and tabulate.
public protocol JSONLine: Encodable {}

extension JSONLine {
    /// Prints the result as one JSON line.
    public func print() {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(self)) ?? Data()
        Swift.print(String(decoding: data, as: UTF8.self))
    }
}
