import PeerSupport

/// What one signal's run delivered, and what it cost: printed as one JSON line for run.sh.
struct DeliveryResult: JSONLine {
    var mode: String
    var signal: String
    /// Items handed to the SDK.
    var items: Int
    /// Items the SDK reports exported (the collector answered 2xx for their batch).
    var delivered: Int
    /// Items the SDK reports dropped (queue full, export failed), or not accounted for.
    var dropped: Int
    /// From the first item handed to the SDK to the end of its shutdown (everything sent).
    var wallSeconds: Double
    /// User + system CPU time of the whole process over the same interval (every thread: the caller, the
    /// SDK's workers, the HTTP client's event loops).
    var cpuSeconds: Double
    /// Request bodies as encoded (protobuf, before gzip), where the SDK counts them (OTLPWire's bytes
    /// counter); 0 if it does not.
    var encodedBytes: Int
}
