import Foundation
import Testing
import OTLPTestSupport

/// `otlp-dump print` as a trace viewer: a trace written over several records is one tree (within the window,
/// whole with `--trace-id`), a directory reads its OTLP files in name order, `--follow` shows records as a
/// writer appends them and ends cleanly on SIGINT.
@Suite("otlp-dump traces across records")
struct TraceAcrossRecordsTests {
    typealias Span = TreeRendererTests.Span

    /// A u32be-framed file body: one record per element of `records`.
    static func framed(_ records: [[Span]]) -> Data {
        var out = Data()
        for spans in records {
            let message = TreeRendererTests.request(spans)
            let count = UInt32(message.count)
            out += [
                UInt8(count >> 24), UInt8(truncatingIfNeeded: count >> 16), UInt8(truncatingIfNeeded: count >> 8),
                UInt8(truncatingIfNeeded: count),
            ]
            out += message
        }
        return out
    }

    static func directory() throws -> URL {
        let url = try OTLPTemporaryDirectory.make("otlp-dump-across")
        return url
    }

    static func span(_ name: String, id: Int, parent: Int?, start: Int) -> Span {
        TreeRendererTests.span(name, id: id, parent: parent, start: start)
    }

    /// A trace written as a tool writes one: children end (and are exported) before their parents.
    static let scattered: [[Span]] = [
        [span("query", id: 3, parent: 2, start: 1_200)],
        [span("load", id: 2, parent: 1, start: 1_100), span("other", id: 4, parent: 1, start: 1_300)],
        [span("GET /cart", id: 1, parent: nil, start: 1_000)],
    ]

    @Test("a trace over three records is one tree: no parent marked absent, each span once, later records point to it")
    func oneTree() throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("traces.u32be.bin")
        try Self.framed(Self.scattered).write(to: file)
        let result = try OTLPDumpRunner.run(["print", "--brief", "--color", "never", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("(absent)"), "\(result.stdout)")
        let lines = TreeRendererTests.spanLines(result.stdout)
        #expect(lines.count == 4 && lines.values.allSatisfy { $0.count == 1 }, "\(result.stdout)")
        let root = try #require(lines[TreeRendererTests.spanID(1)]?.first)
        let load = try #require(lines[TreeRendererTests.spanID(2)]?.first)
        let query = try #require(lines[TreeRendererTests.spanID(3)]?.first)
        #expect(TreeRendererTests.indentation(load) == TreeRendererTests.indentation(root) + 2)
        #expect(TreeRendererTests.indentation(query) == TreeRendererTests.indentation(load) + 2)
        #expect(root.contains("(record 2)") && load.contains("(record 1)") && !query.contains("(record"))
        #expect(result.stdout.contains("· 4 spans (3 from later records) ·"), "\(result.stdout)")
        #expect(result.stdout.components(separatedBy: "drawn with \(file.path) record 0").count == 3, "\(result.stdout)")

        // --window 1 draws each record alone: the pieces come back, which is what the window prevents.
        let alone = try OTLPDumpRunner.run(["print", "--brief", "--color", "never", "--window", "1", file.path])
        #expect(alone.stdout.contains("parent=\(TreeRendererTests.spanID(2)) (absent)"), "\(alone.stdout)")
    }

    @Test("the window is bounded (a parent 70 records later is absent by default); --trace-id holds the whole trace")
    func windowAndTraceID() throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("traces.u32be.bin")
        var records: [[Span]] = [[Self.span("child", id: 2, parent: 1, start: 1_100)]]
        for filler in 0..<68 { records.append([Self.span("filler \(filler)", id: 100 + filler, parent: nil, start: 2_000)]) }
        records.append([Self.span("root", id: 1, parent: nil, start: 1_000)])
        try Self.framed(records).write(to: file)

        let windowed = try OTLPDumpRunner.run(["print", "--brief", "--color", "never", file.path])
        #expect(windowed.status == 0)
        #expect(windowed.stdout.contains("parent=\(TreeRendererTests.spanID(1)) (absent)"))
        let wider = try OTLPDumpRunner.run(["print", "--brief", "--color", "never", "--window", "100", file.path])
        #expect(!wider.stdout.contains("(absent)"))
        // Every span is in the one trace the fixture writes: --trace-id holds them all, whatever the window.
        let whole = try OTLPDumpRunner.run(
            ["print", "--brief", "--color", "never", "--trace-id", "0102030405060708090a0b0c0d0e0f10", file.path])
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(!whole.stdout.contains("(absent)"), "\(whole.stdout)")
        #expect(TreeRendererTests.spanLines(whole.stdout).count == 70)
        #expect(whole.stdout.contains("· 70 spans (69 from later records) ·"))
    }

    @Test("a directory reads its OTLP files in name order (hidden files and other names left out) for print, stats and validate")
    func directoryArgument() throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.framed([Self.scattered[2]]).write(to: folder.appendingPathComponent("traces.u32be.bin"))
        try Self.framed([Self.scattered[0], Self.scattered[1]]).write(to: folder.appendingPathComponent("traces.1.u32be.bin"))
        try Data("not OTLP".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        try Data("garbage".utf8).write(to: folder.appendingPathComponent(".traces.u32be.bin.lock"))
        let print = try OTLPDumpRunner.run(["print", "--brief", "--color", "never", folder.path])
        #expect(print.status == 0, "\(print.stderr)")
        let headers = print.stdout.split(separator: "\n").filter { $0.hasPrefix("──") }
        #expect(headers.map { $0.contains("traces.1.u32be.bin") } == [true, true, false], "\(headers)")
        #expect(!print.stdout.contains("(absent)"), "the trace straddles the two files: \(print.stdout)")
        let validate = try OTLPDumpRunner.run(["validate", folder.path])
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.stdout.split(separator: "\n").count == 2 && validate.stdout.contains("traces.1.u32be.bin: valid, 2 records"))
        let stats = try OTLPDumpRunner.run(["stats", folder.path])
        #expect(stats.status == 0 && stats.stdout.contains("4"), "\(stats.stdout)")
        let empty = try Self.directory()
        defer { try? FileManager.default.removeItem(at: empty) }
        let none = try OTLPDumpRunner.run(["print", empty.path])
        #expect(none.status != 0 && none.stderr.contains("no OTLP file"), "\(none.stderr)")
    }

    /// Regression (hostile review): a FIFO named like an OTLP file in a directory argument blocked the read for ever.
    @Test("a directory argument skips a FIFO named like an OTLP file and the open-span journal, says so, and reads the rest")
    func directoryWithFIFO() throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.framed([Self.scattered[0]]).write(to: folder.appendingPathComponent("a.u32be.bin"))
        #expect(mkfifo(folder.appendingPathComponent("b.u32be.bin").path, 0o600) == 0)
        // The open-span journal of a pipeline whose state directory is this folder (the demo's): not telemetry.
        try Self.framed([Self.scattered[2]]).write(to: folder.appendingPathComponent("open-spans.u32be.bin"))
        try Self.framed([Self.scattered[1]]).write(to: folder.appendingPathComponent("c.u32be.bin"))
        let stats = try OTLPDumpRunner.run(["validate", folder.path])
        #expect(stats.stderr.contains("b.u32be.bin: skipped: not a regular file"), "\(stats.stderr)")
        #expect(stats.stdout.contains("a.u32be.bin: valid") && stats.stdout.contains("c.u32be.bin: valid"), "\(stats.stdout)")
        #expect(stats.stderr.contains("open-spans.u32be.bin: skipped: the open-span journal"), "\(stats.stderr)")
        #expect(!stats.stdout.contains("open-spans"), "\(stats.stdout)")
    }

    @Test(
        "regression: in a directory, a link to a file read already is skipped (send delivered it twice), and a broken link is reported, not passed over"
    )
    func directoryWithLinks() throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.framed([Self.scattered[0]]).write(to: folder.appendingPathComponent("traces.u32be.bin"))
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("current.u32be.bin").path, withDestinationPath: "traces.u32be.bin")
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("gone.u32be.bin").path, withDestinationPath: "/nonexistent")
        let result = try OTLPDumpRunner.run(["validate", folder.path])
        #expect(result.stdout.contains("current.u32be.bin: valid"), "\(result.stdout)")
        #expect(!result.stdout.contains("/traces.u32be.bin"), "\(result.stdout)")
        #expect(result.stderr.contains("traces.u32be.bin: skipped: the same file as "), "\(result.stderr)")
        #expect(result.stderr.contains("gone.u32be.bin: skipped: it cannot be reached"), "\(result.stderr)")
    }

    @Test("a directory of a rotating output is read oldest first: traces.10, traces.2, traces.1, then traces (not in byte order)")
    func rotatedFilesOldestFirst() throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["traces.u32be.bin", "traces.1.u32be.bin", "traces.2.u32be.bin", "traces.10.u32be.bin", "a.u32be.bin"] {
            try Self.framed([Self.scattered[0]]).write(to: folder.appendingPathComponent(name))
        }
        let result = try OTLPDumpRunner.run(["validate", folder.path])
        let order = result.stdout.split(separator: "\n").compactMap { line in
            line.split(separator: ":").first.map { String($0.split(separator: "/").last ?? "") }
        }
        #expect(
            order == ["a.u32be.bin", "traces.10.u32be.bin", "traces.2.u32be.bin", "traces.1.u32be.bin", "traces.u32be.bin"],
            "\(result.stdout)")
    }

    /// Collects a process's standard output as it comes, so a test can wait for a line without sleeping.
    final class Collected: @unchecked Sendable {
        private let condition = NSCondition()
        private var data = Data()

        func append(_ more: Data) {
            condition.lock()
            data += more
            condition.broadcast()
            condition.unlock()
        }

        var text: String {
            condition.lock()
            defer { condition.unlock() }
            return String(decoding: data, as: UTF8.self)
        }

        /// Waits until `text` has been written (true), or 60 s pass (false: a regression fails, never hangs).
        func wait(for text: String) -> Bool {
            let deadline = Date().addingTimeInterval(60)
            condition.lock()
            defer { condition.unlock() }
            while !String(decoding: data, as: UTF8.self).contains(text) {
                if !condition.wait(until: deadline) { return false }
            }
            return true
        }
    }

    @Test("--follow shows records as a writer appends them (a record written in two parts once complete) and ends on SIGINT with status 0")
    func follow() throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("traces.u32be.bin")
        let records = Self.framed([[Self.span("first", id: 1, parent: nil, start: 1_000)]])
        try records.write(to: file)
        let process = Process()
        process.executableURL = OTLPDumpRunner.binary
        process.arguments = ["print", "--brief", "--color", "never", "--follow", "--poll-interval-ms", "5", file.path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let collected = Collected()
        output.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        #expect(collected.wait(for: "first"), "\(collected.text)")
        let writer = try FileHandle(forWritingTo: file)
        try writer.seekToEnd()
        let second = Self.framed([[Self.span("second", id: 2, parent: nil, start: 2_000)]])
        try writer.write(contentsOf: second.prefix(7))  // a record the writer has not finished
        try writer.write(contentsOf: second.dropFirst(7))
        #expect(collected.wait(for: "second"), "\(collected.text)")
        try writer.write(contentsOf: Self.framed([[Self.span("third", id: 3, parent: nil, start: 3_000)]]))
        try writer.close()
        #expect(collected.wait(for: "third"), "\(collected.text)")

        process.interrupt()
        #expect(exited.wait(timeout: .now() + 60) == .success, "SIGINT did not end --follow")
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        output.fileHandleForReading.readabilityHandler = nil
        let text = collected.text + String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.components(separatedBy: "── ").count == 4, "each record drawn once: \(text)")
    }
}
