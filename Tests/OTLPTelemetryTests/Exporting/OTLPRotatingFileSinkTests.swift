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
        "an earlier run's regular files (PATH, STEM.N.EXT) count toward maxFiles and the oldest go; a symbolic link at STEM.1.EXT and names that are not rotated names are never renamed, followed or deleted"
    )
    func earlierRunsFilesCounted() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/logs.u32be.bin"
        try Data("earlier run, current file".utf8).write(to: URL(fileURLWithPath: path))
        try Data("victim".utf8).write(to: URL(fileURLWithPath: "\(directory)/victim"))
        try FileManager.default.createSymbolicLink(atPath: "\(directory)/logs.1.u32be.bin", withDestinationPath: "\(directory)/victim")
        try Data("earlier run, rotated".utf8).write(to: URL(fileURLWithPath: "\(directory)/logs.2.u32be.bin"))
        let strangers = [
            "logs.u32be.bin.3", "logs.05.u32be.bin", "logs.-3.u32be.bin", "logs..u32be.bin", "logs.7x.u32be.bin", "logs.4.bin",
        ]
        for name in strangers { try Data(name.utf8).write(to: URL(fileURLWithPath: "\(directory)/\(name)")) }

        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let sink = OTLPRotatingFileSink(
            path: path, rotation: .init(maxFileBytes: 2_000, maxFiles: 3), signal: .logs, counters: counters, diagnostics: messages.add)
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(
            sink: sink, resource: Self.resource, counters: counters, diagnostics: messages.add)
        #expect(exporter.export(Self.batch(0, 1)))
        // At the first write the earlier current file became the newest rotated one, numbered after the link.
        #expect(sink.files == [path, "\(directory)/logs.2.u32be.bin", "\(directory)/logs.3.u32be.bin"])
        #expect(try String(contentsOfFile: "\(directory)/logs.2.u32be.bin", encoding: .utf8) == "earlier run, current file")
        #expect(try String(contentsOfFile: "\(directory)/logs.3.u32be.bin", encoding: .utf8) == "earlier run, rotated")
        var sent = 1
        for _ in 0..<150 {
            #expect(exporter.export(Self.batch(sent, 5)))
            sent += 5
        }
        // Untouched: the link and where it points, every name that is not STEM.N.EXT.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/logs.1.u32be.bin") == "\(directory)/victim")
        #expect(try String(contentsOfFile: "\(directory)/victim", encoding: .utf8) == "victim")
        for name in strangers { #expect(try String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8) == name) }
        // Three files in all: this run's newest, numbered after the link; the earlier ones are gone, not counted.
        #expect(sink.files == [path, "\(directory)/logs.2.u32be.bin", "\(directory)/logs.3.u32be.bin"])
        let snapshot = counters.snapshot
        let kept = try sink.files.map(Self.items(in:)).reduce(0, +)
        #expect(snapshot.logRecordsExported == sent)
        #expect(kept + snapshot.logRecordsDropped[.retention, default: 0] == sent)
        #expect(messages.all.isEmpty, "\(messages.all)")
    }

    @Test(
        "eight runs with maxFiles 3 leave three files, newest = 1, named with the extension kept, so a glob on it matches them all",
        arguments: [("traces.u32be.bin", "traces*.u32be.bin", false), ("traces.jsonl.gz", "traces*.jsonl.gz", true)])
    func runsBounded(name: String, glob: String, gzip: Bool) throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/\(name)"
        let messages = Messages()
        for run in 0..<8 {
            let counters = OTLPTelemetryCounters()
            let sink = OTLPRotatingFileSink(
                path: path, rotation: .init(maxFiles: 3), signal: .logs, counters: counters, diagnostics: messages.add)
            let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(
                sink: sink, framing: gzip ? .jsonl : .u32be, gzip: gzip, resource: Self.resource, counters: counters)
            #expect(exporter.export(Self.batch(run * 10, 3)))
            sink.close()
            #expect(counters.snapshot.totalLogRecordsDropped == 0, "an earlier run's file deleted is not this run's loss")
        }
        let stem = String(name.prefix { $0 != "." }), fileExtension = String(name.drop { $0 != "." })
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
        #expect(names == [name, "\(stem).1\(fileExtension)", "\(stem).2\(fileExtension)"].sorted())
        #expect(names.allSatisfy { fnmatch(glob, $0, 0) == 0 }, "\(names)")
        // Newest first: run 7 in PATH, run 6 in STEM.1.EXT, run 5 in STEM.2.EXT.
        for (offset, file) in [name, "\(stem).1\(fileExtension)", "\(stem).2\(fileExtension)"].enumerated() {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(file)")))
            let times = logRecords(try readAll(bytes)).map(\.timeUnixNano)
            let run = 7 - offset
            #expect(times == [1, 2, 3].map { UInt64(run * 10 + $0) }, "\(file)")
        }
        #expect(messages.all.isEmpty, "\(messages.all)")
    }

    @Test(
        "rotated names: the number goes before the extension, the run of known OTLP parts at the end of the name (else the last part)",
        arguments: [
            ("d/traces.u32be.bin", "d/traces.1.u32be.bin"), ("logs.u32be.bin.gz", "logs.1.u32be.bin.gz"),
            ("/t/traces.jsonl.gz", "/t/traces.7.jsonl.gz"), ("app.v2.jsonl", "app.v2.1.jsonl"), ("spans.data", "spans.1.data"),
            ("spans", "spans.1"), ("u32be.bin", "u32be.1.bin"), (".hidden.bin", ".hidden.1.bin"),
            ("x.varint.binpb.zst", "x.1.varint.binpb.zst"),
        ])
    func rotatedNames(path: String, rotated: String) {
        let names = OTLPRotatedFileName(path: path)
        let index = rotated.contains(".7.") ? 7 : 1
        #expect(names.path(index: index) == rotated)
        let rotatedName = String(rotated.split(separator: "/").last!)
        #expect(names.index(ofName: rotatedName) == index)
        for stranger in [
            String(path.split(separator: "/").last!), "\(rotatedName).1",
            rotatedName.replacingOccurrences(of: ".\(index)", with: ".0\(index)"),
        ] {
            #expect(names.index(ofName: stranger) == nil, "\(stranger)")
        }
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
        // Rotated names move up at each rotation (and a freed inode is soon reused): write until the first deletion.
        let garbage = Data(repeating: 0xFF, count: oldest.bytes)
        for _ in 0..<1_000 where counters.snapshot.logRecordsDropped[.retention, default: 0] == 0 {  // bounded: a regression fails, never hangs
            #expect(exporter.export(Self.batch(sent, 4)))
            sent += 4
        }
        #expect(!sink.ownedFiles.contains { $0.status.isSameFile(as: oldest.status) && $0.createdAtUnixNano == oldest.createdAtUnixNano })
        #expect(try sink.files.allSatisfy { try Data(contentsOf: URL(fileURLWithPath: $0)) != garbage })
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
        #expect(messages.all.count == 1 && messages.all.allSatisfy { $0.contains("symbolic link") })
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
        try FileManager.default.createSymbolicLink(atPath: "\(directory)/logs.1.bin", withDestinationPath: "\(directory)/victim")
        try Data("squatter".utf8).write(to: URL(fileURLWithPath: "\(directory)/logs.2.bin"))
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: Self.resource, counters: counters)
        var sent = 0
        for _ in 0..<1_000 where sink.ownedFiles.count < 3 {
            #expect(exporter.export(Self.batch(sent, 4)))
            sent += 4
        }
        #expect(sink.files == [path, "\(directory)/logs.3.bin", "\(directory)/logs.4.bin"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/logs.1.bin") == "\(directory)/victim")
        #expect(try String(contentsOfFile: "\(directory)/victim", encoding: .utf8) == "victim")
        #expect(try String(contentsOfFile: "\(directory)/logs.2.bin", encoding: .utf8) == "squatter")
        #expect(try sink.files.map(Self.items(in:)).reduce(0, +) == sent)
    }

    @Test("rotated numbers: only canonical decimal numbers that fit an Int are rotated names")
    func hostileRotatedNumbers() throws {
        let names = OTLPRotatedFileName(path: "/d/logs.bin")
        for name in [
            "logs.99999999999999999999999.bin", "logs.7x.bin", "logs..bin", "logs.-3.bin", "logs.05.bin", "logs.0.bin", "logs.bin.3",
            "logs.+3.bin", "logs.٣.bin",
        ] {
            #expect(names.index(ofName: name) == nil, "\(name)")
        }
        #expect(names.index(ofName: "logs.\(Int.max).bin") == Int.max)
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
