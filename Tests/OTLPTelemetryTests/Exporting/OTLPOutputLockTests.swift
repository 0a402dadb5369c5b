import Foundation
import OTLPTestSupport
import Testing
import Tracing
import OTLPWire
@testable import OTLPTelemetry

#if canImport(Glibc)
import Glibc
#endif

/// Two pipelines on one output path: the second fails at start, clearly, instead of mixing files and counts.
@Suite("OTLPOutputLock")
struct OTLPOutputLockTests {
    static let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "lock")])
    static let scope = OTLPInstrumentationScope(name: "lock")

    static func sink(_ path: String, _ counters: OTLPTelemetryCounters = OTLPTelemetryCounters()) -> OTLPRotatingFileSink {
        OTLPRotatingFileSink(path: path, rotation: .init(maxFileBytes: 1_000, maxFiles: 2), signal: .traces, counters: counters)
    }

    static func openError(_ sink: OTLPRotatingFileSink) -> OTLPWriteError? {
        do throws(OTLPWriteError) {
            try sink.open()
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "a second sink on the same path in this process is refused (EWOULDBLOCK), naming the path and the holder; free again once the first is gone"
    )
    func sameProcess() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/traces.bin"
        let lockFile = "\(directory)/.traces.bin.lock"
        var first: OTLPRotatingFileSink? = Self.sink(path)
        try first!.open()
        #expect(FileManager.default.fileExists(atPath: lockFile))
        let second = Self.sink(path)
        guard let failure = Self.openError(second), failure.code == .system, failure.errno == EWOULDBLOCK else {
            Issue.record("the second sink was not refused")
            return
        }
        let message = failure.message
        #expect(message.contains(path) && message.contains("this process (\(getpid()))") && message.contains(lockFile), "\(message)")
        first = nil
        #expect(!FileManager.default.fileExists(atPath: lockFile))
        #expect(Self.openError(second) == nil)
    }

    @Test(
        "two OTLPStreamExporter(path:) on one path: the second's batches are write_failed naming the holder until the first shuts down; the file holds only whole records"
    )
    func twoPathExporters() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/logs.bin"
        let firstCounters = OTLPTelemetryCounters(), secondCounters = OTLPTelemetryCounters()
        let messages = Messages()
        let first = OTLPStreamExporter<OTLPScopedLogRecord>(path: path, resource: Self.resource, counters: firstCounters)
        let second = OTLPStreamExporter<OTLPScopedLogRecord>(
            path: path, resource: Self.resource, counters: secondCounters, diagnostics: messages.add)
        #expect(first.export(OTLPRotatingFileSinkTests.batch(0, 3)))
        #expect(!second.export(OTLPRotatingFileSinkTests.batch(3, 2)))
        #expect(secondCounters.snapshot.logRecordsDropped == [.writeFailed: 2])
        #expect(messages.all.first?.contains("is being written by another sink in this process (\(getpid()))") == true, "\(messages.all)")
        first.shutdown()
        #expect(second.export(OTLPRotatingFileSinkTests.batch(5, 2)))
        second.shutdown()
        #expect(try OTLPRotatingFileSinkTests.items(in: path) == 5)
    }

    @Test(
        "two OTLPTelemetry pipelines on one path: the second reports it at start (openErrors, diagnostics) and counts its spans as write_failed; the first's file holds only its own"
    )
    func twoPipelines() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/traces.bin"
        let firstMessages = Messages(), secondMessages = Messages()
        let configuration = OTLPTelemetryConfiguration(service: .init(name: "lock"), traces: .init(path: path))
        let first = OTLPTelemetry(configuration: configuration, diagnostics: firstMessages.add)
        let second = OTLPTelemetry(configuration: configuration, diagnostics: secondMessages.add)
        #expect(first.openErrors.isEmpty)
        guard let failure = second.openErrors.first, failure.code == .system, failure.errno == EWOULDBLOCK else {
            Issue.record("the second pipeline opened: \(second.openErrors)")
            return
        }
        let message = failure.message
        #expect(message.contains(path))
        #expect(secondMessages.all.first?.contains("is being written by another sink in this process") == true, "\(secondMessages.all)")
        for index in 0..<10 { first.tracer.startSpan("first \(index)").end() }
        for index in 0..<7 { second.tracer.startSpan("second \(index)").end() }
        second.forceFlush()  // while the first holds the path
        first.shutdown()
        second.shutdown()
        #expect(first.counters.snapshot.spansExported == 10)
        #expect(second.counters.snapshot.spansExported == 0)
        #expect(second.counters.snapshot.spansDropped == [.writeFailed: 7])
        let names = spans(try readAll(Array(try Data(contentsOf: URL(fileURLWithPath: path))))).map(\.name)
        #expect(names.sorted() == (0..<10).map { "first \($0)" }.sorted())
        // Shut down, the first released the path (while still alive): a third pipeline takes it.
        let third = OTLPTelemetry(configuration: configuration, diagnostics: secondMessages.add)
        #expect(third.openErrors.isEmpty)
        third.shutdown()
        withExtendedLifetime(first) {}
    }

    @Test("another process holding the path: this one is refused naming that process; after it is killed the lock is free")
    func otherProcessHolds() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/traces.bin"
        let child = Process()
        child.executableURL = OTLPProcess.executable("otlp-crash-writer")
        child.arguments = [path, "u32be", "plain"]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        // Its first progress line comes after OTLPTelemetry's init, which took the lock.
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let refused = Self.openError(Self.sink(path))
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        guard let failure = refused, failure.code == .system, failure.errno == EWOULDBLOCK else {
            Issue.record("not refused while process \(child.processIdentifier) held \(path): \(String(describing: refused))")
            return
        }
        let message = failure.message
        #expect(message.contains(path) && message.contains("process \(child.processIdentifier) (otlp-crash-writ"), "\(message)")
        // SIGKILL left the lock file behind, but the kernel released the lock.
        #expect(FileManager.default.fileExists(atPath: "\(directory)/.traces.bin.lock"))
        #expect(Self.openError(Self.sink(path)) == nil)
    }

    @Test("this process holding the path: another process's pipeline reports at start that it is locked by this one")
    func thisProcessHolds() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/traces.bin"
        let holder = Self.sink(path)
        try holder.open()
        let child = Process()
        child.executableURL = OTLPProcess.executable("otlp-crash-writer")
        child.arguments = [path, "u32be", "plain"]
        let errors = Pipe()
        child.standardError = errors
        child.standardOutput = FileHandle.nullDevice
        try child.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        let firstLine = String(text.prefix { $0 != "\n" })
        #expect(firstLine.contains("\(path) is being written by process \(getpid())"), "\(firstLine)")
        #expect(firstLine.contains("dropped (write_failed) until it opens"), "\(firstLine)")
    }
}
