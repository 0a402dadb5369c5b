package import OTLPWire

/// One record of the open-span journal: an OTLP `ExportTraceServiceRequest` (so `otlp-dump print` shows a
/// journal as it shows any u32be file) whose resource carries the journal's own attributes, all under
/// `otlpwire.journal.`. A journal file starts with an `alive` record holding the writing process's resource;
/// the records of its spans leave it out (a recovered span's record carries the resource it was made under).
/// The journal's attributes:
///
/// - `otlpwire.journal.version` (int): the format version, ``currentVersion``;
/// - `otlpwire.journal.record` (string): `started` (the span as it started, not ended), `ended` (the span as
///   it ended), `exporting` (these spans, a batch, are being handed to the exporter: only their IDs),
///   `exported` (the exporter took them), `alive` (a heartbeat: no span);
/// - `otlpwire.journal.written_unix_nano` (int): the wall-clock time of the write;
/// - `otlpwire.journal.interrupted_attribute` (string, optional): the attribute set to `true` on the span if
///   it is recovered unended (`launch.interrupted`, `view.interrupted`);
/// - `otlpwire.journal.destination.*` (on `exporting` records, optional): where the exporter is about to write
///   the batch (``OTLPExportDestination``): `kind` (`file`, `spool`), `path`, `device`, `inode`,
///   `file_number`, `offset`, `length`, `crc32`. An `exporting` record without them (older writers) leaves the
///   spans to be looked up by ID in the traces file output. Readers that do not know them ignore them.
package struct OTLPSpanJournalRecord: Sendable, Equatable {
    /// What a record says.
    package enum Kind: String, Sendable {
        case started, ended, exporting, exported, alive
    }

    /// The format version this library writes (and the newest it reads). Version 2 ends every record with its
    /// CRC-32 (field 2047, `fixed32`, after the request's fields) and preallocates the file (zeros after the
    /// last record); version 1 files (neither) are read too. Readers of version 1 stop at a version 2 file's
    /// first record and leave the file aside, untouched.
    package static let currentVersion: Int64 = 2
    static let prefix = "otlpwire.journal."
    static let versionKey = "otlpwire.journal.version"
    static let kindKey = "otlpwire.journal.record"
    static let writtenKey = "otlpwire.journal.written_unix_nano"
    static let interruptedKey = "otlpwire.journal.interrupted_attribute"
    static let destinationPrefix = "otlpwire.journal.destination."

    package var kind: Kind
    /// The wall-clock time the record was written.
    package var writtenUnixNano: UInt64
    /// The span's resource, without the journal's attributes (empty for `exported` and `alive`).
    package var resource: OTLPResource
    /// The span's scope and the span (for `exported`: only the IDs); `nil` for `alive`.
    package var scopedSpan: (scope: OTLPInstrumentationScope, span: OTLPSpan)?
    /// The attribute that marks the span as interrupted, if any.
    package var interruptedAttribute: String?
    /// The spans an `exported` record names (only their IDs).
    package var exportedSpans: [OTLPSpan]
    /// Where an `exporting` record's batch is about to be written, when the exporter said.
    package var destination: OTLPExportDestination?

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.writtenUnixNano == rhs.writtenUnixNano && lhs.resource == rhs.resource
            && lhs.scopedSpan?.scope == rhs.scopedSpan?.scope && lhs.scopedSpan?.span == rhs.scopedSpan?.span
            && lhs.interruptedAttribute == rhs.interruptedAttribute && lhs.exportedSpans == rhs.exportedSpans
            && lhs.destination == rhs.destination
    }

    /// The resource as written: ``resource`` with the destination's attributes.
    var resourceWithDestination: OTLPResource {
        guard let destination else { return resource }
        var resource = resource
        let key = Self.destinationPrefix
        resource.attributes += [
            OTLPAttribute(key + "kind", .string(destination.kind.rawValue)), OTLPAttribute(key + "path", .string(destination.path)),
            OTLPAttribute(key + "device", .int(Int64(bitPattern: destination.device))),
            OTLPAttribute(key + "inode", .int(Int64(bitPattern: destination.inode))),
            OTLPAttribute(key + "file_number", .int(Int64(bitPattern: destination.fileNumber))),
            OTLPAttribute(key + "offset", .int(Int64(destination.offsetBytes))),
            OTLPAttribute(key + "length", .int(Int64(destination.lengthBytes))),
            OTLPAttribute(key + "crc32", .int(Int64(destination.checksum))),
        ]
        return resource
    }

    /// The destination the attributes name, `nil` when they do not name a whole one.
    static func destination(in attributes: [OTLPAttribute]) -> OTLPExportDestination? {
        var strings: [String: String] = [:]
        var ints: [String: Int64] = [:]
        for attribute in attributes where attribute.key.hasPrefix(destinationPrefix) {
            let name = String(attribute.key.dropFirst(destinationPrefix.count))
            switch attribute.value {
            case .string(let value)?: strings[name] = value
            case .int(let value)?: ints[name] = value
            default: break
            }
        }
        guard let kindName = strings["kind"], let kind = OTLPExportDestination.Kind(rawValue: kindName), let path = strings["path"],
            let device = ints["device"], let inode = ints["inode"], let fileNumber = ints["file_number"],
            let offset = ints["offset"], offset >= 0, let length = ints["length"], length > 0, let crc = ints["crc32"],
            (0...Int64(UInt32.max)).contains(crc)
        else { return nil }
        return OTLPExportDestination(
            kind: kind, path: path, device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode),
            fileNumber: UInt64(bitPattern: fileNumber), offsetBytes: Int(offset), lengthBytes: Int(length), checksum: UInt32(crc))
    }

    /// The request this record is written as.
    package var request: OTLPTracesData {
        var resource = resourceWithDestination
        resource.attributes += [
            OTLPAttribute(Self.versionKey, .int(Self.currentVersion)), OTLPAttribute(Self.kindKey, .string(kind.rawValue)),
            OTLPAttribute(Self.writtenKey, .int(Int64(clamping: writtenUnixNano))),
        ]
        if let interruptedAttribute { resource.attributes.append(OTLPAttribute(Self.interruptedKey, .string(interruptedAttribute))) }
        var scopeGroups = scopedSpan.map { [OTLPScopeGroup(scope: $0.scope, items: [$0.span], schemaURL: "")] } ?? []
        if !exportedSpans.isEmpty {
            scopeGroups.append(OTLPScopeGroup(scope: OTLPInstrumentationScope(name: ""), items: exportedSpans, schemaURL: ""))
        }
        return OTLPTracesData(resourceGroups: [OTLPResourceGroup(resource: resource, scopeGroups: scopeGroups, schemaURL: "")])
    }

    /// The record a request holds.
    package enum Decoded: Equatable {
        case record(OTLPSpanJournalRecord)
        /// A request without the journal's attributes, or with several spans or resources: not written by a journal.
        case foreign(String)
        /// Written by a newer format version.
        case newerVersion(Int64)
    }

    package init(
        kind: Kind, writtenUnixNano: UInt64, resource: OTLPResource = OTLPResource(),
        scopedSpan: (scope: OTLPInstrumentationScope, span: OTLPSpan)? = nil, interruptedAttribute: String? = nil,
        exportedSpans: [OTLPSpan] = [], destination: OTLPExportDestination? = nil
    ) {
        self.exportedSpans = exportedSpans
        self.destination = destination
        self.kind = kind
        self.writtenUnixNano = writtenUnixNano
        self.resource = resource
        self.scopedSpan = scopedSpan
        self.interruptedAttribute = interruptedAttribute
    }

    /// Reads a record back from its request.
    package static func decode(_ data: OTLPTracesData) -> Decoded {
        guard data.resourceGroups.count == 1, let group = data.resourceGroups.first else {
            return .foreign("\(data.resourceGroups.count) resources (a journal record has one)")
        }
        var resource = group.resource ?? OTLPResource()
        var version: Int64?
        var kindName: String?
        var written: Int64?
        var interrupted: String?
        for attribute in resource.attributes where attribute.key.hasPrefix(prefix) {
            switch (attribute.key, attribute.value) {
            case (versionKey, .int(let value)?): version = value
            case (kindKey, .string(let value)?): kindName = value
            case (writtenKey, .int(let value)?): written = value
            case (interruptedKey, .string(let value)?): interrupted = value
            default: break
            }
        }
        guard let version else { return .foreign("no \(versionKey) attribute") }
        guard version <= currentVersion else { return .newerVersion(version) }
        guard version >= 1, let kindName, let kind = Kind(rawValue: kindName), let written, written >= 0 else {
            return .foreign("journal attributes missing or invalid")
        }
        let destination = kind == .exporting ? Self.destination(in: resource.attributes) : nil
        resource.attributes.removeAll { $0.key.hasPrefix(prefix) }
        let spans = group.scopeGroups.flatMap { scopeGroup in
            scopeGroup.items.map { (scope: scopeGroup.scope ?? OTLPInstrumentationScope(name: ""), span: $0) }
        }
        switch kind {
        case .alive: guard spans.isEmpty else { return .foreign("\(spans.count) spans in an `alive` record") }
        case .exporting, .exported: guard !spans.isEmpty else { return .foreign("no span in an `\(kind.rawValue)` record") }
        case .started, .ended: guard spans.count == 1 else { return .foreign("\(spans.count) spans in a `\(kind.rawValue)` record") }
        }
        if spans.contains(where: { $0.span.traceID == nil || $0.span.spanID == nil }) { return .foreign("a span without IDs") }
        if kind == .exporting || kind == .exported {
            return .record(
                OTLPSpanJournalRecord(
                    kind: kind, writtenUnixNano: UInt64(written), exportedSpans: spans.map(\.span), destination: destination))
        }
        return .record(
            OTLPSpanJournalRecord(
                kind: kind, writtenUnixNano: UInt64(written), resource: resource, scopedSpan: spans.first,
                interruptedAttribute: interrupted))
    }
}
