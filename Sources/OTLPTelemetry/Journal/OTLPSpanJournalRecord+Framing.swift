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
        let trailer = sealed ? OTLPSpanJournal.checksumTrailerBytes : 0
        let limit = OTLPLengthPrefix.u32Bytes + min(max(0, maxRecordBytes), Int(UInt32.max) - trailer) + trailer + transientBytes
        var capacity = min(512, limit)
        while true {
            var outcome = WriteOutcome.overflowed
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                var writer = OTLPProtobufWriter(base: buffer.baseAddress!, capacity: capacity)
                outcome = write(
                    kind: kind, writtenUnixNano: writtenUnixNano, resource: resource, scope: scope, span: span, pending: nil,
                    interruptedAttribute: interruptedAttribute, exportedSpans: exportedSpans, maxRecordBytes: maxRecordBytes,
                    sealed: sealed, into: &writer)
                initialized = outcome == .written ? writer.count : 0
            }
            switch outcome {
            case .written: return bytes
            case .tooLarge, .needsConversion: return nil
            case .overflowed:
                guard capacity < limit else { return nil }
                capacity = min(limit, capacity * 4)
            }
        }
    }

    /// The bytes a record may take, while it is written, more than it ends up with: each of its three long
    /// messages (``OTLPProtobufWriter/beginLong(_:)``) may hold one byte it gives back.
    static let transientBytes = 3

    /// What ``write(kind:writtenUnixNano:resource:scope:span:pending:interruptedAttribute:exportedSpans:maxRecordBytes:sealed:into:)`` did.
    enum WriteOutcome: Equatable {
        /// The record is written, framed (and sealed): the writer's ``OTLPProtobufWriter/count`` bytes.
        case written
        /// The record did not fit the writer's room (the bytes written are to be cleared).
        case overflowed
        /// The record's request is larger than `maxRecordBytes`.
        case tooLarge
        /// One of the span's pending attributes needs converting (or the limits would change it): the span is to
        /// be prepared (``OTLPScopedSpan/prepareForExport()``) and written again.
        case needsConversion
    }

    /// Writes the record these parts make, u32be-framed, at the start of `writer` (in place: the journal's
    /// mapped file), its length prefix last; with `sealed`, ending in its checksum field. `pending`: the span's
    /// attributes not yet converted (written as the conversion would make them, in their stored order, when
    /// it would keep them as they are).
    static func write(
        kind: Kind, writtenUnixNano: UInt64, resource: OTLPResource, scope: OTLPInstrumentationScope?, span: OTLPSpan?,
        pending: OTLPPendingSpanAttributes?, interruptedAttribute: String?, exportedSpans: [OTLPSpan], maxRecordBytes: Int,
        sealed: Bool, into writer: inout OTLPProtobufWriter
    ) -> WriteOutcome {
        precondition(resource.entityRefs.isEmpty, "a journal record's resource has no entity references")
        if pending != nil, let span, !span.events.isEmpty || !span.links.isEmpty { return .needsConversion }
        for _ in 0..<OTLPLengthPrefix.u32Bytes { writer.byte(0) }  // the u32be length, set below
        let resourceSpans = writer.beginLong(1)
        let resourceFields = writer.begin(1)
        writer.attributes(1, resource.attributes)
        writer.raw(versionAttribute)
        writer.raw(kindAttribute(kind))
        let written = writer.begin(1)
        writer.raw(writtenKeyField)
        let writtenValue = writer.begin(2)
        writer.varint(3, UInt64(bitPattern: Int64(clamping: writtenUnixNano)), always: true)
        writer.end(writtenValue)
        writer.end(written)
        if let interruptedAttribute {
            let interrupted = writer.begin(1)
            writer.raw(interruptedKeyField)
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
            guard writer.span(span, pending: pending) else { return .needsConversion }
            writer.endLong(spanFields)
            writer.endLong(scopeSpans)
        }
        if !exportedSpans.isEmpty {
            let scopeSpans = writer.begin(2)
            writer.end(writer.begin(1))  // an empty scope
            for exported in exportedSpans {
                let spanFields = writer.begin(2)
                _ = writer.span(exported)
                writer.end(spanFields)
            }
            writer.end(scopeSpans)
        }
        writer.endLong(resourceSpans)
        guard !writer.overflowed else { return writer.count - 4 > maxRecordBytes ? .tooLarge : .overflowed }
        let count = writer.count - OTLPLengthPrefix.u32Bytes
        guard count <= maxRecordBytes else { return .tooLarge }
        if sealed {
            let crc = OTLPCRC32.checksum(UnsafeRawBufferPointer(start: writer.base + OTLPLengthPrefix.u32Bytes, count: count))
            writer.byte(OTLPSpanJournal.checksumTag[0])
            writer.byte(OTLPSpanJournal.checksumTag[1])
            withUnsafeBytes(of: crc.littleEndian) { writer.raw($0) }
            guard !writer.overflowed else { return .overflowed }
        }
        let length = writer.count - OTLPLengthPrefix.u32Bytes
        guard length <= Int(UInt32.max) else { return .tooLarge }
        writer.base[0] = UInt8(truncatingIfNeeded: length >> 24)
        writer.base[1] = UInt8(truncatingIfNeeded: length >> 16)
        writer.base[2] = UInt8(truncatingIfNeeded: length >> 8)
        writer.base[3] = UInt8(truncatingIfNeeded: length)
        return .written
    }

    /// The constant parts of every record, encoded once: the version attribute (a whole `KeyValue` field of the
    /// resource), the kind attribute of each kind, and the written-time and interrupted attributes' key fields.
    private nonisolated(unsafe) static let versionAttribute = encodedOnce { writer in
        let version = writer.begin(1)
        writer.string(1, versionKey)
        let versionValue = writer.begin(2)
        writer.varint(3, UInt64(bitPattern: currentVersion), always: true)
        writer.end(versionValue)
        writer.end(version)
    }
    private nonisolated(unsafe) static let startedAttribute = kindAttributeEncoded(.started)
    private nonisolated(unsafe) static let endedAttribute = kindAttributeEncoded(.ended)
    private nonisolated(unsafe) static let exportingAttribute = kindAttributeEncoded(.exporting)
    private nonisolated(unsafe) static let exportedAttribute = kindAttributeEncoded(.exported)
    private nonisolated(unsafe) static let aliveAttribute = kindAttributeEncoded(.alive)

    private static func kindAttribute(_ kind: Kind) -> UnsafeRawBufferPointer {
        switch kind {
        case .started: startedAttribute
        case .ended: endedAttribute
        case .exporting: exportingAttribute
        case .exported: exportedAttribute
        case .alive: aliveAttribute
        }
    }

    private static func kindAttributeEncoded(_ kind: Kind) -> UnsafeRawBufferPointer {
        encodedOnce { writer in
            let kindAttribute = writer.begin(1)
            writer.string(1, kindKey)
            let kindValue = writer.begin(2)
            writer.string(1, kind.rawValue, always: true)
            writer.end(kindValue)
            writer.end(kindAttribute)
        }
    }

    private nonisolated(unsafe) static let writtenKeyField = encodedOnce { $0.string(1, writtenKey) }
    private nonisolated(unsafe) static let interruptedKeyField = encodedOnce { $0.string(1, interruptedKey) }

    /// Bytes `body` writes, kept for the process's lifetime.
    private static func encodedOnce(_ body: (inout OTLPProtobufWriter) -> Void) -> UnsafeRawBufferPointer {
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        var writer = OTLPProtobufWriter(base: base, capacity: 256)
        body(&writer)
        precondition(!writer.overflowed)
        return UnsafeRawBufferPointer(start: base, count: writer.count)
    }
}
