import Foundation
import Logging
import OTLPServiceLifecycle
import OTLPTelemetry
import OTLPWire
import ServiceLifecycle
import Testing
import Tracing
import OTLPTestSupport

/// The telemetry as a service of a swift-service-lifecycle `ServiceGroup`: its `run()` returns after the
/// group's graceful shutdown (or cancellation), having shut the telemetry down, so that everything is in its
/// file output.
@Suite("OTLPTelemetry as a ServiceLifecycle Service")
struct OTLPTelemetryServiceTests {
    /// The program's own work: `count` spans, then it returns, which shuts the group down gracefully.
    struct Work: Service {
        let telemetry: OTLPTelemetry
        let count: Int

        func run() async throws {
            for index in 0..<count { telemetry.tracer.startSpan("order \(index)").end() }
            telemetry.logEmitter.emit(OTLPLogRecord(timeUnixNano: 1, body: "work done"))
        }
    }

    /// Waits until graceful shutdown or cancellation, after saying it started.
    struct Waiting: Service {
        let started: AsyncStream<Void>.Continuation

        func run() async throws {
            started.yield()
            try? await gracefulShutdown()
        }
    }

    static let quiet = Logger(label: "tests") { _ in SwiftLogNoOpLogHandler() }

    /// A telemetry writing to files in a new directory; batches wait for the schedule delay of an hour, so only
    /// a shutdown exports them.
    static func telemetry() throws -> (OTLPTelemetry, URL) {
        let directory = OTLPTemporaryDirectory.unusedPath("otlp-service")
        let configuration = OTLPTelemetryConfiguration(
            service: .init(name: "service-tests"), traces: .init(path: directory.appendingPathComponent("traces.u32be.bin").path),
            logs: .init(path: directory.appendingPathComponent("logs.u32be.bin").path),
            batch: .init(maxQueueSize: 10_000, maxExportBatchSize: 10_000, scheduleDelaySeconds: 3600))
        return (OTLPTelemetry(configuration: configuration, diagnostics: { _ in }), directory)
    }

    /// The items of every record in `path`.
    static func itemCount(_ path: URL) throws -> Int {
        let reader = try OTLPRecordReader(source: OTLPMemorySource(Array(try Data(contentsOf: path))))
        var count = 0
        while let record = try reader.next() { count += record.payload.itemCount }
        return count
    }

    @Test("the program's work ends, the group shuts down gracefully: run() returns, every span and log record is in the files")
    func gracefulShutdownFlushes() async throws {
        let (telemetry, directory) = try Self.telemetry()
        defer { try? FileManager.default.removeItem(at: directory) }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    // First in the list: shut down last, after the work whose telemetry it exports.
                    .init(service: telemetry),
                    .init(service: Work(telemetry: telemetry, count: 500), successTerminationBehavior: .gracefullyShutdownGroup),
                ], logger: Self.quiet))
        try await group.run()
        #expect(telemetry.counters.snapshot.spansExported == 500 && telemetry.counters.snapshot.logRecordsExported == 1)
        #expect(try Self.itemCount(directory.appendingPathComponent("traces.u32be.bin")) == 500)
        #expect(try Self.itemCount(directory.appendingPathComponent("logs.u32be.bin")) == 1)
    }

    @Test("triggerGracefulShutdown() on a running group: run() returns and what was queued is exported")
    func triggeredShutdown() async throws {
        let (telemetry, directory) = try Self.telemetry()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (started, continuation) = AsyncStream<Void>.makeStream()
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: telemetry), .init(service: Waiting(started: continuation))], logger: Self.quiet))
        for index in 0..<200 { telemetry.tracer.startSpan("queued \(index)").end() }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = started.makeAsyncIterator()
            _ = await iterator.next()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(telemetry.counters.snapshot.spansExported == 200)
        #expect(try Self.itemCount(directory.appendingPathComponent("traces.u32be.bin")) == 200)
    }

    @Test("the group's task cancelled: run() still shuts the telemetry down and returns")
    func cancelled() async throws {
        let (telemetry, directory) = try Self.telemetry()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (started, continuation) = AsyncStream<Void>.makeStream()
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: telemetry), .init(service: Waiting(started: continuation))], logger: Self.quiet))
        for index in 0..<50 { telemetry.tracer.startSpan("queued \(index)").end() }
        let running = Task { try await group.run() }
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()
        running.cancel()
        _ = await running.result
        #expect(telemetry.counters.snapshot.spansExported == 50)
    }
}
