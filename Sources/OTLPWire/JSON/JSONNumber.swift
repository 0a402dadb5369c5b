/// The text of a JSON number (or of a number in a quoted string, as protobuf's JSON mapping allows for
/// integers and doubles), split into its parts so an integer can be read exactly.
///
/// Integers never go through a `Double`: `1.700000000000000001e18` is 1700000000000000001, `1.5e1` is 15,
/// `1.5` and `1e-400` are not integers, and `1.85e19` is out of range for every 64-bit type. Nothing traps
/// and nothing is rounded, whatever the exponent.
package struct JSONNumber {
    /// Why a text is not a number of the wanted kind.
    package enum Failure: Error, Equatable {
        /// Not a number in the JSON grammar.
        case notANumber
        /// A number with a fractional part.
        case notAnInteger
        /// An integer outside the wanted type's range, or a double too large for a `Double`.
        case outOfRange
    }

    /// Whether a minus sign came first (`-0` is negative zero).
    package let isNegative: Bool
    /// Significant digits (integer and fraction parts together), leading and trailing zeros removed; empty for zero.
    private let digits: ArraySlice<UInt8>
    /// The power of ten that `digits` are scaled by; saturated far outside any integer's range.
    private let scale: Int

    /// Exponents are saturated here: far beyond 20 digits either way, and far from `Int` overflow.
    private static let exponentCap = 1_000_000_000

    /// Parses `text` with the JSON number grammar (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`). A `quoted`
    /// text (a number written as a JSON string) may also start with `+` and have leading zeros, as the
    /// reference protobuf JSON reader accepts; nothing else (no spaces, hex, `inf` or `nan`).
    package init(_ text: String, quoted: Bool) throws(Failure) {
        var bytes = Array(text.utf8)[...]
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes = bytes.dropFirst()
        } else if quoted, bytes.first == UInt8(ascii: "+") {
            bytes = bytes.dropFirst()
        }
        let integerDigits = bytes.prefix(while: isDigit)
        guard !integerDigits.isEmpty else { throw .notANumber }
        if !quoted, integerDigits.count > 1, integerDigits.first == UInt8(ascii: "0") { throw .notANumber }
        bytes = bytes[integerDigits.endIndex...]
        var fractionDigits = bytes[bytes.startIndex..<bytes.startIndex]
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fractionDigits = bytes.prefix(while: isDigit)
            guard !fractionDigits.isEmpty else { throw .notANumber }
            bytes = bytes[fractionDigits.endIndex...]
        }
        var exponent = 0
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            var exponentNegative = false
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") {
                exponentNegative = bytes.first == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            let exponentDigits = bytes.prefix(while: isDigit)
            guard !exponentDigits.isEmpty else { throw .notANumber }
            for digit in exponentDigits {
                exponent = min(exponent * 10 + Int(digit - UInt8(ascii: "0")), Self.exponentCap)
            }
            if exponentNegative { exponent = -exponent }
            bytes = bytes[exponentDigits.endIndex...]
        }
        guard bytes.isEmpty else { throw .notANumber }

        // digits × 10^scale, with leading zeros (which carry nothing) and trailing zeros (moved into the scale) gone.
        var all = ArraySlice(integerDigits + fractionDigits)
        var scale = exponent - fractionDigits.count
        while all.first == UInt8(ascii: "0") { all = all.dropFirst() }
        while all.last == UInt8(ascii: "0") {
            all = all.dropLast()
            scale += 1
        }
        isNegative = negative
        digits = all
        self.scale = all.isEmpty ? 0 : scale
    }

    /// The exact integer value as `T`: ``Failure/notAnInteger`` if it has a fractional part,
    /// ``Failure/outOfRange`` if `T` cannot hold it (`-0` is 0 for every type).
    package func integer<T: FixedWidthInteger>(as type: T.Type = T.self) throws(Failure) -> T {
        guard scale >= 0 else { throw .notAnInteger }
        guard digits.count + scale <= 20 else { throw .outOfRange }  // 2^64 has 20 digits
        var magnitude: UInt64 = 0
        for digit in digits {
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = shifted.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflow, !carry else { throw .outOfRange }
            magnitude = sum
        }
        for _ in 0..<scale {
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            guard !overflow else { throw .outOfRange }
            magnitude = shifted
        }
        guard isNegative, magnitude > 0 else {
            guard let result = T(exactly: magnitude) else { throw .outOfRange }
            return result
        }
        // -magnitude = -(magnitude - 1) - 1, which reaches T.min without overflow.
        guard T.isSigned, let below = T(exactly: magnitude - 1) else { throw .outOfRange }
        return 0 - below - 1
    }

    /// The nearest `Double` to `text` (checked with the same grammar as ``init(_:quoted:)``):
    /// ``Failure/outOfRange`` when its magnitude is too large for a `Double` (`1e400`); values too small
    /// for one become zero, as in every JSON reader. `-0` stays negative zero.
    package static func double(_ text: String, quoted: Bool) throws(Failure) -> Double {
        _ = try JSONNumber(text, quoted: quoted)
        guard let double = Double(text) else { throw .notANumber }
        guard double.isFinite else { throw .outOfRange }
        return double
    }
}
