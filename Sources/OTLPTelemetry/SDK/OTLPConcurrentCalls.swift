import Foundation

/// Runs blocking calls at the same time, each on a thread of its own (a shutdown waiting for a collector
/// must not wait for another's turn, whatever the number of cores), and returns their results in order.
package enum OTLPConcurrentCalls {
    /// The results of `calls`, run at once; the last on the calling thread.
    package static func run<Result: Sendable>(_ calls: [@Sendable () -> Result]) -> [Result] {
        guard let last = calls.last else { return [] }
        let results = OTLPResultSlots<Result>(count: calls.count)
        let group = DispatchGroup()
        for (index, call) in calls.dropLast().enumerated() {
            group.enter()
            let thread = Thread {
                results.set(index, call())
                group.leave()
            }
            thread.name = "OTLPConcurrentCalls"
            thread.start()
        }
        results.set(calls.count - 1, last())
        group.wait()
        return results.all
    }
}

/// One result slot per call, filled from the calls' threads.
private final class OTLPResultSlots<Result: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Result) { lock.withLock { slots[index] = value } }

    /// Every slot, once every call has returned.
    var all: [Result] { lock.withLock { slots.map { $0! } } }
}
