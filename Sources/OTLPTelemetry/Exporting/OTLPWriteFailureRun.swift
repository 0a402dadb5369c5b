/// The failed writes of an output since its last good one, so that a failure that never clears (a full disk,
/// a read-only file system) is reported when it starts, when its cause changes, at 10, 100, 1,000… failed
/// batches and when writing works again: not once per batch. Every dropped item is counted
/// (`write_failed`) whether or not its batch was reported.
struct OTLPWriteFailureRun {
    /// Batches failed since the last good write.
    private(set) var batches = 0
    /// Items in those batches.
    private(set) var items = 0
    /// The cause last reported in this run.
    private var reportedCause: String?

    /// Records a batch of `count` items that failed for `cause`; returns what to report, if anything.
    mutating func failed(_ count: Int, noun: (Int) -> String, cause: String) -> String? {
        batches += 1
        items += count
        if cause != reportedCause {
            let first = reportedCause == nil
            reportedCause = cause
            let repeats = first ? " (while this lasts, reported again at 10, 100, 1,000… failed batches)" : ""
            return "\(count) \(noun(count)) dropped: \(cause)\(repeats)"
        }
        guard Self.isPowerOfTen(batches) else { return nil }
        return "still failing: \(batches) batches (\(items) \(noun(items))) dropped since the first failure: \(cause)"
    }

    /// Records a good write; returns what to report when it ends a run of failures of which some were not
    /// reported.
    mutating func succeeded(noun: (Int) -> String) -> String? {
        defer { self = OTLPWriteFailureRun() }
        guard batches > 1 else { return nil }
        return "writing again after \(batches) failed batches (\(items) \(noun(items)) dropped, counted write_failed)"
    }

    private static func isPowerOfTen(_ value: Int) -> Bool {
        var value = value
        while value >= 10 && value % 10 == 0 { value /= 10 }
        return value == 1
    }
}
