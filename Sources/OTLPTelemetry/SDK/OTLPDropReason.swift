/// Why an item was dropped instead of exported.
public enum OTLPDropReason: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The batching queue was full.
    case queueFull = "queue_full"
    /// The batching queue stayed full for as long as the caller waited for room
    /// (`OTLPBatchConfiguration.whenFull` `wait`, at most its `whenFullTimeoutSeconds`).
    case queueFullAfterWait = "queue_full_after_wait"
    /// The exporter could not write the batch (disk full, read-only file system, closed pipe).
    case writeFailed = "write_failed"
    /// The item arrived after shutdown.
    case shutDown = "shut_down"
    /// Shutdown's deadline (`shutdownTimeoutSeconds`) passed before the item was exported, and there was no
    /// spool to keep it for the next run.
    case shutdownTimeout = "shutdown_timeout"
    /// A rotated file holding the item was deleted by the retention policy.
    case retention
    /// The signal has no output configured.
    case disabled
    /// The item alone would make a record that readers with their default limits refuse (over the record
    /// size or decoded memory limit, nesting too deep, too many attributes), so it was left out of its batch;
    /// the rest of the batch was exported.
    case itemTooLarge = "item_too_large"
    /// The collector refused these items: an OTLP partial success named them, or it refused their request
    /// for its content (400 with an OTLP `Status`) or as too large alone (413). A spool keeps such requests
    /// in its quarantine.
    case rejected
    /// The request was not delivered, and there was no spool to keep it: the collector could not be reached
    /// or kept answering with retryable statuses (429, 502, 503, 504) until the export timeout ran out, or
    /// answered as no OTLP endpoint would (401, 403, 404, a redirect, a 5xx, an answer that is not OTLP).
    case exportFailed = "export_failed"
    /// The spool (store and forward) was over its size limit: the oldest file waiting for upload was deleted.
    case spoolFull = "spool_full"
    /// A spool file could not be read back (damaged on disk, or deleted by someone else): the items after the
    /// damage were lost.
    case spoolDamaged = "spool_damaged"

    public var description: String { rawValue }
}
