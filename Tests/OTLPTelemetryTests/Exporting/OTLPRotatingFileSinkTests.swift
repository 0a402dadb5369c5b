import Foundation
import Testing
import OTLPWire
@testable import OTLPTelemetry
import OTLPTesting

#if canImport(Glibc)
import Glibc
import OTLPTestSupport
#endif

@Suite("OTLPRotatingFileSink")
struct OTLPRotatingFileSinkTests {
    static let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "rotation")])
    static let scope = OTLPInstrumentationScope(name: "rotation")

    static func batch(_ start: Int, _ count: Int) -> [OTLPScopedLogRecord] {
        (start..<(start + count)).map {
            OTLPScopedLogRecord(scope: scope, record: OTLPLogRecord(timeUnixNano: UInt64($0 + 1), body: .string("record \($0)")))
        }
    }

    @Test(
        "crossing the size limit many times keeps at most maxFiles valid files; only retention loses items, counted",
        arguments: [false, true])
    func sizeRotation(gzip: Bool) throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let counters = OTLPTelemetryCounters()
        let path = directory.appendingPathComponent("logs.u32be.bin").path
        let sink = OTLPRotatingFileSink(path: path, rotation: .init(maxFileBytes: 4_000, maxFiles: 4), signal: .logs, counters: counters)
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, gzip: gzip, resource: Self.resource, counters: counters)
        var sent = 0
        for _ in 0..<200 {
            #expect(exporter.export(Self.batch(sent, 7)))
            sent += 7
        }
        let files = sink.files
        #expect(files.count == 4)
        var inFiles: [UInt64] = []
        for file in files.reversed() {  // oldest first
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(bytes.count <= 4_000 || gzip)
            inFiles += logRecords(try readAll(bytes)).map(\.timeUnixNano)  // throws if any file is not a valid stream
        }
        let snapshot = counters.snapshot
        #expect(snapshot.logRecordsExported == sent)
        #expect(inFiles.count + snapshot.logRecordsDropped[.retention, default: 0] == sent)
        #expect(snapshot.logRecordsDropped[.retention, default: 0] > 0)
        // What is kept is the newest records, in order, none repeated: whole batches, never split.
        #expect(inFiles == Array(UInt64(sent - inFiles.count + 1)...UInt64(sent)))
    }

    @Test("age rotation with an injected clock")
    func ageRotation() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        let counters = OTLPTelemetryCounters()
        let sink = OTLPRotatingFileSink(
            path: directory.appendingPathComponent("t.bin").path, rotation: .init(maxAgeSeconds: 60, maxFiles: 10),
            signal: .logs, counters: counters, clock: clock)
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: Self.resource, counters: counters)
        exporter.export(Self.batch(0, 3))
        clock.advance(30_000_000_000)
        exporter.export(Self.batch(3, 3))
        #expect(sink.files.count == 1)
        clock.advance(31_000_000_000)
        exporter.export(Self.batch(6, 3))
        #expect(sink.files.count == 2)
        #expect(counters.snapshot.totalLogRecordsDropped == 0)
    }

    // MARK: - Only its own files

    static func items(in file: String) throws -> Int {
        logRecords(try readAll(Array(try Data(contentsOf: URL(fileURLWithPath: file))))).count
    }

    static func inode(_ path: String) throws -> UInt64 {
        try #require(try OTLPFileStatus.of(path: path)).inode
    }

    static func errorOf(_ body: () throws(OTLPWriteError) -> Void) -> OTLPWriteError? {
        do throws(OTLPWriteError) {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "an earlier run's PATH, PATH.1 (a symbolic link) and PATH.2 are never renamed over, followed or deleted; numbering continues after them"
    )
    func preexistingFilesUntouched() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/logs.bin"
        try Data("earlier run, current file".utf8).write(to: URL(fileURLWithPath: path))
        try Data("victim".utf8).write(to: URL(fileURLWithPath: "\(directory)/victim"))
        try FileManager.default.createSymbolicLink(atPath: "\(path).1", withDestinationPath: "\(directory)/victim")
        try Data("earlier run, rotated".utf8).write(to: URL(fileURLWithPath: "\(path).2"))
        let earlierCurrent = try Self.inode(path), earlierRotated = try Self.inode("\(path).2")

        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let sink = OTLPRotatingFileSink(
            path: path, rotation: .init(maxFileBytes: 2_000, maxFiles: 3), signal: .logs, counters: counters, diagnostics: messages.add)
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(
            sink: sink, resource: Self.resource, counters: counters, diagnostics: messages.add)
        var sent = 0
        for _ in 0..<150 {
            #expect(exporter.export(Self.batch(sent, 5)))
            sent += 5
        }
        // The earlier run's files: same inodes, same content; the link still points where it did.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "\(path).1") == "\(directory)/victim")
        #expect(try String(contentsOfFile: "\(directory)/victim", encoding: .utf8) == "victim")
        #expect(try Self.inode("\(path).2") == earlierRotated)
        #expect(try String(contentsOfFile: "\(path).2", encoding: .utf8) == "earlier run, rotated")
        #expect(try Self.inode("\(path).3") == earlierCurrent)  // moved aside, never deleted
        #expect(try String(contentsOfFile: "\(path).3", encoding: .utf8) == "earlier run, current file")
        // This run's files: three, numbered after the earlier ones; counts exact, dropped ≤ received.
        let files = sink.files
        #expect(files.count == 3)
        #expect(files.first == path)
        #expect(files.dropFirst().allSatisfy { Int($0.split(separator: ".").last!)! > 3 }, "\(files)")
        let snapshot = counters.snapshot
        let kept = try files.map(Self.items(in:)).reduce(0, +)
        #expect(snapshot.logRecordsExported == sent)
        #expect(kept + snapshot.logRecordsDropped[.retention, default: 0] == sent)
        #expect(snapshot.logRecordsDropped[.retention, default: 0] <= snapshot.logRecordsExported)
        #expect(messages.all.isEmpty, "\(messages.all)")
    }

    @Test("counts are exact across many rotations: each file's count is what was written into it", arguments: [1, 2, 5], [false, true])
    func exactCounts(maxFiles: Int, gzip: Bool) throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let counters = OTLPTelemetryCounters()
        let sink = OTLPRotatingFileSink(
            path: "\(directory)/logs.bin", rotation: .init(maxFileBytes: 3_000, maxFiles: maxFiles), signal: .logs, counters: counters)
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, gzip: gzip, resource: Self.resource, counters: counters)
        var sent = 0
        for round in 0..<300 {
            let size = 1 + round % 9
            #expect(exporter.export(Self.batch(sent, size)))
            sent += size
        }
        let owned = sink.ownedFiles
        #expect(owned.count == maxFiles)
        for file in owned {
            #expect(try Self.items(in: file.path) == file.items, "\(file.path)")
        }
        let retention = counters.snapshot.logRecordsDropped[.retention, default: 0]
        #expect(owned.map(\.items).reduce(0, +) + retention == sent)
        #expect(retention > 0 && retention < sent)
    }

    @Test("a file it cannot read back is counted by what was written into it, never as 0")
    func unreadableFileCountedExactly() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let counters = OTLPTelemetryCounters()
        let sink = OTLPRotatingFileSink(
            path: "\(directory)/logs.bin", rotation: .init(maxFileBytes: 2_000, maxFiles: 3), signal: .logs, counters: counters)
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: Self.resource, counters: counters)
        var sent = 0
        for _ in 0..<1_000 where sink.ownedFiles.count < 3 {
            #expect(exporter.export(Self.batch(sent, 4)))
            sent += 4
        }
        // The oldest file becomes garbage in place (same inode and size), and unreadable for anyone but root.
        let oldest = try #require(sink.ownedFiles.last)
        #expect(oldest.items > 0)
        let handle = try #require(FileHandle(forWritingAtPath: oldest.path))
        try handle.write(contentsOf: Data(repeating: 0xFF, count: oldest.bytes))
        try handle.close()
        #expect(throws: (any Error).self) { try Self.items(in: oldest.path) }
        chmod(oldest.path, 0)
        #expect(counters.snapshot.logRecordsDropped[.retention, default: 0] == 0)
        for _ in 0..<1_000 where FileManager.default.fileExists(atPath: oldest.path) {  // bounded: a regression fails, never hangs
            #expect(exporter.export(Self.batch(sent, 4)))
            sent += 4
        }
        #expect(!FileManager.default.fileExists(atPath: oldest.path))
        // The first deletion is exactly that file: its written items, counted.
        #expect(counters.snapshot.logRecordsDropped[.retention, default: 0] == oldest.items)
    }

    @Test("a file it created that someone replaced is left alone and not counted")
    func replacedFileLeftAlone() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let sink = OTLPRotatingFileSink(
            path: "\(directory)/logs.bin", rotation: .init(maxFileBytes: 2_000, maxFiles: 2), signal: .logs, counters: counters,
            diagnostics: messages.add)
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: Self.resource, counters: counters)
        var sent = 0
        for _ in 0..<1_000 where sink.ownedFiles.count < 2 {
            #expect(exporter.export(Self.batch(sent, 4)))
            sent += 4
        }
        let rotated = try #require(sink.ownedFiles.last)
        try FileManager.default.removeItem(atPath: rotated.path)
        try Data("someone else's".utf8).write(to: URL(fileURLWithPath: rotated.path))
        for _ in 0..<1_000 where sink.ownedFiles.contains(where: { $0.path == rotated.path }) {
            #expect(exporter.export(Self.batch(sent, 4)))
            sent += 4
        }
        #expect(try String(contentsOfFile: rotated.path, encoding: .utf8) == "someone else's")
        #expect(counters.snapshot.logRecordsDropped[.retention, default: 0] == 0)
        #expect(messages.all.contains { $0.contains(rotated.path) && $0.contains("changed by someone else") }, "\(messages.all)")
    }

    @Test("a symbolic link at the path is refused: nothing is written through it, the link and its target stay, the items are counted")
    func symlinkRefused() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/logs.bin", target = "\(directory)/victim"
        try Data("victim".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let sink = OTLPRotatingFileSink(path: path, rotation: .init(maxFileBytes: 1, maxFiles: 1), signal: .logs, counters: counters)
        guard let failure = Self.errorOf({ () throws(OTLPWriteError) in try sink.open() }), failure.code == .system, failure.errno == ELOOP
        else {
            Issue.record("the link was not refused with ELOOP")
            return
        }
        let message = failure.message
        #expect(message.contains(path) && message.contains("symbolic link"))
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(
            sink: sink, resource: Self.resource, counters: counters, diagnostics: messages.add)
        #expect(!exporter.export(Self.batch(0, 3)))
        #expect(!exporter.export(Self.batch(3, 3)))
        #expect(counters.snapshot.logRecordsDropped == [.writeFailed: 6])
        #expect(messages.all.count == 2 && messages.all.allSatisfy { $0.contains("symbolic link") })
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "victim")
    }

    @Test("a device at the path is written as it is: no lock file beside it, no rotation")
    func deviceWrittenAsIs() throws {
        let counters = OTLPTelemetryCounters()
        let sink = OTLPRotatingFileSink(
            path: "/dev/null", rotation: .init(maxFileBytes: 10, maxFiles: 1), signal: .logs, counters: counters)
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: Self.resource, counters: counters)
        for round in 0..<5 { #expect(exporter.export(Self.batch(round * 3, 3))) }
        #expect(!FileManager.default.fileExists(atPath: "/dev/.null.lock"))
        #expect(FileManager.default.fileExists(atPath: "/dev/null"))
        #expect(counters.snapshot.logRecordsExported == 15)
        #expect(counters.snapshot.totalLogRecordsDropped == 0)
    }

    @Test(
        "a FIFO with no reader at the path: opening fails at once (ENXIO, said so) instead of blocking; once a reader is there, batches go through"
    )
    func fifoWithoutReader() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/logs.fifo"
        #expect(mkfifo(path, 0o600) == 0)
        let counters = OTLPTelemetryCounters()
        let sink = OTLPRotatingFileSink(path: path, rotation: .init(), signal: .logs, counters: counters)
        let error = Self.errorOf { () throws(OTLPWriteError) in try sink.open() }
        guard let failure = error, failure.code == .system, failure.errno == ENXIO else {
            Issue.record("expected ENXIO, got \(String(describing: error))")
            return
        }
        let message = failure.message
        #expect(message.contains("FIFO with no reader"), "\(message)")
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: Self.resource, counters: counters)
        #expect(exporter.export(Self.batch(0, 3)))
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
        #expect(count > 0)
        #expect(logRecords(try readAll(Array(buffer[..<max(count, 0)]))).count == 3)
        #expect(counters.snapshot.logRecordsExported == 3)
    }

    @Test("a write without an item count is refused with a clear error")
    func writeWithoutCountRefused() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = OTLPRotatingFileSink(path: "\(directory)/logs.bin", rotation: .init(), signal: .logs, counters: OTLPTelemetryCounters())
        let error = Self.errorOf { () throws(OTLPWriteError) in
            try [UInt8](repeating: 0, count: 4).withUnsafeBytes { bytes in Result { () throws(OTLPWriteError) in try sink.write(bytes) } }
                .get()
        }
        #expect(error?.description.contains("item count") == true)
    }

    @Test("a rotated name taken after the sink opened (here a symbolic link) is skipped, never renamed over")
    func rotatedNameTakenLater() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/logs.bin"
        let counters = OTLPTelemetryCounters()
        let sink = OTLPRotatingFileSink(path: path, rotation: .init(maxFileBytes: 2_000, maxFiles: 10), signal: .logs, counters: counters)
        try sink.open()
        try Data("victim".utf8).write(to: URL(fileURLWithPath: "\(directory)/victim"))
        try FileManager.default.createSymbolicLink(atPath: "\(path).1", withDestinationPath: "\(directory)/victim")
        try Data("squatter".utf8).write(to: URL(fileURLWithPath: "\(path).2"))
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: Self.resource, counters: counters)
        var sent = 0
        for _ in 0..<1_000 where sink.ownedFiles.count < 3 {
            #expect(exporter.export(Self.batch(sent, 4)))
            sent += 4
        }
        #expect(sink.files == [path, "\(path).4", "\(path).3"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "\(path).1") == "\(directory)/victim")
        #expect(try String(contentsOfFile: "\(directory)/victim", encoding: .utf8) == "victim")
        #expect(try String(contentsOfFile: "\(path).2", encoding: .utf8) == "squatter")
        #expect(try sink.files.map(Self.items(in:)).reduce(0, +) == sent)
    }

    @Test("rotated numbers: names past Int.max are ignored (they cannot collide); PATH.<Int.max> leaves no number and is a clear error")
    func hostileRotatedNumbers() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/logs.bin"
        for name in ["logs.bin.99999999999999999999999", "logs.bin.7x", "logs.bin.", "logs.bin.-3", "logs.bin.05"] {
            try Data().write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
        }
        #expect(try OTLPRotatingFileSink.firstFreeIndex(after: path) == 6)
        try Data().write(to: URL(fileURLWithPath: "\(path).\(Int.max)"))
        let sink = OTLPRotatingFileSink(path: path, rotation: .init(), signal: .logs, counters: OTLPTelemetryCounters())
        guard let failure = Self.errorOf({ () throws(OTLPWriteError) in try sink.open() }), failure.code == .system, failure.errno == EEXIST
        else {
            Issue.record("PATH.<Int.max> was not refused")
            return
        }
        let message = failure.message
        #expect(message.contains("no number is free"), "\(message)")
    }

    @Test(
        "its current file replaced by a symbolic link mid-run: nothing is written through the link, which is neither renamed nor deleted; the loss is counted"
    )
    func currentFileReplacedByLink() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/logs.bin", target = "\(directory)/victim"
        try Data("victim".utf8).write(to: URL(fileURLWithPath: target))
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let sink = OTLPRotatingFileSink(
            path: path, rotation: .init(maxFileBytes: 2_000, maxFiles: 2), signal: .logs, counters: counters, diagnostics: messages.add)
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(
            sink: sink, resource: Self.resource, counters: counters, diagnostics: messages.add)
        var sent = 0
        for _ in 0..<1_000 where sink.ownedFiles.count < 2 {
            #expect(exporter.export(Self.batch(sent, 4)))
            sent += 4
        }
        try FileManager.default.moveItem(atPath: path, toPath: "\(directory)/moved-away")
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        for _ in 0..<40 { exporter.export(Self.batch(sent, 4)); sent += 4 }  // enough to rotate many times over
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "victim")
        let snapshot = counters.snapshot
        // Until the next rotation the open file (now moved away) still takes batches; then every batch fails.
        let kept = try Self.items(in: "\(directory)/moved-away") + sink.files.map(Self.items(in:)).reduce(0, +)
        #expect(!sink.files.contains(path))
        #expect(snapshot.logRecordsDropped[.writeFailed, default: 0] > 0)
        #expect(kept + snapshot.logRecordsDropped[.writeFailed, default: 0] == sent)
        #expect(snapshot.logRecordsDropped[.retention, default: 0] == 0)
        #expect(messages.all.contains { $0.contains("changed by someone else") })
        #expect(messages.all.contains { $0.contains("symbolic link") })
    }
}
