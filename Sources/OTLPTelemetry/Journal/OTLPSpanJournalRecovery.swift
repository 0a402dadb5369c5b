public import OTLPWire

/// What ``OTLPTelemetry/openSpanJournal(directory:)`` found of the previous process's journal: the spans it
/// exports first (those that process started and never exported), and what it could not use.
public struct OTLPSpanJournalRecovery: Sendable, Equatable {
    /// The recovered spans, in the order they were journaled: ended ones as they ended, unended ones ended at
    /// the previous process's last heartbeat with status `ERROR` ("the process ended before the span ended").
    public var spans: [OTLPSpan]
    /// Journal records that could not be used (damaged, cut short by the end of the file, not a journal's,
    /// written by a newer format version, past the size bound); the file holding them was set aside. What
    /// follows a record whose length cannot be believed is not read: it counts as one record here, and all of
    /// its bytes in `skippedBytes`.
    public var skippedRecords: Int
    /// The bytes of the journal that were skipped or not read (the records counted in ``skippedRecords``).
    package var skippedBytes = 0
    /// Spans left out because their last heartbeat was older than the journal's age bound.
    public var expiredSpans: Int
    /// Where the previous journal was moved because part of it could not be read (`nil` when all of it was).
    public var setAsidePath: String?

    /// Nothing recovered, nothing skipped.
    package static let empty = OTLPSpanJournalRecovery(spans: [], skippedRecords: 0, expiredSpans: 0, setAsidePath: nil)
}
