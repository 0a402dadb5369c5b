import Foundation
public import OTLPTelemetry
public import OTLPWire

/// Delivers batches of spans or log records to an OpenTelemetry collector over OTLP/HTTP: one request per
/// batch, protobuf (`application/x-protobuf`) or OTLP JSON (`application/json`), gzipped unless the endpoint
/// says `none`, retried as ``OTLPHTTPRetryPolicy`` says within the endpoint's timeout.
///
/// Give it to `OTLPTracer(exporter:...)` or `OTLPLogEmitter(exporter:...)` (with batching, the caller never
/// waits for the network: the batching worker thread does), or let `OTLPTelemetry` make it from the configuration's
/// `otlp` section with ``OTLPHTTPExporterFactory``. What becomes of every item is counted in `counters`:
/// accepted items as exported; a partial success's rejected items, and those of a request refused for its
/// content (400 with an OTLP `Status`) or as too large alone, as dropped (`rejected`); a batch not delivered
/// (unreachable, or an answer such as 401, 404 or 500: there is no spool to keep it in) as dropped
/// (`export_failed`); a batch not sent because shutdown's deadline had passed as dropped
/// (`shutdown_timeout`); and retries per signal. A 413 splits the batch into halves sent in turn. Refusals and
/// partial successes are reported to `diagnostics` with the collector's message.
public final class OTLPHTTPExporter<Item: OTLPExportable>: OTLPExporter, @unchecked Sendable {
    /// Where, how and for how long batches are sent.
    package var endpoint: OTLPExporterConfiguration.Resolved { sender.endpoint }
    /// The resource every request is sent under.
    package let resource: OTLPResource
    /// Where delivered and dropped items are counted.
    package let counters: OTLPTelemetryCounters
    private let sender: OTLPHTTPSender
    private let diagnostics: @Sendable (String) -> Void
    private let lock = NSLock()
    private var isShutDown = false
    private let encoder = OTLPEncoder()

    /// - Parameters:
    ///   - endpoint: the resolved `otlp` settings of the items' signal
    ///     (`OTLPExporterConfiguration.resolved(for:)`).
    ///   - resource: the resource every request is sent under.
    ///   - counters: where delivered and dropped items are counted (default: counters of its own).
    ///   - retryPolicy: waits between attempts; default ``OTLPHTTPRetryPolicy/default``.
    ///   - diagnostics: where refusals, partial successes and failures are reported (default: standard error).
    public convenience init(
        endpoint: OTLPExporterConfiguration.Resolved, resource: OTLPResource, counters: OTLPTelemetryCounters = OTLPTelemetryCounters(),
        retryPolicy: OTLPHTTPRetryPolicy = .default, diagnostics: @escaping @Sendable (String) -> Void = OTLPDiagnostics.standardError
    ) {
        self.init(
            endpoint: endpoint, resource: resource, counters: counters, retryPolicy: retryPolicy, diagnostics: diagnostics,
            clock: OTLPSystemMonotonicClock())
    }

    /// An exporter whose timeout, waits between attempts and shutdown deadline follow `clock` (a test's
    /// manual clock moves them without waiting); the other parameters as in
    /// ``init(endpoint:resource:counters:retryPolicy:diagnostics:)``.
    package init(
        endpoint: OTLPExporterConfiguration.Resolved, resource: OTLPResource, counters: OTLPTelemetryCounters,
        retryPolicy: OTLPHTTPRetryPolicy,
        diagnostics: @escaping @Sendable (String) -> Void, clock: any OTLPWaitableClock
    ) {
        sender = OTLPHTTPSender(signal: Item.signal, endpoint: endpoint, retryPolicy: retryPolicy, clock: clock)
        self.resource = resource
        self.counters = counters
        self.diagnostics = diagnostics
    }

    /// Sends `items` as one request and waits for its outcome (at most the endpoint's timeout); returns
    /// whether the collector accepted all of them.
    @discardableResult
    public func export(_ items: [Item]) -> Bool {
        guard !items.isEmpty else { return true }
        return lock.withLock {
            let signal = Item.signal
            guard !isShutDown else {
                counters.dropped(items.count, signal, .shutDown)
                return false
            }
            guard !sender.isPastShutdownDeadline else {
                counters.dropped(items.count, signal, .shutdownTimeout)
                return false
            }
            let encodable = Item.droppingTooDeeplyNested(
                items, counters: counters, reporter: "OTLPWire HTTP exporter", diagnostics: diagnostics)
            let tooLarge = items.count - encodable.count
            guard !encodable.isEmpty else { return false }
            let delivery = sender.deliver(Item.request(encodable, resource: resource), encoder: encoder)
            counters.retried(delivery.retries, signal)
            counters.exported(delivery.acceptedItems, signal, bytes: delivery.acceptedBytes)
            counters.dropped(delivery.rejectedItems, signal, .rejected)
            for message in delivery.messages {
                diagnostics("OTLPWire HTTP exporter: \(endpoint.redactedURL) \(Self.printable(message))")
            }
            if delivery.failure == OTLPHTTPSender.notSentAtShutdown {
                // Not sent: shutdown's deadline had passed. Counted for the shutdown report, which says what to
                // raise, not reported batch by batch.
                counters.dropped(delivery.undeliveredItems, signal, .shutdownTimeout)
            } else if let failure = delivery.failure {
                counters.dropped(delivery.undeliveredItems, signal, .exportFailed)
                diagnostics(
                    "OTLPWire HTTP exporter: \(delivery.undeliveredItems) \(signal.noun(delivery.undeliveredItems)) dropped (\(OTLPDropReason.exportFailed)): \(endpoint.redactedURL): \(Self.printable(failure))"
                )
            }
            return delivery.acceptedItems == encodable.count && tooLarge == 0
        }
    }

    /// A collector's text (a message, an answer's body) as one safe diagnostic line, at most 512 characters.
    private static func printable(_ text: String) -> String { OTLPDiagnostics.printable(text, maxCharacters: 512) }

    /// Stops retrying `seconds` from now, so that shutdown ends in time: the batch being sent gets no wait
    /// past it, nor another attempt after a refused connection (what is not delivered is dropped and counted,
    /// `export_failed`), and later batches are not sent (dropped and counted, `shutdown_timeout`).
    public func prepareForShutdown(withinSeconds seconds: Double) {
        sender.stopRetrying(afterSeconds: seconds)
    }

    /// Nothing is buffered: every export has been answered (or given up on) when it returns.
    public func forceFlush() {}

    /// Refuses later exports and releases the HTTP client.
    public func shutdown() {
        lock.withLock {
            guard !isShutDown else { return }
            isShutDown = true
            sender.shutdown()
        }
    }
}
