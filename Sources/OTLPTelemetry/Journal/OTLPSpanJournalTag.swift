package import OTLPWire

/// What an ended span carries to the export stage when it is journaled: the journal to tell once the
/// exporter has taken it, and, for a span recovered from a previous process, that process's resource.
package final class OTLPSpanJournalTag: @unchecked Sendable {
    /// The journal that holds the span until it is exported (weak: the journal keeps its own tag).
    package private(set) weak var journal: OTLPSpanJournal?
    /// The resource the span is exported under, when it is not the exporter's (a recovered span's).
    package let resource: OTLPResource?
    /// For a recovered span, the destinations that hold it already (the previous process's export reached
    /// them, not all): they skip it, so that each destination gets it once.
    package let heldBy: Set<OTLPExportDestination.Kind>

    package init(journal: OTLPSpanJournal, resource: OTLPResource?, heldBy: Set<OTLPExportDestination.Kind> = []) {
        self.journal = journal
        self.resource = resource
        self.heldBy = heldBy
    }
}
