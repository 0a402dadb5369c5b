internal import OTLPWire
import Foundation

/// Queues finished items and exports them in batches on a worker thread, as the OpenTelemetry
/// specification's batching processor (`BatchSpanProcessor`, `BatchLogRecordProcessor`) does.
///
/// ``onEnd(_:)`` only appends to a bounded queue under a short lock: it never waits for the exporter. The
/// worker does the items' deferred work (``OTLPExportable/prepareForExport()``: a span's attribute conversion)
/// off the callers' threads; once the queue is half full, callers do it themselves, so a worker that falls
/// behind gets help before the queue overflows. With an exporter that can render batches off its lock
/// (``OTLPRenderingExporter``: the file and stream exporter), such a caller also takes the oldest batch off
/// the queue and renders it itself (encoding, checks, compression), and the worker only writes it: a burst is
/// then exported at the pace of all its producers, and the worker takes one batch at a time so that the rest
/// stays there for them. When the queue is full the item is dropped and counted (`queue_full`), or, with
/// ``OTLPBatchConfiguration/WhenFull/wait``, the caller waits for room, at most
/// ``OTLPBatchConfiguration/whenFullTimeoutSeconds`` (then the item is dropped and counted,
/// `queue_full_after_wait`; a shutdown releases waiting callers, their items counted as `shut_down`).
///
/// Memory goes back to the thread that allocated it: an exported batch's array holds new items
/// (``OTLPBatchQueue/recycle(_:)``), and a span's attributes in the Tracing API's form, converted on the worker,
/// are freed by the callers that hand on the next items (``OTLPDeferredReleases``; not those holding the
/// application's own values), or by the worker once none came for the schedule delay, and at shutdown. Freed on
/// the worker, glibc's allocator made both threads contend for the callers' arena lock and give pages back and
/// fault them in again, which cost the process more than the work. Items are never freed under the stage's lock:
/// freeing one can run the application's code, which may end a span.
///
/// The worker exports when a full batch is waiting, when the schedule delay has passed since the oldest
/// waiting item arrived, or when asked to flush; with nothing queued it sleeps until an item arrives (it never
/// wakes up idle). ``forceFlush()`` and ``shutdown()`` return once everything queued before the call has been
/// exported (batches callers are rendering included); they give up only when the worker has completed no
/// batch for the export timeout (a sink stuck in a write). ``shutdown()`` then returns without waiting further
/// and reports how many items the worker still holds: the worker exports them when the write completes, then
/// shuts the exporter down. ``shutdown(before:)`` also ends
/// by a deadline: what the exporter has not been handed by then is counted dropped (`shutdown_timeout`), and
/// the worker exports nothing more.
package final class OTLPBatchStage<Exporter: OTLPExporter>: OTLPExportStage, @unchecked Sendable {
    /// The items handed on: the exporter's.
    package typealias Item = Exporter.Item

    /// The configuration in effect: the one given, clamped into its ranges.
    package let configuration: OTLPBatchConfiguration
    private let exporter: Exporter
    /// The exporter announces and acknowledges journaled spans itself (the file output's stream exporter).
    private let journalsItself: Bool
    /// Whether the exporter is a durable destination of journaled spans (a spool): its acknowledgements count.
    private let isDurableDestination: Bool
    /// The exporter's kind of durable destination (a file, a spool): recovered spans it holds already are
    /// taken out of its batches (counted exported).
    private let destinationKind: OTLPExportDestination.Kind?
    private let counters: OTLPTelemetryCounters
    /// Guards the stage's state. The properties the callers' path reads and writes (under this lock) are
    /// `@exclusivity(unchecked)`: the lock already keeps accesses from overlapping, and the runtime's check of
    /// each access (a thread-local access set, entered and left per access) cost callers about 460
    /// instructions per span.
    private let condition = NSCondition()
    @exclusivity(unchecked) private var queue: OTLPBatchQueue<Item>
    /// What the worker's preparation of items left for callers to free (``OTLPDeferredReleases``): at most
    /// the queue's size; the worker frees what is left when it goes idle.
    @exclusivity(unchecked) private var deferredReleases = OTLPDeferredReleases()
    @exclusivity(unchecked) private var isShutDown = false
    private var workerFinished = false
    /// Flush requests made, and flush requests the worker has completed.
    private var flushRequested = 0
    private var flushCompleted = 0
    /// Batches the worker has handed to the exporter: the progress that waiting callers watch.
    private var batchesCompleted = 0
    /// Times the idle worker woke up with nothing to do (a spinning worker would make this grow).
    private var idleWakeups = 0
    /// Callers waiting for room in a full queue (``OTLPBatchConfiguration/WhenFull/wait``).
    @exclusivity(unchecked) private var waitingCallers = 0
    /// Items taken from the queue and not yet exported (the batch with the exporter included).
    private var inFlight = 0
    /// Items of the batch the exporter holds now.
    private var exporting = 0
    /// Set when shutdown's deadline passed: what is left was counted dropped, and the worker exports nothing
    /// more.
    private var isAbandoned = false
    /// Items of the caller-rendered batch the worker is writing now.
    private var writingRenderedItems = 0
    /// Items dropped for a full queue since the worker last took the queue, and the most the queue would
    /// have had to hold at once (``peakQueueDemand``).
    @exclusivity(unchecked) private var overflowSinceTake = 0
    private var peakDemand = 0
    /// Queued items from which callers do their item's deferred work themselves
    /// (``OTLPExportable/prepareForExport()``): half the queue.
    private let helpThreshold: Int
    /// The exporter, when it can render batches off its lock (``OTLPRenderingExporter``): callers that find
    /// the queue three quarters full then take a batch off it and render it themselves.
    private let renderingExporter: (any OTLPRenderingExporter<Item>)?
    /// Queued items from which a caller renders a batch itself: half the queue.
    private let renderThreshold: Int
    /// Items callers may hold taken off the queue or rendered: four times the queue's size, as rendered
    /// batches are encoded (and compressed) bytes, several times smaller than the items they hold, and the
    /// worker, busy with its own batch, writes them in turn.
    private let renderBudget: Int
    /// Items callers took off the queue and are rendering now, and the batches they rendered (with the
    /// items they hold), waiting for the worker to write them: together at most ``renderBudget`` items.
    /// A stuck sink stops the rendering once that is reached, then the queue fills up and drops.
    @exclusivity(unchecked) private var renderingItems = 0
    private var rendered: [OTLPRenderedBatch] = []
    @exclusivity(unchecked) private var renderedItems = 0
    /// Batches callers rendered so far (for tests).
    private var callerRenderedBatches = 0
    private let diagnostics: @Sendable (String) -> Void
    /// The clock of the schedule delay, the export timeout, shutdown's deadline and the `whenFull` wait.
    private let clock: any OTLPWaitableClock

    /// - Parameters:
    ///   - exporter: where batches go, from one worker thread.
    ///   - counters: where received and dropped items are counted.
    ///   - configuration: values out of range are clamped (see ``OTLPBatchConfiguration/clamped``).
    ///   - diagnostics: where a shutdown that gave up on a stuck exporter is reported (default: standard
    ///     error).
    ///   - clock: the clock the stage's waits and deadlines follow (default: the system's monotonic clock; a
    ///     test's manual clock moves them without waiting).
    package init(
        exporter: Exporter, counters: OTLPTelemetryCounters, configuration: OTLPBatchConfiguration = .default,
        diagnostics: @escaping @Sendable (String) -> Void = OTLPDiagnostics.standardError,
        clock: any OTLPWaitableClock = OTLPSystemMonotonicClock()
    ) {
        self.diagnostics = diagnostics
        self.clock = clock
        self.exporter = exporter
        self.counters = counters
        self.configuration = configuration.clamped
        queue = OTLPBatchQueue(batchSize: self.configuration.maxExportBatchSize)
        helpThreshold = max(1, self.configuration.maxQueueSize / 2)
        renderingExporter = exporter as? any OTLPRenderingExporter<Item>
        journalsItself = exporter is any OTLPSpanJournalAcknowledging
        isDurableDestination = OTLPSpanJournal.isDurableDestination(exporter)
        destinationKind = OTLPSpanJournal.destinationKind(of: exporter)
        renderThreshold = max(2, self.configuration.maxQueueSize / 2)
        renderBudget = self.configuration.maxQueueSize * 4
        let thread = Thread { [self] in work() }
        thread.name = "OTLPBatchStage"
        thread.start()
    }

    // Callers reach the stage through `any OTLPExportStage`, whose witness runs the generic body: these make it
    // jump to a body compiled for the pipeline's exporters (the generic one looked up array metadata and
    // witness tables on every call, a third of the caller's cost of handing a span on).
    @_specialize(where Exporter == OTLPStreamExporter<OTLPScopedSpan>)
    @_specialize(where Exporter == OTLPStreamExporter<OTLPScopedLogRecord>)
    @_specialize(where Exporter == OTLPAnyExporter<OTLPScopedSpan>)
    @_specialize(where Exporter == OTLPAnyExporter<OTLPScopedLogRecord>)
    package func onEnd(_ item: consuming Item) {
        counters.received(1, Item.signal)
        condition.lock()
        // Freed when this call returns, outside the lock, on the caller's thread (see OTLPDeferredReleases).
        let released = deferredReleases.takeForCaller()
        defer { withExtendedLifetime(released) {} }
        // Still behind: the caller takes the oldest batch off the queue and renders it itself (encoding, checks,
        // compression), which spreads the export's cost over the producers and slows them down to its pace. A
        // full queue is made room in this way too, before anything is dropped.
        var batch = takeBatchToRender()
        if let reason = waitForRoom() {
            condition.unlock()
            counters.dropped(1, Item.signal, reason)
            if let renderingExporter, !batch.isEmpty { render(batch, renderingExporter) }
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
            if let reason = waitForRoom() {
                condition.unlock()
                counters.dropped(1, Item.signal, reason)
                if let renderingExporter, !batch.isEmpty { render(batch, renderingExporter) }
                return
            }
            queue.append(prepared)
        } else {
            queue.append(item)
        }
        if batch.isEmpty { batch = takeBatchToRender() }
        // The first item starts the schedule delay; a full batch is exported at once; callers waiting for room
        // have some once a batch left the queue.
        let wake = queue.count == 1 || queue.count == configuration.maxExportBatchSize || (!batch.isEmpty && waitingCallers > 0)
        condition.unlock()
        if wake { condition.broadcast() }
        if let renderingExporter, !batch.isEmpty { render(batch, renderingExporter) }
    }

    /// Takes out of `batch` the recovered spans this stage's destination holds already (a previous process's
    /// export reached it): counted exported, acknowledged to their journal, not written again.
    private func takeOutHeld(_ batch: inout [Item]) {
        guard let destinationKind else { return }
        let held = OTLPSpanJournal.takeOutHeld(&batch, by: destinationKind)
        if held > 0 { counters.exported(held, Item.signal, bytes: 0) }
    }

    /// The oldest batch, taken off the queue for the caller to render (holding `condition`'s lock), when the
    /// exporter can render, the stage is not shut down, the queue is at least half full and callers hold less
    /// than ``renderBudget``; else none.
    private func takeBatchToRender() -> [Item] {
        guard renderingExporter != nil, !isShutDown, queue.count >= renderThreshold,
            renderingItems + renderedItems + configuration.maxExportBatchSize <= renderBudget
        else { return [] }
        let batch = queue.takeFirstBatch()
        renderingItems += batch.count
        return batch
    }

    /// Renders `batch` (taken off the queue by a caller) on the caller's thread and hands it to the worker,
    /// which writes it (the caller never waits for the exporter).
    private func render(_ batch: consuming [Item], _ renderingExporter: any OTLPRenderingExporter<Item>) {
        let taken = batch.count
        takeOutHeld(&batch)
        for index in batch.indices { batch[index].prepareForExport() }
        let result = renderingExporter.render(batch)
        batch.removeAll(keepingCapacity: true)
        condition.lock()
        queue.recycle(consume batch)
        renderingItems -= taken
        if isAbandoned {
            // Shutdown's deadline passed while this caller rendered: nothing more is written.
            condition.unlock()
            counters.dropped(result.itemCount, Item.signal, .shutdownTimeout)
            return
        }
        rendered.append(result)
        renderedItems += result.itemCount
        callerRenderedBatches += 1
        condition.unlock()
        condition.broadcast()
    }

    /// Makes room for one item (holding `condition`'s lock): `nil` when the queue has room, else why the item
    /// is dropped. A full queue drops at once (``OTLPBatchConfiguration/WhenFull/drop``) or after the caller
    /// waited in vain for the worker to take the queue (``OTLPBatchConfiguration/WhenFull/wait``); a shutdown
    /// ends the wait.
    private func waitForRoom() -> OTLPDropReason? {
        if isShutDown { return .shutDown }
        guard queue.count >= configuration.maxQueueSize else { return nil }
        guard configuration.whenFull == .wait else {
            overflowSinceTake += 1
            return .queueFull
        }
        let deadline = clock.deadlineNano(afterSeconds: configuration.whenFullTimeoutSeconds)
        waitingCallers += 1
        condition.broadcast()  // for tests watching waitingCallers; the worker is exporting (the queue is full)
        defer {
            waitingCallers -= 1
            condition.broadcast()
        }
        while queue.count >= configuration.maxQueueSize && !isShutDown {
            if !clock.wait(on: condition, untilMonotonicNano: deadline) { break }
        }
        if isShutDown { return .shutDown }
        guard queue.count >= configuration.maxQueueSize else { return nil }
        overflowSinceTake += 1
        return .queueFullAfterWait
    }

    /// Waits until at least `count` callers wait for room in a full queue (for tests of
    /// ``OTLPBatchConfiguration/WhenFull/wait``).
    func waitUntilCallersWait(atLeast count: Int) {
        condition.lock()
        defer { condition.unlock() }
        while waitingCallers < count { condition.wait() }
    }

    /// Batches callers rendered themselves so far (for tests).
    var callerRenderedBatchCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return callerRenderedBatches
    }

    /// Converted Tracing attributes kept for callers to free now (for tests).
    var deferredReleaseCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return deferredReleases.count
    }

    /// Callers waiting for room in a full queue now (for tests).
    var waitingCallerCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return waitingCallers
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

    /// ``shutdown(beforeMonotonicNano:)`` by a deadline on the system's monotonic clock, carried over to the
    /// stage's clock (as the time left before it).
    @discardableResult
    package func shutdown(before deadline: ContinuousClock.Instant) -> Bool {
        let left = ContinuousClock.now.duration(to: deadline)
        let (seconds, attoseconds) = left.components
        let leftNanos = left <= .zero ? 0 : UInt64(clamping: seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
        return shutdown(deadline: clock.nowMonotonicNano() &+ min(leftNanos, UInt64(86_400) * 1_000_000_000))
    }

    /// ``shutdown()`` that also ends when the stage's clock reads `deadlineNano`: the exporter is told to stop
    /// a little before it (see ``exporterDeadlineNano(before:now:)``), and at the deadline whatever the worker
    /// has not handed to the exporter yet is counted as dropped (`shutdown_timeout`) and discarded. A batch the
    /// exporter still holds then is the exporter's to count.
    @discardableResult
    package func shutdown(beforeMonotonicNano deadlineNano: UInt64) -> Bool {
        shutdown(deadline: deadlineNano)
    }

    @discardableResult
    private func shutdown(deadline: UInt64?) -> Bool {
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
            let now = clock.nowMonotonicNano()
            let stop = Self.exporterDeadlineNano(before: deadline, now: now)
            exporterSeconds = min(exporterSeconds, stop > now ? Double(stop - now) / 1e9 : 0)
        }
        exporter.prepareForShutdown(withinSeconds: exporterSeconds)
        // The worker shuts the exporter down when it has exported everything; it cannot be done from here
        // while an export is stuck (the exporter's lock is held by the write).
        let finished = waitForWorker(until: deadline) { workerFinished }
        var abandoned = 0
        // Freed once the lock is released: freeing an item can run the application's code (an attribute value's
        // deinit), which may end a span and so call onEnd, which takes the lock.
        var abandonedItems: [[Item]] = []
        var abandonedBatches: [OTLPRenderedBatch] = []
        defer { withExtendedLifetime((abandonedItems, abandonedBatches)) {} }
        if !finished, deadline != nil {
            // Past the deadline: what the exporter has not been handed is dropped, and the worker hands it
            // nothing more.
            abandoned = queue.count + inFlight - exporting + renderedItems - writingRenderedItems
            abandonedItems = queue.takeAll()
            inFlight = exporting
            abandonedBatches = rendered
            rendered = []
            renderedItems = writingRenderedItems
            isAbandoned = true
            // The batch stuck with the exporter is counted too, now (the process may end before the write
            // does); should the write end after all, the exporter's count of it takes this one back.
        }
        let pending =
            finished ? 0 : deadline != nil ? exporting + writingRenderedItems : inFlight + queue.count + renderedItems + renderingItems
        if !finished, deadline != nil {
            // Counted before the worker can see `isAbandoned` (the counters' lock is a leaf): a write that ends
            // now settles this count, never one still to come.
            counters.dropped(abandoned, Item.signal, .shutdownTimeout)
            counters.droppedInWriteAtDeadline(pending, Item.signal)
        }
        condition.unlock()
        let noun = Item.signal.noun(2)
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

    /// When an exporter must stop (its retries, a request in flight) for the stage to be done by `deadline`
    /// (both readings of the stage's clock, as `now`): a tenth of the time left before it, at most half a
    /// second, so that the worker can count and hand over what is left.
    static func exporterDeadlineNano(before deadline: UInt64, now: UInt64) -> UInt64 {
        let left = deadline > now ? deadline - now : 0
        return deadline - min(left / 10, 500_000_000)
    }

    /// Waits (holding `condition`'s lock) until `done`, as long as the worker keeps completing batches:
    /// gives up when none completed for the export timeout, or at `hardDeadline`. Returns whether `done`
    /// became true.
    private func waitForWorker(until hardDeadline: UInt64? = nil, done: () -> Bool) -> Bool {
        var progress = batchesCompleted
        var deadline = clock.deadlineNano(afterSeconds: configuration.exportTimeoutSeconds)
        while !done() {
            let wakeUp = hardDeadline.map { min($0, deadline) } ?? deadline
            if clock.wait(on: condition, untilMonotonicNano: wakeUp) { continue }
            if let hardDeadline, clock.nowMonotonicNano() >= hardDeadline { return done() }
            guard batchesCompleted != progress else { return false }
            progress = batchesCompleted
            deadline = clock.deadlineNano(afterSeconds: configuration.exportTimeoutSeconds)
        }
        return true
    }

    /// The most items the queue would have had to hold at once for nothing to be dropped for a full queue:
    /// what it held when the worker took it, plus what was dropped since the worker last took it.
    package var peakQueueDemand: Int {
        condition.lock()
        defer { condition.unlock() }
        return max(peakDemand, queue.count + renderingItems + renderedItems + overflowSinceTake)
    }

    /// How often the worker woke up idle so far (for tests: it sleeps until an item arrives).
    var idleWakeupCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return idleWakeups
    }

    /// Writes the batches callers rendered (on the worker's thread), each counted as a completed batch.
    private func writeRenderedBatches() {
        guard let renderingExporter else { return }
        condition.lock()
        let batches = rendered
        rendered = []
        condition.unlock()
        for batch in batches {
            condition.lock()
            // Past shutdown's deadline the rest was counted dropped already.
            guard !isAbandoned else {
                condition.unlock()
                break
            }
            writingRenderedItems = batch.itemCount
            condition.unlock()
            renderingExporter.write(batch)
            condition.lock()
            renderedItems -= batch.itemCount
            writingRenderedItems = 0
            if isAbandoned { counters.writeEndedAfterDeadline(batch.itemCount, Item.signal) }
            batchesCompleted += 1
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The worker: sleeps while the queue is empty, then waits for a reason to export (a full batch, the
    /// schedule delay since the first waiting item, a flush, shutdown), takes the whole queue in O(1) and
    /// exports it in batches.
    private func work() {
        // What preparing a batch left for callers to free (OTLPDeferredReleases), handed to them after its export.
        var spent = OTLPDeferredReleases()
        condition.lock()
        while true {
            var due: UInt64?
            var releaseDue: UInt64?
            while queue.count < configuration.maxExportBatchSize && rendered.isEmpty && flushCompleted == flushRequested && !isShutDown {
                if queue.isEmpty {
                    due = nil
                    if !deferredReleases.isEmpty {
                        // What callers did not take to free is freed here, once no item came for the schedule delay.
                        let deadline = releaseDue ?? clock.deadlineNano(afterSeconds: configuration.scheduleDelaySeconds)
                        releaseDue = deadline
                        if !clock.wait(on: condition, untilMonotonicNano: deadline) {
                            releaseDue = nil
                            spent.take(from: &deferredReleases, upTo: .max)
                            condition.unlock()
                            spent.releaseAll()
                            condition.lock()
                        }
                        continue
                    }
                    condition.wait()
                    if queue.isEmpty && rendered.isEmpty && flushCompleted == flushRequested && !isShutDown { idleWakeups += 1 }
                    continue
                }
                let deadline = due ?? clock.deadlineNano(afterSeconds: configuration.scheduleDelaySeconds)
                due = deadline
                if !clock.wait(on: condition, untilMonotonicNano: deadline) { break }
            }
            // A flush or shutdown waits for the batches callers are rendering: they hold items queued before it.
            if queue.isEmpty && rendered.isEmpty && renderingItems > 0 {
                condition.wait()
                continue
            }
            peakDemand = max(peakDemand, queue.count + renderingItems + renderedItems + overflowSinceTake)
            overflowSinceTake = 0
            // Batches of at most maxExportBatchSize items, oldest first, as the queue holds them (no copy).
            var taken: [[Item]]
            if renderingExporter != nil && queue.count > configuration.maxExportBatchSize && queue.count >= renderThreshold
                && flushCompleted == flushRequested && !isShutDown
            {
                // Far behind, one batch at a time (unless asked to flush): what stays queued is there for callers to
                // render, and the batches they rendered are written between the worker's own.
                taken = [queue.takeFirstBatch()]
            } else {
                taken = queue.takeAll()
            }
            inFlight = taken.reduce(0) { $0 + $1.count }
            // With items still queued or callers still rendering, a flush or shutdown is completed on a later round.
            let ticket = queue.isEmpty && renderingItems == 0 ? flushRequested : flushCompleted
            let stopping = isShutDown && queue.isEmpty && renderingItems == 0
            let callersWaiting = waitingCallers > 0
            condition.unlock()
            // Callers waiting for room (`whenFull` `wait`) have it now.
            if callersWaiting { condition.broadcast() }

            // Batches rendered by callers first (their items were queued before those taken now), and again
            // after each batch of the worker's own, so that the rendering callers never wait for long.
            writeRenderedBatches()
            for position in taken.indices {
                // Taken out of `taken`, so that the batch is freed once exported (not with the whole round).
                var batch = taken[position]
                taken[position] = []
                let count = batch.count
                condition.lock()
                // Past shutdown's deadline the rest was counted dropped already.
                guard !isAbandoned else {
                    condition.unlock()
                    break
                }
                exporting = count
                condition.unlock()
                takeOutHeld(&batch)
                // Work left by the producers (a span's attribute conversion) is done here, off their threads, a batch
                // at a time, just before it is encoded.
                Item.prepareForExport(&batch, deferringReleasesTo: &spent)
                // The exporters that take spans (the file output, the spool) announce where they write them to
                // the journal (the write-ahead intent); a span is forgotten once its exporter took it.
                if !batch.isEmpty, exporter.export(batch), !journalsItself {
                    OTLPSpanJournal.acknowledgeExported(batch, durable: isDurableDestination)
                }
                // The items are freed here; the array's storage holds new items (OTLPBatchQueue.recycle).
                batch.removeAll(keepingCapacity: true)
                condition.lock()
                queue.recycle(consume batch)
                deferredReleases.take(from: &spent, upTo: configuration.maxQueueSize)
                inFlight -= count
                exporting = 0
                // Shutdown's deadline came during this write and counted the batch: the count is settled now.
                if isAbandoned { counters.writeEndedAfterDeadline(count, Item.signal) }
                batchesCompleted += 1
                condition.broadcast()
                condition.unlock()
                spent.releaseAll()
                writeRenderedBatches()
            }
            if ticket > flushCompleted { exporter.forceFlush() }

            condition.lock()
            flushCompleted = max(flushCompleted, ticket)
            if stopping && queue.isEmpty && rendered.isEmpty && renderingItems == 0 {
                // Shut down: what callers would have freed is freed now, and the spare chunks, not kept as long as
                // the stage is.
                spent.take(from: &deferredReleases, upTo: .max)
                queue.removeAll()
                condition.unlock()
                spent.releaseAll()
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
