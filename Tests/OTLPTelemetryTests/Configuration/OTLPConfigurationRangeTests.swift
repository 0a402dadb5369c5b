import Foundation
import OTLPTesting
import Testing
import OTLPWire
@testable import OTLPTelemetry

/// Every numeric setting has a documented range: a JSON configuration (or `validate()`) outside it is an
/// error naming the key path; values set in code are clamped, and no value traps, spins or loses data.
@Suite("Configuration ranges")
struct OTLPConfigurationRangeTests {
    typealias BatchConfiguration = OTLPBatchConfiguration

    static func record(_ index: Int) -> OTLPScopedLogRecord {
        OTLPScopedLogRecord(
            scope: OTLPInstrumentationScope(name: "ranges"),
            record: OTLPLogRecord(timeUnixNano: UInt64(index + 1), body: .int(Int64(index))))
    }

    @Test(
        "out-of-range JSON values are errors naming the key path",
        arguments: [
            (#"{"batch": {"scheduleDelaySeconds": 1e10}}"#, "batch.scheduleDelaySeconds"),
            (#"{"batch": {"scheduleDelaySeconds": 1e-9}}"#, "batch.scheduleDelaySeconds"),
            (#"{"batch": {"scheduleDelaySeconds": 1e-300}}"#, "batch.scheduleDelaySeconds"),
            (#"{"batch": {"scheduleDelaySeconds": 0}}"#, "batch.scheduleDelaySeconds"),
            (#"{"batch": {"scheduleDelaySeconds": -5}}"#, "batch.scheduleDelaySeconds"),
            (#"{"batch": {"exportTimeoutSeconds": 1e10}}"#, "batch.exportTimeoutSeconds"),
            (#"{"batch": {"exportTimeoutSeconds": 1e-300}}"#, "batch.exportTimeoutSeconds"),
            (#"{"batch": {"exportTimeoutSeconds": -1}}"#, "batch.exportTimeoutSeconds"),
            (#"{"batch": {"whenFullTimeoutSeconds": 0}}"#, "batch.whenFullTimeoutSeconds"),
            (#"{"batch": {"whenFullTimeoutSeconds": 1e10}}"#, "batch.whenFullTimeoutSeconds"),
            (#"{"logsBatch": {"whenFullTimeoutSeconds": -1}}"#, "logsBatch.whenFullTimeoutSeconds"),
            (#"{"batch": {"maxQueueSize": 0}}"#, "batch.maxQueueSize"),
            (#"{"batch": {"maxQueueSize": 1000000000000}}"#, "batch.maxQueueSize"),
            (#"{"batch": {"maxQueueSize": 1e30}}"#, "batch.maxQueueSize"),
            (#"{"batch": {"maxQueueSize": 99999999999999999999}}"#, "batch.maxQueueSize"),
            (#"{"batch": {"maxQueueSize": 2048.5}}"#, "batch.maxQueueSize"),
            (#"{"batch": {"maxQueueSize": "many"}}"#, "batch.maxQueueSize"),
            (#"{"rotation": {"maxFiles": 1e-3}}"#, "rotation.maxFiles"),
            (#"{"batch": {"maxExportBatchSize": -1}}"#, "batch.maxExportBatchSize"),
            (#"{"rotation": {"maxFileBytes": -1}}"#, "rotation.maxFileBytes"),
            (#"{"rotation": {"maxFileBytes": 9223372036854775807}}"#, "rotation.maxFileBytes"),
            (#"{"rotation": {"maxAgeSeconds": 1e300}}"#, "rotation.maxAgeSeconds"),
            (#"{"rotation": {"maxAgeSeconds": -1}}"#, "rotation.maxAgeSeconds"),
            (#"{"rotation": {"maxFiles": 1000000000}}"#, "rotation.maxFiles"),
            (#"{"sampling": {"ratio": 1.5}}"#, "sampling.ratio"),
            (#"{"sampling": {"ratio": -0.1}}"#, "sampling.ratio"),
            (#"{"limits": {"attributeCountLimit": -1}}"#, "limits.attributeCountLimit"),
            (#"{"limits": {"attributeCountLimit": 1000000}}"#, "limits.attributeCountLimit"),
            (#"{"limits": {"attributeValueLengthLimit": -1}}"#, "limits.attributeValueLengthLimit"),
            (#"{"limits": {"attributeValueLengthLimit": 1000000000000}}"#, "limits.attributeValueLengthLimit"),
            (#"{"limits": {"eventCountLimit": 99999999}}"#, "limits.eventCountLimit"),
            (#"{"limits": {"linkCountLimit": -3}}"#, "limits.linkCountLimit"),
            (#"{"limits": {"attributePerEventCountLimit": 20000}}"#, "limits.attributePerEventCountLimit"),
            (#"{"limits": {"attributePerLinkCountLimit": -1}}"#, "limits.attributePerLinkCountLimit"),
        ])
    func rejected(json: String, keyPath: String) {
        #expect {
            try OTLPTelemetryConfiguration.load(json: Data(json.utf8))
        } throws: { error in
            let error = error as! OTLPConfigurationError
            return error.keyPath == keyPath && error.description.hasPrefix("configuration key \(keyPath): ")
        }
    }

    @Test("whenFull is read from JSON (drop or wait), an unknown value is an error naming the key, and it round-trips")
    func whenFullJSON() throws {
        let (configuration, _) = try OTLPTelemetryConfiguration.load(
            json: Data(#"{"batch": {"whenFull": "wait", "whenFullTimeoutSeconds": 0.5}, "logsBatch": {"whenFull": "drop"}}"#.utf8))
        #expect(configuration.batch.whenFull == .wait && configuration.batch.whenFullTimeoutSeconds == 0.5)
        #expect(configuration.logsBatch?.whenFull == .drop && configuration.logsBatch?.whenFullTimeoutSeconds == 5)
        let decoded = try JSONDecoder().decode(BatchConfiguration.self, from: JSONEncoder().encode(configuration.batch))
        #expect(decoded == configuration.batch)
        #expect(throws: (any Error).self) {
            try OTLPTelemetryConfiguration.load(json: Data(#"{"batch": {"whenFull": "block"}}"#.utf8))
        }
        #expect(
            BatchConfiguration(whenFull: .wait, whenFullTimeoutSeconds: .nan).clamped
                == BatchConfiguration(whenFull: .wait, whenFullTimeoutSeconds: 5))
        #expect(BatchConfiguration(whenFullTimeoutSeconds: 0).clamped.whenFullTimeoutSeconds == 0.001)
    }

    @Test("the error says the range and the value")
    func message() throws {
        let error = try #require(
            OTLPTelemetryConfiguration.loadResult(json: Data(#"{"batch": {"scheduleDelaySeconds": 1e-9}}"#.utf8)).failure)
        #expect(error.description == "configuration key batch.scheduleDelaySeconds: must be between 0.001 and 86400 seconds, got 1e-09")
    }

    @Test("a number JSON cannot represent is named in the error")
    func unrepresentable() throws {
        let error = try #require(
            OTLPTelemetryConfiguration.loadResult(json: Data(#"{"batch": {"scheduleDelaySeconds": 1e400}}"#.utf8)).failure)
        #expect(error.description.contains("1e400"), "\(error)")
        let fraction = try #require(OTLPTelemetryConfiguration.loadResult(json: Data(#"{"batch": {"maxQueueSize": 2048.5}}"#.utf8)).failure)
        #expect(fraction.description == "configuration key batch.maxQueueSize: expected an integer")
    }

    @Test("the bounds themselves are accepted")
    func bounds() throws {
        let (configuration, _) = try OTLPTelemetryConfiguration.load(
            json: Data(
                """
                {"batch": {"maxQueueSize": 1048576, "maxExportBatchSize": 1048576, "scheduleDelaySeconds": 0.001, "exportTimeoutSeconds": 86400},
                 "rotation": {"maxFileBytes": 0, "maxAgeSeconds": 31536000, "maxFiles": 10000},
                 "limits": {"attributeCountLimit": 10000, "attributeValueLengthLimit": 0, "eventCountLimit": 10000, "linkCountLimit": 0},
                 "sampling": {"ratio": 0}}
                """.utf8))
        #expect(configuration.batch.scheduleDelaySeconds == 0.001 && configuration.limits.attributeValueLengthLimit == 0)
    }

    @Test("values set in code: validate() lists every problem, NaN included; OTLPTelemetry runs clamped and says so")
    func codeLevel() throws {
        var configuration = OTLPTelemetryConfiguration()
        configuration.batch.scheduleDelaySeconds = .nan
        configuration.batch.exportTimeoutSeconds = 1e10
        configuration.rotation.maxAgeSeconds = .infinity
        configuration.sampling.ratio = .nan
        configuration.limits.attributeCountLimit = -4
        #expect(
            configuration.problems.map(\.keyPath) == [
                "rotation.maxAgeSeconds", "batch.scheduleDelaySeconds", "batch.exportTimeoutSeconds", "limits.attributeCountLimit",
                "sampling.ratio",
            ])
        #expect(throws: OTLPConfigurationError.self) { try configuration.validate() }

        let clamped = configuration.clamped
        #expect(clamped.problems.isEmpty)
        #expect(clamped.batch.scheduleDelaySeconds == 5 && clamped.batch.exportTimeoutSeconds == 86_400)
        #expect(clamped.rotation.maxAgeSeconds == 31_536_000 && clamped.sampling.ratio == 1 && clamped.limits.attributeCountLimit == 0)

        let messages = Messages()
        let telemetry = OTLPTelemetry(configuration: configuration, diagnostics: { messages.add($0) })
        #expect(telemetry.configuration == clamped)
        // The five clamped values, and (no output is configured) that nothing is exported.
        #expect(messages.all.filter { $0.contains("clamped") }.count == 5, "\(messages.all)")
        #expect(messages.all.count == 6 && messages.all.contains { $0.contains("nothing is exported") }, "\(messages.all)")
        telemetry.shutdown()
    }

    @Test("Configuration.clamped: each value into its range, NaN to the default, the batch within the queue")
    func clampedBatch() {
        #expect(
            BatchConfiguration(maxQueueSize: 0, maxExportBatchSize: 9, scheduleDelaySeconds: 1e-300, exportTimeoutSeconds: -.infinity)
                .clamped
                == BatchConfiguration(maxQueueSize: 1, maxExportBatchSize: 1, scheduleDelaySeconds: 0.001, exportTimeoutSeconds: 1))
        #expect(
            BatchConfiguration(maxQueueSize: .max, maxExportBatchSize: .min, scheduleDelaySeconds: .nan, exportTimeoutSeconds: .nan).clamped
                == BatchConfiguration(maxQueueSize: 1 << 20, maxExportBatchSize: 1, scheduleDelaySeconds: 5, exportTimeoutSeconds: 30))
    }

    @Test(
        "no delay or timeout traps, and shutdown exports everything",
        arguments: [
            (1e10, 30.0), (30.0, 1e10), (Double.infinity, Double.infinity), (1e-300, 1e-300), (1e-9, 1e-9), (Double.nan, Double.nan),
            (-1.0, -1.0),
            (Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude),
        ])
    func extremeDeadlines(delay: Double, timeout: Double) throws {
        let sink = OTLPMemorySink()
        let counters = OTLPTelemetryCounters()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: OTLPResource(), counters: counters),
            counters: counters,
            configuration: .init(maxQueueSize: 10_000, maxExportBatchSize: 100, scheduleDelaySeconds: delay, exportTimeoutSeconds: timeout))
        for index in 0..<1000 { stage.onEnd(Self.record(index)) }
        #expect(stage.forceFlush())
        for index in 1000..<3000 { stage.onEnd(Self.record(index)) }
        stage.shutdown()
        let snapshot = counters.snapshot
        #expect(snapshot.logRecordsExported == 3000 && snapshot.totalLogRecordsDropped == 0)
        #expect(logRecords(try readAll(sink.bytes)).map(\.timeUnixNano) == (1...3000).map(UInt64.init))
    }

    @Test("a tiny delay does not make the idle worker spin; items still go out after the delay")
    func idleWorkerSleeps() throws {
        let sink = ControllableSink()
        let counters = OTLPTelemetryCounters()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: OTLPResource(), counters: counters),
            counters: counters, configuration: .init(scheduleDelaySeconds: 1e-9))
        #expect(stage.configuration.scheduleDelaySeconds == 0.001)
        stage.onEnd(Self.record(0))
        #expect(stage.forceFlush())
        let before = stage.idleWakeupCount
        // Real work on this thread while the worker is idle: a spinning worker would wake thousands of times.
        let encoder = OTLPEncoder()
        var total = 0
        for round in 0..<200 {
            total +=
                encoder.encode(
                    OTLPLogsData(resourceGroups: [
                        OTLPResourceGroup<OTLPLogRecord>(
                            resource: OTLPResource(),
                            scopeGroups: [
                                OTLPScopeGroup<OTLPLogRecord>(
                                    scope: nil,
                                    items: (0..<200).map { OTLPLogRecord(timeUnixNano: UInt64($0 + round), body: .string("x")) })
                            ])
                    ])
                ).count
        }
        #expect(total > 0)
        #expect(stage.idleWakeupCount - before <= 2)
        // A partial batch is still exported by the (1 ms) schedule, with no flush.
        stage.onEnd(Self.record(1))
        stage.shutdown()
        #expect(counters.snapshot.logRecordsExported == 2)
        #expect(logRecords(try readAll(sink.collected)).count == 2)
    }

    @Test("limits set in code out of range are clamped when applied: no trap, counts saturate")
    func limitsInCode() throws {
        let limits = OTLPLimits(
            attributeCountLimit: -1, attributeValueLengthLimit: -7, eventCountLimit: -2, linkCountLimit: .min,
            attributePerEventCountLimit: .max, attributePerLinkCountLimit: -1)
        var span = OTLPSpan(
            traceID: OTLPTraceID(high: 1, low: 1), spanID: OTLPSpanID(1), name: "s", kind: .internal, startTimeUnixNano: 1,
            endTimeUnixNano: 2,
            attributes: [OTLPAttribute("a", "long"), OTLPAttribute("b", 1)], events: [OTLPSpanEvent(name: "e", timeUnixNano: 1)])
        span.droppedAttributesCount = .max
        limits.apply(to: &span)
        #expect(span.attributes.isEmpty && span.droppedAttributesCount == .max)
        #expect(span.events.isEmpty && span.droppedEventsCount == 1)
        var record = OTLPLogRecord(timeUnixNano: 1, body: .string("body"), attributes: [OTLPAttribute("a", "value")])
        limits.apply(to: &record)
        #expect(record.attributes.isEmpty && record.droppedAttributesCount == 1 && record.body == .string(""))
        #expect(limits.clamped.attributePerEventCountLimit == OTLPDecodingOptions.default.maxAttributesPerItem)
    }

    @Test("a NaN sampling ratio keeps every trace instead of trapping")
    func nanRatio() {
        let sampler = OTLPTraceIDRatioSampler(ratio: .nan)
        #expect(sampler.ratio == 1)
        #expect(sampler.shouldSample(traceID: OTLPTraceID(high: 0, low: .max), parent: nil, name: ""))
        #expect(OTLPTraceIDRatioSampler(ratio: -.infinity).ratio == 0)
        var sampling = OTLPTelemetryConfiguration.Sampling()
        sampling.ratio = .nan
        #expect(sampling.sampler.shouldSample(traceID: OTLPTraceID(high: 0, low: .max), parent: nil, name: ""))
    }

    @Test("attributeValueLengthLimit: absent is the 64 Ki default, null is no limit; encoding round-trips")
    func valueLengthJSON() throws {
        #expect(try OTLPTelemetryConfiguration.load(json: Data("{}".utf8)).configuration.limits.attributeValueLengthLimit == 65_536)
        let unlimited = try OTLPTelemetryConfiguration.load(json: Data(#"{"limits": {"attributeValueLengthLimit": null}}"#.utf8))
            .configuration
        #expect(unlimited.limits.attributeValueLengthLimit == nil)
        let encoded = try JSONEncoder().encode(unlimited)
        #expect(try OTLPTelemetryConfiguration.load(json: encoded).configuration == unlimited)
        #expect(
            try OTLPTelemetryConfiguration.load(json: JSONEncoder().encode(OTLPTelemetryConfiguration())).configuration
                == OTLPTelemetryConfiguration())
    }
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension OTLPTelemetryConfiguration {
    /// `load(json:)` as a `Result`.
    static func loadResult(
        json: Data
    ) -> Result<(configuration: OTLPTelemetryConfiguration, warnings: [OTLPConfigurationWarning]), OTLPConfigurationError> {
        Result { () throws(OTLPConfigurationError) in try load(json: json) }
    }
}

/// Shutdown with a sink stuck in a write: it gives up after the export timeout instead of hanging, says how
/// much is still in flight, and the worker finishes the job once the write completes.
@Suite("Batch stage shutdown with a stuck sink")
struct OTLPBatchStageStuckSinkTests {
    @Test("shutdown returns after the export timeout and reports the items still being exported")
    func stuckSink() throws {
        let sink = ControllableSink()
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let clock = OTLPManualClock()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: OTLPResource(), counters: counters),
            counters: counters, configuration: .init(maxExportBatchSize: 10, scheduleDelaySeconds: 3600, exportTimeoutSeconds: 1),
            diagnostics: { messages.add($0) }, clock: clock)
        sink.hold()
        for index in 0..<25 { stage.onEnd(OTLPConfigurationRangeTests.record(index)) }
        sink.waitUntilAWriteIsHeld()
        let timeoutEnd = clock.nowMonotonicNano() + 1_000_000_000
        let returned = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            stage.shutdown()
            returned.signal()
        }
        // The export timeout passes on the stage's clock while shutdown waits for the stuck worker.
        clock.waitUntilWaiting(untilAtMost: timeoutEnd)
        clock.advance(seconds: 1)
        // A watchdog, not a timing assertion: without the fix, shutdown never returns.
        #expect(returned.wait(timeout: .now() + 120) == .success)
        #expect(messages.all.count == 1)
        #expect(messages.all.first?.contains("log records are still being exported") == true)
        sink.release()
        #expect(counters.snapshot.totalLogRecordsDropped == 0)
    }
}
