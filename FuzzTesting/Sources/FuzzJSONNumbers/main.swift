import OTLPWire

/// libFuzzer entry: the input, cut at its first byte outside a JSON number's alphabet, is placed (bare and
/// quoted) in every integer field width OTLP JSON has: a fixed64 time, a uint32 count, an int64 attribute
/// value and an int32 enum. Whatever the decoder accepts must be exactly the number written, in range for
/// the field: never a rounded double, never a trap. The oracle below is independent of the decoder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONNumbers(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let alphabet = Set("0123456789+-.eE".utf8)
    let token = Array(UnsafeBufferPointer(start: start, count: count).prefix { alphabet.contains($0) }.prefix(64))
    let text = String(decoding: token, as: UTF8.self)
    for quoted in [false, true] {
        let number = quoted ? "\"\(text)\"" : text
        check(text, quoted: quoted, field: "startTimeUnixNano", json: span(time: number), range: 0...Int128(UInt64.max)) {
            $0.startTimeUnixNano.int128
        }
        check(text, quoted: quoted, field: "droppedAttributesCount", json: span(dropped: number), range: 0...Int128(UInt32.max)) {
            $0.droppedAttributesCount.int128
        }
        check(text, quoted: quoted, field: "intValue", json: span(intValue: number), range: Int128(Int64.min)...Int128(Int64.max)) {
            guard case .int(let value)? = $0.attributes.first?.value else { return nil }
            return Int128(value)
        }
        check(text, quoted: quoted, field: "kind", json: span(kind: number), range: Int128(Int32.min)...Int128(Int32.max)) {
            Int128($0.kind.rawValue)
        }
    }
    return 0
}

private func span(time: String = "1", dropped: String = "0", intValue: String = "1", kind: String = "1") -> String {
    """
    {"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174",\
    "name":"n","kind":\(kind),"startTimeUnixNano":\(time),"endTimeUnixNano":"2","droppedAttributesCount":\(dropped),\
    "attributes":[{"key":"k","value":{"intValue":\(intValue)}}]}]}]}]}
    """
}

private func check(
    _ text: String, quoted: Bool, field: String, json: String, range: ClosedRange<Int128>, _ value: (OTLPSpan) -> Int128?
) {
    let bytes = Array(json.utf8)
    guard let data = bytes.withUnsafeBytes({ try? OTLPJSONDecoder().decodeTraces($0) }) else { return }
    guard let span = data.resourceGroups.first?.scopeGroups.first?.items.first, let decoded = value(span) else {
        fatalError("\(field) = \(text): accepted, but the span or its value is missing")
    }
    guard let exact = exactInteger(text, quoted: quoted), range.contains(exact) else {
        fatalError("\(field) = \(quoted ? "quoted " : "")\(text): accepted as \(decoded), but it is not an integer in \(range)")
    }
    guard exact == decoded else { fatalError("\(field) = \(text): decoded as \(decoded), exactly \(exact)") }
}

/// The exact integer a JSON number denotes, or `nil` when it is not one (a fraction, malformed, or beyond
/// ±2^100, far past every OTLP field). A `quoted` number may also have a `+` sign and leading zeros, as the
/// reference protobuf JSON reader accepts.
private func exactInteger(_ text: String, quoted: Bool) -> Int128? {
    let bytes = Array(text.utf8)
    var index = 0
    func digits() -> [UInt8] {
        let start = index
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
        return Array(bytes[start..<index])
    }
    let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
    if negative || (quoted && index < bytes.count && bytes[index] == UInt8(ascii: "+")) { index += 1 }
    let integer = digits()
    guard !integer.isEmpty, quoted || !(integer.count > 1 && integer.first == 48) else { return nil }
    var fraction: [UInt8] = []
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
        index += 1
        fraction = digits()
        guard !fraction.isEmpty else { return nil }
    }
    var exponent = 0
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
        index += 1
        var exponentNegative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            exponentNegative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        let exponentDigits = digits()
        guard !exponentDigits.isEmpty else { return nil }
        for digit in exponentDigits { exponent = min(exponent * 10 + Int(digit - 48), 100_000) }
        if exponentNegative { exponent = -exponent }
    }
    guard index == bytes.count else { return nil }
    // value = digits × 10^(exponent − fraction digits), with leading zeros of the digits dropped.
    var all = integer + fraction
    exponent -= fraction.count
    while all.count > 1, all.first == 48 { all.removeFirst() }
    while exponent < 0, all.count > 1, all.last == 48 { all.removeLast(); exponent += 1 }
    if all == [48] { return 0 }
    guard exponent >= 0, all.count + exponent <= 31 else { return nil }
    var value: Int128 = 0
    for digit in all { value = value * 10 + Int128(digit - 48) }
    for _ in 0..<exponent { value *= 10 }
    guard value <= Int128(1) << 100 else { return nil }
    return negative ? -value : value
}

extension FixedWidthInteger {
    fileprivate var int128: Int128 { Int128(self) }
}
