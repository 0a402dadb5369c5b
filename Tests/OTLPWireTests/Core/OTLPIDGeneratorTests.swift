import Foundation
import OTLPWire
import Testing

/// The random ID generator: per-thread generators seeded from the system's randomness.
@Suite("OTLPRandomIDGenerator")
struct OTLPIDGeneratorTests {
    @Test("200,000 trace and span IDs: none zero, none repeated, each bit set about half the time")
    func unique() {
        let generator = OTLPRandomIDGenerator()
        var traceIDs = Set<OTLPTraceID>()
        var spanIDs = Set<OTLPSpanID>()
        var bitCounts = [Int](repeating: 0, count: 64)
        for _ in 0..<100_000 {
            let traceID = generator.newTraceID()
            let spanID = generator.newSpanID()
            #expect(!traceID.isZero && !spanID.isZero)
            traceIDs.insert(traceID)
            spanIDs.insert(spanID)
            for bit in 0..<64 where spanID.value >> UInt64(bit) & 1 == 1 { bitCounts[bit] += 1 }
        }
        #expect(traceIDs.count == 100_000 && spanIDs.count == 100_000)
        // 100,000 fair draws per bit: 50,000 ± 1,500 is more than 9 standard deviations.
        #expect(bitCounts.allSatisfy { (48_500...51_500).contains($0) }, "\(bitCounts)")
    }

    @Test("threads draw independent sequences: 8 threads × 20,000 span IDs, none repeated across threads")
    func threads() {
        let drawn = Drawn()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let generator = OTLPRandomIDGenerator()
            drawn.add((0..<20_000).map { _ in generator.newSpanID() })
        }
        #expect(drawn.all.count == 160_000)
        #expect(Set(drawn.firsts).count == 8)
    }
}

/// The IDs several threads drew.
private final class Drawn: @unchecked Sendable {
    private let lock = NSLock()
    private var ids = Set<OTLPSpanID>()
    private var firstIDs: [OTLPSpanID] = []

    var all: Set<OTLPSpanID> { lock.withLock { ids } }
    var firsts: [OTLPSpanID] { lock.withLock { firstIDs } }

    func add(_ drawn: [OTLPSpanID]) {
        lock.withLock {
            firstIDs.append(drawn[0])
            ids.formUnion(drawn)
        }
    }
}
