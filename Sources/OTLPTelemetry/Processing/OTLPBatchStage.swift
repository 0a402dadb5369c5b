internal import OTLPWire
import Foundation

/// Queues finished items and exports them in batches on a worker thread, as the OpenTelemetry
/// specification's batching processor (`BatchSpanProcessor`, `BatchLogRecordProcessor`) does.
///
/// ``onEnd(_:)`` only appends to a bounded queue under a short lock: it never waits for the exporter. The
/// worker does the items' deferred work (``OTLPExportable/prepareForExport()``: a span's attribute conversion)
/// off the callers' threads; once the queue is half full, callers do it themselves, so a worker that falls
/// behind gets help before the queue overflows. When the queue is full the item is dropped and counted
/// (`queue_full`). The worker exports when a full batch is waiting, when the schedule delay has passed since
/// the oldest waiting item arrived, or when asked to flush; with nothing queued it sleeps until an item
/// arrives (it never wakes up idle). ``forceFlush()`` and ``shutdown()`` return once everything queued before
/// the call has been exported; they give up only when the worker has completed no batch for the export
/// timeout (a sink stuck in a write). ``shutdown()`` then returns without waiting further and reports how many
/// items the worker still holds: the worker exports them when the write completes, then shuts the exporter
/// down. ``shutdown(before:)`` also ends by a deadline: what the exporter has not been handed by then is
/// counted dropped (`shutdown_timeout`), and the worker exports nothing more.
package final class OTLPBatchStage<Exporter: OTLPExporter>: OTLPExportStage, @unchecked Sendable {
    /// The items handed on: the exporter's.
    package typealias Item = Exporter.Item

    /// The configuration in effect: the one given, clamped into its ranges.
    package let configuration: OTLPBatchConfiguration
    private let exporter: Exporter
    private let counters: OTLPTelemetryCounters
    private let condition = NSCondition()
    private var queue: [Item] = []
    private var isShutDown = false
    private var workerFinished = false
    /// Flush requests made, and flush requests the worker has completed.
    private var flushRequested = 0
    private var flushCompleted = 0
    /// Batches the worker has handed to the exporter: the progress that waiting callers watch.
    private var batchesCompleted = 0
    /// Times the idle worker woke up with nothing to do (a spinning worker would make this grow).
    private var idleWakeups = 0
    /// Items taken from the queue and not yet exported (the batch with the exporter included).
    private var inFlight = 0
    /// Items of the batch the exporter holds now.
    private var exporting = 0
    /// Set when shutdown's deadline passed: what is left was counted dropped, and the worker exports nothing
    /// more.
    private var isAbandoned = false
    /// Items of the write that was still with the exporter when shutdown's deadline passed (counted dropped then).
    private var stuckAtDeadline = 0
    /// Items dropped for a full queue since the worker last took the queue, and the most the queue would
    /// have had to hold at once (``peakQueueDemand``).
    private var overflowSinceTake = 0
    private var peakDemand = 0
    /// Queued items from which callers do their item's deferred work themselves
    /// (``OTLPExportable/prepareForExport()``): half the queue.
    private let helpThreshold: Int
    private let diagnostics: @Sendable (String) -> Void

    /// - Parameters:
    ///   - exporter: where batches go, from one worker thread.
    ///   - counters: where received and dropped items are counted.
    ///   - configuration: values out of range are clamped (see ``OTLPBatchConfiguration/clamped``).
    ///   - diagnostics: where a shutdown that gave up on a stuck exporter is reported (default: standard
    ///     error).
    package init(
        exporter: Exporter, counters: OTLPTelemetryCounters, configuration: OTLPBatchConfiguration = .default,
        diagnostics: @escaping @Sendable (String) -> Void = OTLPDiagnostics.standardError
    ) {
        self.diagnostics = diagnostics
        self.exporter = exporter
        self.counters = counters
        self.configuration = configuration.clamped
        helpThreshold = max(1, self.configuration.maxQueueSize / 2)
        queue.reserveCapacity(min(self.configuration.maxQueueSize, 1 << 16))
        let thread = Thread { [self] in work() }
        thread.name = "OTLPBatchStage"
        thread.start()
    }

    package func onEnd(_ item: Item) {
        counters.received(1, Item.signal)
        condition.lock()
        if isShutDown {
            condition.unlock()
            counters.dropped(1, Item.signal, .shutDown)
            return
        }
        if queue.count >= configuration.maxQueueSize {
            overflowSinceTake += 1
            condition.unlock()
            counters.dropped(1, Item.signal, .queueFull)
            return
        }
        if queue.count >= helpThreshold {
            // The worker is behind: the caller does the item's deferred work itself (a span's attribute
            // conversion), which takes that share off the worker and slows the producer down before the queue
            // overflows and items are lost.
            condition.unlock()
            var prepared = item
            prepared.prepareForExport()
            condition.lock()
            guard !isShutDown, queue.count < configuration.maxQueueSize else {
                let reason: OTLPDropReason = isShutDown ? .shutDown : .queueFull
                if !isShutDown { overflowSinceTake += 1 }
                condition.unlock()
                counters.dropped(1, Item.signal, reason)
                return
            }
            queue.append(prepared)
        } else {
            queue.append(item)
        }
        // The first item starts the schedule delay; a full batch is exported at once.
        let wake = queue.count == 1 || queue.count == configuration.maxExportBatchSize
        condition.unlock()
        if wake { condition.broadcast() }
    }

    @discardableResult
    package func forceFlush() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if workerFinished { return true }
        flushRequested += 1
        let ticket = flushRequested
        condition.broadcast()
        return waitForWorker { flushCompleted >= ticket || workerFinished }
    }

    package func shutdown() {
        shutdown(deadline: nil)
    }

    /// ``shutdown()`` that also ends by `deadline`: the exporter is told to stop a little before it (see
    /// ``exporterDeadline(before:now:)``), and at `deadline` whatever the worker has not handed to the exporter
    /// yet is counted as dropped (`shutdown_timeout`) and discarded. A batch the exporter still holds then is
    /// the exporter's to count.
    @discardableResult
    package func shutdown(before deadline: ContinuousClock.Instant) -> Bool {
        shutdown(deadline: deadline)
    }

    @discardableResult
    private func shutdown(deadline: ContinuousClock.Instant?) -> Bool {
        condition.lock()
        if isShutDown {
            condition.unlock()
            return true
        }
        isShutDown = true
        condition.broadcast()
        // An exporter retrying against an unreachable collector stops waiting when the timeout is up, or
        // before the deadline.
        var exporterSeconds = configuration.exportTimeoutSeconds
        if let deadline {
            let now = ContinuousClock.now
            exporterSeconds = min(exporterSeconds, Self.seconds(Self.exporterDeadline(before: deadline, now: now) - now))
        }
        exporter.prepareForShutdown(withinSeconds: exporterSeconds)
        // The worker shuts the exporter down when it has exported everything; it cannot be done from here
        // while an export is stuck (the exporter's lock is held by the write).
        let finished = waitForWorker(until: deadline) { workerFinished }
        var abandoned = 0
        if !finished, deadline != nil {
            // Past the deadline: what the exporter has not been handed is dropped, and the worker hands it
            // nothing more.
            abandoned = queue.count + inFlight - exporting
            queue = []
            inFlight = exporting
            isAbandoned = true
            // The batch stuck with the exporter is counted dropped too, now: the process may end before the
            // write does. Should the write complete after all, the worker takes this count back (the exporter
            // counts the batch itself), so every item is counted once.
            stuckAtDeadline = exporting
        }
        let pending = inFlight + queue.count
        condition.unlock()
        let noun = Item.signal.noun(2)
        if abandoned + pending > 0, !finished, deadline != nil {
            counters.dropped(abandoned + pending, Item.signal, .shutdownTimeout)
        }
        if !finished, deadline != nil {
            diagnostics(
                "OTLPWire telemetry: shutdown's deadline passed: \(abandoned + pending) \(Item.signal.noun(abandoned + pending)) not exported dropped (\(OTLPDropReason.shutdownTimeout))"
                    + (pending > 0 ? ", \(pending) of them in a write to the exporter that had not ended" : ""))
        } else if !finished {
            diagnostics(
                "OTLPWire telemetry: shutdown gave up after \(configuration.exportTimeoutSeconds) s without progress; "
                    + "\(pending) \(noun) are still being exported")
        }
        return finished
    }

    /// When an exporter must stop (its retries, a request in flight) for the stage to be done by `deadline`: a
    /// tenth of the time left before it, at most half a second, so that the worker can count and hand over
    /// what is left.
    static func exporterDeadline(before deadline: ContinuousClock.Instant, now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        let left = max(.zero, deadline - now)
        return deadline - min(left / 10, .milliseconds(500))
    }

    /// A duration in seconds, 0 for a negative one.
    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return max(0, Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Waits (holding `condition`'s lock) until `done`, as long as the worker keeps completing batches:
    /// gives up when none completed for the export timeout, or at `hardDeadline`. Returns whether `done`
    /// became true.
    private func waitForWorker(until hardDeadline: ContinuousClock.Instant? = nil, done: () -> Bool) -> Bool {
        var progress = batchesCompleted
        var deadline = Self.deadline(after: configuration.exportTimeoutSeconds)
        while !done() {
            let wakeUp = hardDeadline.map { min($0, deadline) } ?? deadline
            if condition.wait(until: wakeUp) || ContinuousClock.now < wakeUp { continue }
            if let hardDeadline, ContinuousClock.now >= hardDeadline { return done() }
            guard batchesCompleted != progress else { return false }
            progress = batchesCompleted
            deadline = Self.deadline(after: configuration.exportTimeoutSeconds)
        }
        return true
    }

    /// The most items the queue would have had to hold at once for nothing to be dropped for a full queue:
    /// what it held when the worker took it, plus what was dropped since the worker last took it.
    package var peakQueueDemand: Int {
        condition.lock()
        defer { condition.unlock() }
        return max(peakDemand, queue.count + overflowSinceTake)
    }

    /// How often the worker woke up idle so far (for tests: it sleeps until an item arrives).
    var idleWakeupCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return idleWakeups
    }

    /// Now plus `seconds` on the monotonic clock (a wall clock set back or ahead moves no deadline), kept
    /// within one day (NaN: now).
    static func deadline(after seconds: Double) -> ContinuousClock.Instant {
        .now + .seconds(OTLPSettingClamp.clamp(seconds, to: 0...86_400, default: 0))
    }

    /// The worker: sleeps while the queue is empty, then waits for a reason to export (a full batch, the
    /// schedule delay since the first waiting item, a flush, shutdown), takes the whole queue in O(1) and
    /// exports it in batches.
    private func work() {
        condition.lock()
        while true {
            var due: ContinuousClock.Instant?
            while queue.count < configuration.maxExportBatchSize && flushCompleted == flushRequested && !isShutDown {
                if queue.isEmpty {
                    due = nil
                    condition.wait()
                    if queue.isEmpty && flushCompleted == flushRequested && !isShutDown { idleWakeups += 1 }
                    continue
                }
                let deadline = due ?? Self.deadline(after: configuration.scheduleDelaySeconds)
                due = deadline
                if ContinuousClock.now >= deadline { break }
                _ = condition.wait(until: deadline)
            }
            var taken = queue
            peakDemand = max(peakDemand, taken.count + overflowSinceTake)
            overflowSinceTake = 0
            inFlight = taken.count
            queue = []
            queue.reserveCapacity(min(configuration.maxQueueSize, 1 << 16))
            let ticket = flushRequested
            let stopping = isShutDown
            condition.unlock()

            // Work left by the producers (a span's attribute conversion) is done here, off their threads.
            for index in taken.indices { taken[index].prepareForExport() }
            var start = 0
            while start < taken.count {
                let end = min(start + configuration.maxExportBatchSize, taken.count)
                condition.lock()
                // Past shutdown's deadline the rest was counted dropped already.
                guard !isAbandoned else {
                    condition.unlock()
                    break
                }
                exporting = end - start
                condition.unlock()
                let batch = end - start == taken.count ? taken : Array(taken[start..<end])
                OTLPSpanJournal.markExporting(batch)
                if exporter.export(batch) { OTLPSpanJournal.acknowledgeExported(batch) }
                condition.lock()
                inFlight -= end - start
                if stuckAtDeadline > 0 {
                    // This write outlived shutdown's deadline, which counted its items dropped: the exporter has
                    // counted them now.
                    counters.withdrawDropped(stuckAtDeadline, Item.signal, .shutdownTimeout)
                    stuckAtDeadline = 0
                }
                exporting = 0
                batchesCompleted += 1
                condition.broadcast()
                condition.unlock()
                start = end
            }
            if ticket > flushCompleted { exporter.forceFlush() }

            condition.lock()
            flushCompleted = max(flushCompleted, ticket)
            if stopping && queue.isEmpty {
                condition.unlock()
                exporter.shutdown()  // flushes first
                condition.lock()
                workerFinished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.broadcast()
        }
    }
}
