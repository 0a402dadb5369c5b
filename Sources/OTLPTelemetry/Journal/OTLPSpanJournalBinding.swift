/// How a tracer journals its spans: the journal, and the attribute set to `true` on a span recovered unended
/// (`launch.interrupted`, `view.interrupted`; none for the application's own spans).
package struct OTLPSpanJournalBinding: Sendable {
    package let journal: OTLPSpanJournal
    package let interruptedAttribute: String?

    package init(journal: OTLPSpanJournal, interruptedAttribute: String?) {
        self.journal = journal
        self.interruptedAttribute = interruptedAttribute
    }
}
