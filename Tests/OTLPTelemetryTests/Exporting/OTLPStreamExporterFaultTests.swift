import Foundation
import Testing
import OTLPWire
@testable import OTLPTelemetry

#if canImport(Glibc)
import Glibc
import OTLPTestSupport
#endif

/// Real faults: a full disk (/dev/full), a read-only file system (a read-only tmpfs mount: as root, chmod
/// does not make a directory read-only), and a pipe whose reader has gone.
@Suite("OTLPStreamExporter under faults", .serialized)
struct OTLPStreamExporterFaultTests {
    static let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "faults")])
    static let scope = OTLPInstrumentationScope(name: "faults")

    static func batch(_ count: Int) -> [OTLPScopedSpan] {
        (0..<count).map { index in
            OTLPScopedSpan(
                scope: scope,
                span: OTLPSpan(
                    traceID: OTLPTraceID(high: 1, low: UInt64(index + 1)), spanID: OTLPSpanID(UInt64(index + 1)), name: "span \(index)",
                    startTimeUnixNano: 1, endTimeUnixNano: 2))
        }
    }

    @Test("disk full: every failed batch is reported and counted; pointed at a working file, it recovers")
    func diskFull() throws {
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = OTLPStreamExporter<OTLPScopedSpan>(
            path: "/dev/full", resource: Self.resource, counters: counters, diagnostics: messages.add)
        #expect(!exporter.export(Self.batch(10)))
        #expect(!exporter.export(Self.batch(5)))
        #expect(counters.snapshot.spansDropped == [.writeFailed: 15])
        #expect(counters.snapshot.writeErrors == 2)
        // The same cause again is not reported again (a failure that never clears printed a line per batch).
        #expect(messages.all.count == 1)
        #expect(messages.all.allSatisfy { $0.contains("No space left on device") })

        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("recovered.u32be.bin").path
        exporter.redirect(to: try OTLPFileSink(path: path))
        #expect(exporter.export(Self.batch(7)))
        #expect(counters.snapshot.spansExported == 7)
        #expect(
            messages.all.count == 2 && messages.all[1].contains("writing again after 2 failed batches (15 spans dropped"), "\(messages.all)"
        )
        #expect(spans(try readAll(Array(try Data(contentsOf: URL(fileURLWithPath: path))))).count == 7)
    }

    @Test("read-only file system: each batch fails with a clear, counted error; writable again, the exporter recovers by itself")
    func readOnly() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mountPoint = directory.appendingPathComponent("ro").path
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard mount("tmpfs", mountPoint, "tmpfs", UInt(MS_RDONLY), "size=1m") == 0 else {
            Issue.record("cannot mount a tmpfs (needs root): \(String(cString: strerror(errno)))")
            return
        }
        defer { umount(mountPoint) }
        let path = mountPoint + "/traces.u32be.bin"
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = OTLPStreamExporter<OTLPScopedSpan>(
            path: path, resource: Self.resource, counters: counters, diagnostics: messages.add)
        #expect(!exporter.export(Self.batch(3)))
        #expect(!exporter.export(Self.batch(4)))
        #expect(counters.snapshot.spansDropped == [.writeFailed: 7])
        #expect(messages.all.count == 1)
        #expect(messages.all.allSatisfy { $0.contains("Read-only file system") && $0.contains(path) })
        // The file system becomes writable: the next batch opens the file and is written.
        #expect(mount("tmpfs", mountPoint, "tmpfs", UInt(MS_REMOUNT), "size=1m") == 0, "\(String(cString: strerror(errno)))")
        #expect(exporter.export(Self.batch(2)))
        #expect(counters.snapshot.spansExported == 2)
        #expect(spans(try readAll(Array(try Data(contentsOf: URL(fileURLWithPath: path))))).count == 2)
    }

    @Test("a failure that never clears is reported when it starts, at 10 and 100 failed batches, and when writing works again")
    func failureThatNeverClears() throws {
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = OTLPStreamExporter<OTLPScopedSpan>(
            path: "/dev/full", resource: Self.resource, counters: counters, diagnostics: messages.add)
        for _ in 0..<150 { #expect(!exporter.export(Self.batch(2))) }
        #expect(counters.snapshot.spansDropped == [.writeFailed: 300] && counters.snapshot.writeErrors == 150)
        #expect(messages.all.count == 3, "\(messages.all)")
        #expect(messages.all[0].contains("2 spans dropped: ") && messages.all[0].contains("No space left on device"))
        #expect(messages.all[1].contains("still failing: 10 batches (20 spans)"), "\(messages.all)")
        #expect(messages.all[2].contains("still failing: 100 batches (200 spans)"), "\(messages.all)")
        exporter.redirect(to: OTLPMemorySink())
        #expect(exporter.export(Self.batch(1)))
        #expect(messages.all.last?.contains("writing again after 150 failed batches (300 spans dropped") == true, "\(messages.all)")
        // A new failure after that is a new run, reported again.
        exporter.redirect(to: try OTLPFileSink(path: "/dev/full"))
        #expect(!exporter.export(Self.batch(1)))
        #expect(messages.all.count == 5 && messages.all[4].contains("1 span dropped: "), "\(messages.all)")
    }

    @Test("closed pipe: EPIPE is reported and counted, no SIGPIPE kills the process")
    func closedPipe() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        close(fds[0])  // the reader goes away
        defer { close(fds[1]) }
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = OTLPStreamExporter<OTLPScopedSpan>(
            sink: OTLPFileSink(descriptor: fds[1]), resource: Self.resource, counters: counters, diagnostics: messages.add)
        #expect(!exporter.export(Self.batch(3)))
        #expect(counters.snapshot.spansDropped == [.writeFailed: 3])
        #expect(messages.all.first?.contains("Broken pipe") == true)
        let memory = OTLPMemorySink()
        exporter.redirect(to: memory)
        #expect(exporter.export(Self.batch(2)))
        #expect(spans(try readAll(memory.bytes)).count == 2)
    }

    @Test("a write that fails part-way leaves no torn record: the file is rolled back")
    func rollback() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mountPoint = directory.appendingPathComponent("small").path
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard mount("tmpfs", mountPoint, "tmpfs", 0, "size=64k") == 0 else {
            Issue.record("cannot mount a tmpfs (needs root): \(String(cString: strerror(errno)))")
            return
        }
        defer { umount(mountPoint) }
        let path = mountPoint + "/traces.u32be.bin"
        let counters = OTLPTelemetryCounters()
        let exporter = OTLPStreamExporter<OTLPScopedSpan>(path: path, resource: Self.resource, counters: counters, diagnostics: { _ in })
        var written = 0
        while exporter.export(Self.batch(50)) { written += 50 }  // until the 64 KiB file system is full
        #expect(counters.snapshot.spansDropped == [.writeFailed: 50])
        let records = try readAll(Array(try Data(contentsOf: URL(fileURLWithPath: path))))  // no error: no torn tail
        #expect(spans(records).count == written)
    }
}
