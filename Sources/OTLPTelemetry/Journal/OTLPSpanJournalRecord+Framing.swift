internal import OTLPWire

extension OTLPSpanJournalRecord {
    /// The record u32be-framed: its `ExportTraceServiceRequest` written field by field into one array, without
    /// building the request's model (``request``) nor its C structs, for the journal's writes of spans
    /// starting and ending and of batches exported. The bytes are those ``OTLPEncoder`` makes of ``request``
    /// (protobuf-c's field order; proto3 defaults left out, `oneof` members written even when empty), so the
    /// records read back as any other. `nil` when the encoded record is over `maxRecordBytes`. Not for a
    /// resource with entity references (the journal's records have none).
    func framed(maxRecordBytes: Int) -> [UInt8]? {
        Self.framed(
            kind: kind, writtenUnixNano: writtenUnixNano, resource: resourceWithDestination, scope: scopedSpan?.scope,
            span: scopedSpan?.span,
            interruptedAttribute: interruptedAttribute, exportedSpans: exportedSpans, maxRecordBytes: maxRecordBytes)
    }

    /// ``framed(maxRecordBytes:)`` of the record these parts make, without making it.
    /// With `sealed`, the record ends in its checksum field, as the journal writes it
    /// (``OTLPSpanJournal/sealed(_:)``), written in place.
    static func framed(
        kind: Kind, writtenUnixNano: UInt64, resource: OTLPResource = OTLPResource(), scope: OTLPInstrumentationScope?,
        span: OTLPSpan?, interruptedAttribute: String?, exportedSpans: [OTLPSpan] = [], maxRecordBytes: Int, sealed: Bool = false
    ) -> [UInt8]? {
        precondition(resource.entityRefs.isEmpty, "a journal record's resource has no entity references")
        var writer = OTLPProtobufWriter(capacity: 512)
        writer.bytes.append(contentsOf: [0, 0, 0, 0])  // the u32be length, set below
        let resourceSpans = writer.beginLong(1)
        let resourceFields = writer.begin(1)
        writer.attributes(1, resource.attributes)
        let version = writer.begin(1)
        writer.string(1, versionKey)
        let versionValue = writer.begin(2)
        writer.varint(3, UInt64(bitPattern: currentVersion), always: true)
        writer.end(versionValue)
        writer.end(version)
        let kindAttribute = writer.begin(1)
        writer.string(1, kindKey)
        let kindValue = writer.begin(2)
        writer.string(1, kind.rawValue, always: true)
        writer.end(kindValue)
        writer.end(kindAttribute)
        let written = writer.begin(1)
        writer.string(1, writtenKey)
        let writtenValue = writer.begin(2)
        writer.varint(3, UInt64(bitPattern: Int64(clamping: writtenUnixNano)), always: true)
        writer.end(writtenValue)
        writer.end(written)
        if let interruptedAttribute {
            let interrupted = writer.begin(1)
            writer.string(1, interruptedKey)
            let interruptedValue = writer.begin(2)
            writer.string(1, interruptedAttribute, always: true)
            writer.end(interruptedValue)
            writer.end(interrupted)
        }
        writer.varint(2, UInt64(resource.droppedAttributesCount))
        writer.end(resourceFields)
        if let span {
            let scopeSpans = writer.beginLong(2)
            if let scope {
                let scopeFields = writer.begin(1)
                writer.scope(scope)
                writer.end(scopeFields)
            }
            let spanFields = writer.beginLong(2)
            writer.span(span)
            writer.endLong(spanFields)
            writer.endLong(scopeSpans)
        }
        if !exportedSpans.isEmpty {
            let scopeSpans = writer.begin(2)
            writer.end(writer.begin(1))  // an empty scope
            for exported in exportedSpans {
                let spanFields = writer.begin(2)
                writer.span(exported)
                writer.end(spanFields)
            }
            writer.end(scopeSpans)
        }
        writer.endLong(resourceSpans)
        guard writer.bytes.count - 4 <= maxRecordBytes else { return nil }
        if sealed {
            let crc = writer.bytes.withUnsafeBytes { OTLPCRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[4...])) }
            writer.bytes += OTLPSpanJournal.checksumTag
            withUnsafeBytes(of: crc.littleEndian) { writer.bytes.append(contentsOf: $0) }
        }
        let count = writer.bytes.count - 4
        guard count <= Int(UInt32.max) else { return nil }
        writer.bytes[0] = UInt8(truncatingIfNeeded: count >> 24)
        writer.bytes[1] = UInt8(truncatingIfNeeded: count >> 16)
        writer.bytes[2] = UInt8(truncatingIfNeeded: count >> 8)
        writer.bytes[3] = UInt8(truncatingIfNeeded: count)
        return writer.bytes
    }
}

/// Protobuf fields written into a growing array. A nested message is opened with ``begin(_:)``, which leaves
/// one byte for its length, and closed with ``end(_:)``, which writes the length there (moving the message
/// along when its length takes more than one byte, from 128 bytes on).
struct OTLPProtobufWriter {
    var bytes: [UInt8]

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func rawVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func tag(_ field: UInt32, _ wireType: UInt8) {
        rawVarint(UInt64(field) << 3 | UInt64(wireType))
    }

    /// Opens the nested message `field` (written even when empty); returns where its length goes.
    mutating func begin(_ field: UInt32) -> Int {
        tag(field, 2)
        bytes.append(0)
        return bytes.count - 1
    }

    /// Opens the nested message `field`, likely 128 bytes or longer: two bytes are left for its length, so that
    /// ``endLong(_:)`` seldom moves the message (moving it cost most of a record's encoding). Returns where its
    /// length goes.
    mutating func beginLong(_ field: UInt32) -> Int {
        tag(field, 2)
        bytes.append(0)
        bytes.append(0)
        return bytes.count - 2
    }

    /// Closes the nested message opened with ``beginLong(_:)`` at `lengthIndex`: its length as the shortest
    /// varint, as ``end(_:)`` writes it (the message moves back one byte when shorter than 128 bytes, on when
    /// 16 KiB or longer).
    mutating func endLong(_ lengthIndex: Int) {
        let length = bytes.count - lengthIndex - 2
        if length < 0x80 {
            bytes.remove(at: lengthIndex + 1)
            bytes[lengthIndex] = UInt8(length)
        } else if length < 0x4000 {
            bytes[lengthIndex] = UInt8(truncatingIfNeeded: length) | 0x80
            bytes[lengthIndex + 1] = UInt8(truncatingIfNeeded: length >> 7)
        } else {
            bytes.remove(at: lengthIndex + 1)
            end(lengthIndex)
        }
    }

    /// Closes the nested message whose length goes at `lengthIndex`.
    mutating func end(_ lengthIndex: Int) {
        var length = bytes.count - lengthIndex - 1
        guard length >= 0x80 else {
            bytes[lengthIndex] = UInt8(length)
            return
        }
        var extra = 0  // the length's bytes after the first
        var rest = length >> 7
        while rest > 0 {
            extra += 1
            rest >>= 7
        }
        bytes.insert(contentsOf: repeatElement(0, count: extra), at: lengthIndex + 1)
        for index in lengthIndex...(lengthIndex + extra) {
            bytes[index] = UInt8(truncatingIfNeeded: length) | (index < lengthIndex + extra ? 0x80 : 0)
            length >>= 7
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
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A fixed32 field; left out when 0.
    mutating func fixed32(_ field: UInt32, _ value: UInt32) {
        guard value != 0 else { return }
        tag(field, 5)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A string field (UTF-8); left out when empty unless `always`.
    mutating func string(_ field: UInt32, _ value: String, always: Bool = false) {
        let count = value.utf8.count
        guard count > 0 || always else { return }
        tag(field, 2)
        rawVarint(UInt64(count))
        let copied: Void? = value.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes.append(contentsOf: value.utf8) }
    }

    /// A bytes field; left out when empty unless `always`.
    mutating func data(_ field: UInt32, _ value: [UInt8], always: Bool = false) {
        guard !value.isEmpty || always else { return }
        tag(field, 2)
        rawVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A trace ID's 16 bytes (big-endian halves); left out without one.
    mutating func traceID(_ field: UInt32, _ id: OTLPTraceID?) {
        guard let id else { return }
        tag(field, 2)
        bytes.append(16)
        withUnsafeBytes(of: id.high.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: id.low.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// A span ID's 8 bytes (big-endian); left out without one.
    mutating func spanID(_ field: UInt32, _ id: OTLPSpanID?) {
        guard let id else { return }
        tag(field, 2)
        bytes.append(8)
        withUnsafeBytes(of: id.value.bigEndian) { bytes.append(contentsOf: $0) }
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

    /// A `Span`'s fields, in field-number order.
    mutating func span(_ span: OTLPSpan) {
        traceID(1, span.traceID)
        spanID(2, span.spanID)
        string(3, span.traceState)
        spanID(4, span.parentSpanID)
        string(5, span.name)
        enumeration(6, span.kind.rawValue)
        fixed64(7, span.startTimeUnixNano)
        fixed64(8, span.endTimeUnixNano)
        attributes(9, span.attributes)
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
    }
}
