/// Where the SDK reads wall-clock time. Inject one in tests and instrumentations that need a fixed clock.
public protocol OTLPClock: Sendable {
    /// Nanoseconds since the Unix epoch.
    func nowUnixNano() -> UInt64
}
