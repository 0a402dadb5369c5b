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
///   it is recovered unended (`launch.interrupted`, `view.interrupted`).
package struct OTLPSpanJournalRecord: Sendable, Equatable {
    /// What a record says.
    package enum Kind: String, Sendable {
        case started, ended, exporting, exported, alive
    }

    /// The format version this library writes and reads.
    package static let currentVersion: Int64 = 1
    static let prefix = "otlpwire.journal."
    static let versionKey = "otlpwire.journal.version"
    static let kindKey = "otlpwire.journal.record"
    static let writtenKey = "otlpwire.journal.written_unix_nano"
    static let interruptedKey = "otlpwire.journal.interrupted_attribute"

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

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.writtenUnixNano == rhs.writtenUnixNano && lhs.resource == rhs.resource
            && lhs.scopedSpan?.scope == rhs.scopedSpan?.scope && lhs.scopedSpan?.span == rhs.scopedSpan?.span
            && lhs.interruptedAttribute == rhs.interruptedAttribute && lhs.exportedSpans == rhs.exportedSpans
    }

    /// The request this record is written as.
    package var request: OTLPTracesData {
        var resource = resource
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
        exportedSpans: [OTLPSpan] = []
    ) {
        self.exportedSpans = exportedSpans
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
            return .record(OTLPSpanJournalRecord(kind: kind, writtenUnixNano: UInt64(written), exportedSpans: spans.map(\.span)))
        }
        return .record(
            OTLPSpanJournalRecord(
                kind: kind, writtenUnixNano: UInt64(written), resource: resource, scopedSpan: spans.first,
                interruptedAttribute: interrupted))
    }
}
