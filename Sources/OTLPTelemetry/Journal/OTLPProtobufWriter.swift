internal import OTLPWire
import Tracing

/// Protobuf fields written into a fixed region of memory: the span journal's mapped file (a record written in
/// place, past the end of the records) or a buffer. A nested message is opened with ``begin(_:)``, which
/// leaves one byte for its length, and closed with ``end(_:)``, which writes the length there (moving the
/// message along when its length takes more than one byte, from 128 bytes on). A write that does not fit
/// sets ``overflowed`` and writes nothing; every later write then does nothing either, and the bytes are not
/// to be used. Never writes at or past `capacity` bytes from `base`.
struct OTLPProtobufWriter {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    /// The bytes written.
    private(set) var count = 0
    /// The most bytes ever written (a message moved back makes ``count`` shrink): what to clear when the
    /// bytes are abandoned.
    private(set) var furthest = 0
    /// A write did not fit.
    private(set) var overflowed = false

    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = max(0, capacity)
    }

    /// Whether `byteCount` more bytes fit; sets ``overflowed`` when not.
    @inline(__always)
    private mutating func fits(_ byteCount: Int) -> Bool {
        guard !overflowed, byteCount <= capacity - count else {
            overflowed = true
            return false
        }
        return true
    }

    @inline(__always)
    private mutating func advance(_ byteCount: Int) {
        count += byteCount
        if count > furthest { furthest = count }
    }

    /// Writes `bytes` as they are.
    mutating func raw(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, fits(bytes.count) else { return }
        (base + count).update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        advance(bytes.count)
    }

    mutating func byte(_ value: UInt8) {
        guard fits(1) else { return }
        base[count] = value
        advance(1)
    }

    /// The bytes of a varint holding `value`.
    @inline(__always)
    static func varintBytes(_ value: UInt64) -> Int {
        (64 - (value | 1).leadingZeroBitCount + 6) / 7
    }

    mutating func rawVarint(_ value: UInt64) {
        let size = Self.varintBytes(value)
        guard fits(size) else { return }
        var value = value
        var at = base + count
        while value >= 0x80 {
            at.pointee = UInt8(truncatingIfNeeded: value) | 0x80
            at += 1
            value >>= 7
        }
        at.pointee = UInt8(value)
        advance(size)
    }

    @inline(__always)
    mutating func tag(_ field: UInt32, _ wireType: UInt8) {
        let key = UInt64(field) << 3 | UInt64(wireType)
        if key < 0x80 { byte(UInt8(key)) } else { rawVarint(key) }
    }

    /// Opens the nested message `field` (written even when empty); returns where its length goes.
    mutating func begin(_ field: UInt32) -> Int {
        tag(field, 2)
        byte(0)
        return count - 1
    }

    /// Closes the nested message whose length goes at `lengthIndex`.
    mutating func end(_ lengthIndex: Int) {
        guard !overflowed else { return }
        var length = count - lengthIndex - 1
        guard length >= 0x80 else {
            base[lengthIndex] = UInt8(length)
            return
        }
        let extra = Self.varintBytes(UInt64(length)) - 1  // the length's bytes after the first
        guard fits(extra) else { return }
        (base + lengthIndex + 1 + extra).update(from: base + lengthIndex + 1, count: length)
        advance(extra)
        for index in lengthIndex...(lengthIndex + extra) {
            base[index] = UInt8(truncatingIfNeeded: length) | (index < lengthIndex + extra ? 0x80 : 0)
            length >>= 7
        }
    }

    /// Opens the nested message `field`, likely 128 bytes or longer: two bytes are left for its length, so that
    /// ``endLong(_:)`` seldom moves the message. Returns where its length goes.
    mutating func beginLong(_ field: UInt32) -> Int {
        tag(field, 2)
        byte(0)
        byte(0)
        return count - 2
    }

    /// Closes the nested message opened with ``beginLong(_:)`` at `lengthIndex`: its length as the shortest
    /// varint, as ``end(_:)`` writes it (the message moves back one byte when shorter than 128 bytes, on when
    /// 16 KiB or longer).
    mutating func endLong(_ lengthIndex: Int) {
        guard !overflowed else { return }
        let length = count - lengthIndex - 2
        if length < 0x80 {
            (base + lengthIndex + 1).update(from: base + lengthIndex + 2, count: length)
            count -= 1
            base[lengthIndex] = UInt8(length)
        } else if length < 0x4000 {
            base[lengthIndex] = UInt8(truncatingIfNeeded: length) | 0x80
            base[lengthIndex + 1] = UInt8(truncatingIfNeeded: length >> 7)
        } else {
            (base + lengthIndex + 1).update(from: base + lengthIndex + 2, count: length)
            count -= 1
            end(lengthIndex)
        }
    }

    /// A varint field; left out when 0 unless `always` (a `oneof` member).
    mutating func varint(_ field: UInt32, _ value: UInt64, always: Bool = false) {
        guard value != 0 || always else { return }
        tag(field, 0)
        rawVarint(value)
    }

    /// An enum field (negative values as 10-byte varints); left out when 0.
    mutating func enumeration(_ field: UInt32, _ value: Int32) {
        varint(field, UInt64(bitPattern: Int64(value)))
    }

    /// A fixed64 field; left out when 0 unless `always`.
    mutating func fixed64(_ field: UInt32, _ value: UInt64, always: Bool = false) {
        guard value != 0 || always else { return }
        tag(field, 1)
        withUnsafeBytes(of: value.littleEndian) { raw($0) }
    }

    /// A fixed32 field; left out when 0.
    mutating func fixed32(_ field: UInt32, _ value: UInt32) {
        guard value != 0 else { return }
        tag(field, 5)
        withUnsafeBytes(of: value.littleEndian) { raw($0) }
    }

    /// A string field (UTF-8); left out when empty unless `always`.
    mutating func string(_ field: UInt32, _ value: String, always: Bool = false) {
        var value = value
        value.withUTF8 { utf8 in
            guard !utf8.isEmpty || always else { return }
            tag(field, 2)
            rawVarint(UInt64(utf8.count))
            raw(UnsafeRawBufferPointer(utf8))
        }
    }

    /// A bytes field; left out when empty unless `always`.
    mutating func data(_ field: UInt32, _ value: [UInt8], always: Bool = false) {
        guard !value.isEmpty || always else { return }
        tag(field, 2)
        rawVarint(UInt64(value.count))
        value.withUnsafeBytes { raw($0) }
    }

    /// A trace ID's 16 bytes (big-endian halves); left out without one.
    mutating func traceID(_ field: UInt32, _ id: OTLPTraceID?) {
        guard let id else { return }
        tag(field, 2)
        byte(16)
        withUnsafeBytes(of: id.high.bigEndian) { raw($0) }
        withUnsafeBytes(of: id.low.bigEndian) { raw($0) }
    }

    /// A span ID's 8 bytes (big-endian); left out without one.
    mutating func spanID(_ field: UInt32, _ id: OTLPSpanID?) {
        guard let id else { return }
        tag(field, 2)
        byte(8)
        withUnsafeBytes(of: id.value.bigEndian) { raw($0) }
    }

    /// `attributes` as repeated `KeyValue` messages of `field`.
    mutating func attributes(_ field: UInt32, _ attributes: [OTLPAttribute]) {
        for attribute in attributes {
            let keyValue = begin(field)
            string(1, attribute.key)
            if let value = attribute.value {
                let anyValue = begin(2)
                self.anyValue(value)
                end(anyValue)
            }
            end(keyValue)
        }
    }

    /// Attributes as the Tracing API holds them (a span's, not yet converted), as repeated `KeyValue` messages
    /// of `field`, in the order they are stored, when the conversion to OTLP values and the limits would keep
    /// them as they are: at most `countLimit` of them, each an integer, a double, a bool or a string of at
    /// most `lengthLimit` UTF-8 bytes. Returns `false`, at the first one that is not, with part of them written.
    mutating func attributes(_ field: UInt32, _ attributes: SpanAttributes, countLimit: Int, lengthLimit: Int?) -> Bool {
        guard attributes.count <= countLimit else { return false }
        var kept = true
        attributes.forEach { key, value in
            guard kept else { return }
            let keyValue = begin(field)
            string(1, key)
            let anyValue = begin(2)
            switch value {
            case .int32(let int): varint(3, UInt64(bitPattern: Int64(int)), always: true)
            case .int64(let int): varint(3, UInt64(bitPattern: int), always: true)
            case .double(let double): fixed64(4, double.bitPattern, always: true)
            case .bool(let bool): varint(2, bool ? 1 : 0, always: true)
            case .string(let string) where lengthLimit.map { string.utf8.count <= $0 } ?? true: self.string(1, string, always: true)
            default: kept = false
            }
            end(anyValue)
            end(keyValue)
        }
        return kept
    }

    /// An `AnyValue`'s member (a `oneof`: written even when empty; none for ``OTLPAttributeValue/empty``).
    mutating func anyValue(_ value: OTLPAttributeValue) {
        switch value {
        case .string(let string): self.string(1, string, always: true)
        case .bool(let bool): varint(2, bool ? 1 : 0, always: true)
        case .int(let int): varint(3, UInt64(bitPattern: int), always: true)
        case .double(let double): fixed64(4, double.bitPattern, always: true)
        case .array(let values):
            let array = begin(5)
            for value in values {
                let member = begin(1)
                anyValue(value)
                end(member)
            }
            end(array)
        case .keyValueList(let attributes):
            let list = begin(6)
            self.attributes(1, attributes)
            end(list)
        case .bytes(let value): data(7, value, always: true)
        case .empty: break
        }
    }

    /// An `InstrumentationScope`'s fields.
    mutating func scope(_ scope: OTLPInstrumentationScope) {
        string(1, scope.name)
        string(2, scope.version)
        attributes(3, scope.attributes)
        varint(4, UInt64(scope.droppedAttributesCount))
    }

    /// A `Span`'s fields, in field-number order; its attributes followed by `pending` ones (see
    /// ``attributes(_:_:countLimit:lengthLimit:)``). Returns `false` when one of `pending` is not written.
    mutating func span(_ span: OTLPSpan, pending: OTLPPendingSpanAttributes? = nil) -> Bool {
        traceID(1, span.traceID)
        spanID(2, span.spanID)
        string(3, span.traceState)
        spanID(4, span.parentSpanID)
        string(5, span.name)
        enumeration(6, span.kind.rawValue)
        fixed64(7, span.startTimeUnixNano)
        fixed64(8, span.endTimeUnixNano)
        attributes(9, span.attributes)
        if let pending {
            guard
                attributes(
                    9, pending.attributes, countLimit: pending.limits.attributeCountLimit - span.attributes.count,
                    lengthLimit: pending.limits.attributeValueLengthLimit)
            else { return false }
        }
        varint(10, UInt64(span.droppedAttributesCount))
        for event in span.events {
            let message = begin(11)
            fixed64(1, event.timeUnixNano)
            string(2, event.name)
            attributes(3, event.attributes)
            varint(4, UInt64(event.droppedAttributesCount))
            end(message)
        }
        varint(12, UInt64(span.droppedEventsCount))
        for link in span.links {
            let message = begin(13)
            traceID(1, link.traceID)
            spanID(2, link.spanID)
            string(3, link.traceState)
            attributes(4, link.attributes)
            varint(5, UInt64(link.droppedAttributesCount))
            fixed32(6, link.flags)
            end(message)
        }
        varint(14, UInt64(span.droppedLinksCount))
        if let status = span.status {
            let message = begin(15)
            string(2, status.message)
            enumeration(3, status.code.rawValue)
            end(message)
        }
        fixed32(16, span.flags)
        return true
    }
}
