internal import COTLPShims

/// Random IDs from a per-thread xoshiro256** generator seeded from the system's cryptographically secure
/// generator (`SystemRandomNumberGenerator`) on each thread's first use and again in a child after `fork`:
/// no lock and no system call per ID (the system's generator costs a `getrandom` call per 64 bits). IDs are
/// random and unique as W3C Trace Context asks; they are not secrets, so they need no cryptographic strength
/// beyond the seed (as OpenTelemetry's other SDKs do).
public struct OTLPRandomIDGenerator: OTLPIDGenerator {
    /// A generator over the calling thread's seeded generator.
    public init() {}

    /// 128 random bits, drawn again in the (unlikely) event they are all zeros.
    public func newTraceID() -> OTLPTraceID {
        while true {
            let id = OTLPTraceID(high: Self.next(), low: Self.next())
            if !id.isZero { return id }
        }
    }

    /// 64 random bits, drawn again in the (unlikely) event they are all zeros.
    public func newSpanID() -> OTLPSpanID {
        while true {
            let id = OTLPSpanID(Self.next())
            if !id.isZero { return id }
        }
    }

    /// The next 64 bits of the calling thread's generator, seeded first if it must be.
    @inline(__always)
    static func next() -> UInt64 {
        var value: UInt64 = 0
        if COTLPShims_random_next(&value) { return value }
        var system = SystemRandomNumberGenerator()
        COTLPShims_random_seed(system.next(), system.next(), system.next(), system.next())
        _ = COTLPShims_random_next(&value)
        return value
    }
}
