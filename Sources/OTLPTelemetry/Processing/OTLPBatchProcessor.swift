internal import OTLPWire
import Foundation

/// Queues finished items and exports them in batches on a worker thread, as the OpenTelemetry
/// specification's batching processor does.
///
/// ``onEnd(_:)`` only appends to a bounded queue under a short lock: it never waits for the exporter. When
/// the queue is full the item is dropped and counted (`queue_full`). The worker exports when a full batch is
/// waiting, when the schedule delay has passed, or when asked to flush. ``forceFlush()`` and
/// ``shutdown()`` return once everything queued before the call has been exported (or the export timeout
/// has passed).
public final class OTLPBatchProcessor<Exporter: OTLPExporter>: OTLPProcessor, @unchecked Sendable {
    public typealias Item = Exporter.Item

    /// Batching settings; defaults are the specification's.
    public struct Configuration: Sendable, Equatable, Codable {
        /// Items held at most; more are dropped. Default 2048.
        public var maxQueueSize: Int
        /// Items per export at most. Default 512.
        public var maxExportBatchSize: Int
        /// Longest wait before a partial batch is exported, in seconds. Default 5.
        public var scheduleDelaySeconds: Double
        /// How long ``forceFlush()`` and ``shutdown()`` wait for the worker, in seconds. Default 30.
        public var exportTimeoutSeconds: Double

        public init(maxQueueSize: Int = 2048, maxExportBatchSize: Int = 512, scheduleDelaySeconds: Double = 5, exportTimeoutSeconds: Double = 30) {
            self.maxQueueSize = maxQueueSize
            self.maxExportBatchSize = maxExportBatchSize
            self.scheduleDelaySeconds = scheduleDelaySeconds
            self.exportTimeoutSeconds = exportTimeoutSeconds
        }
    }

    public let configuration: Configuration
    private let exporter: Exporter
    private let counters: OTLPTelemetryCounters
    private let condition = NSCondition()
    private var queue: [Item] = []
    private var isShutDown = false
    private var workerFinished = false
    /// Flush requests made, and flush requests the worker has completed.
    private var flushRequested = 0
    private var flushCompleted = 0

    public init(exporter: Exporter, counters: OTLPTelemetryCounters, configuration: Configuration = Configuration()) {
        precondition(configuration.maxQueueSize > 0 && configuration.maxExportBatchSize > 0, "queue and batch sizes must be positive")
        self.exporter = exporter
        self.counters = counters
        self.configuration = configuration
        queue.reserveCapacity(min(configuration.maxQueueSize, 1 << 16))
        let thread = Thread { [self] in work() }
        thread.name = "OTLPBatchProcessor"
        thread.start()
    }

    public func onEnd(_ item: Item) {
        counters.received(1, Item.kind)
        condition.lock()
        if isShutDown {
            condition.unlock()
            counters.dropped(1, Item.kind, .shutDown)
            return
        }
        if queue.count >= configuration.maxQueueSize {
            condition.unlock()
            counters.dropped(1, Item.kind, .queueFull)
            return
        }
        queue.append(item)
        let batchReady = queue.count == configuration.maxExportBatchSize
        condition.unlock()
        if batchReady { condition.signal() }
    }

    @discardableResult
    public func forceFlush() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if workerFinished { return true }
        flushRequested += 1
        let ticket = flushRequested
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: configuration.exportTimeoutSeconds)
        while flushCompleted < ticket && !workerFinished {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }

    public func shutdown() {
        condition.lock()
        if isShutDown {
            condition.unlock()
            return
        }
        isShutDown = true
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: configuration.exportTimeoutSeconds)
        while !workerFinished {
            if !condition.wait(until: deadline) { break }
        }
        condition.unlock()
        exporter.shutdown()
    }

    /// The worker: waits for a reason to export, takes the whole queue in O(1), exports it in batches.
    private func work() {
        condition.lock()
        while true {
            var deadline = Date(timeIntervalSinceNow: configuration.scheduleDelaySeconds)
            while queue.count < configuration.maxExportBatchSize && flushCompleted == flushRequested && !isShutDown {
                if !condition.wait(until: deadline) {
                    if !queue.isEmpty { break }
                    deadline = Date(timeIntervalSinceNow: configuration.scheduleDelaySeconds)
                }
            }
            let taken = queue
            queue = []
            queue.reserveCapacity(min(configuration.maxQueueSize, 1 << 16))
            let ticket = flushRequested
            let stopping = isShutDown
            condition.unlock()

            var start = 0
            while start < taken.count {
                let end = min(start + configuration.maxExportBatchSize, taken.count)
                exporter.export(Array(taken[start..<end]))
                start = end
            }
            if ticket > flushCompleted { exporter.forceFlush() }

            condition.lock()
            flushCompleted = max(flushCompleted, ticket)
            if stopping && queue.isEmpty {
                exporter.forceFlush()
                workerFinished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.broadcast()
        }
    }
}
