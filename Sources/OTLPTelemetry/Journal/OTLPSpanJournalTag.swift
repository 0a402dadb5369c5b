package import OTLPWire

/// What an ended span carries to the export stage when it is journaled: the journal to tell once the
/// exporter has taken it, and, for a span recovered from a previous process, that process's resource.
package final class OTLPSpanJournalTag: @unchecked Sendable {
    /// The journal that holds the span until it is exported (weak: the journal keeps its own tag).
    package private(set) weak var journal: OTLPSpanJournal?
    /// The resource the span is exported under, when it is not the exporter's (a recovered span's).
    package let resource: OTLPResource?

    package init(journal: OTLPSpanJournal, resource: OTLPResource?) {
        self.journal = journal
        self.resource = resource
    }
}
