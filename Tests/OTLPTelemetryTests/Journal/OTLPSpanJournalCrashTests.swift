import Foundation
import OTLPTestSupport
import OTLPWire
import Testing

@testable import OTLPTelemetry

/// Child processes journal spans and are killed with SIGKILL at random moments; each next start exports what
/// the killed one started and never exported. Every span is accounted for exactly once.
@Suite("Open-span journal: processes killed")
struct OTLPSpanJournalCrashTests {
    static let writer = OTLPProcess.executable("otlp-crash-writer")

    /// Starts `otlp-crash-writer journal`, waits for its `recovered` line and until it has started `spans`
    /// spans, kills it; returns what it recovered at its start.
    static func runAndKill(stateDirectory: String, tracesPath: String, spans: Int) throws -> Int {
        let process = Process()
        process.executableURL = writer
        process.arguments = ["journal", stateDirectory, tracesPath]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var recovered = -1
        var started = 0
        var pending = Data()
        while started < spans {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                if line.hasPrefix("recovered "), let count = Int(line.split(separator: " ")[1]) { recovered = count }
                if line.hasPrefix("started "), let count = Int(line.dropFirst(8)) { started = count }
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        return recovered
    }

    /// Every span of the files, as (writer process, index, interrupted). Records cut by a kill at the end of
    /// a file are left out (the reader stops there).
    static func spans(in paths: [String]) throws -> [(pid: Int64, index: Int64, interrupted: Bool)] {
        var found: [(Int64, Int64, Bool)] = []
        for path in paths where FileManager.default.fileExists(atPath: path) {
            let reader = try OTLPRecordReader(path: path, options: OTLPReaderOptions(signal: .traces))
            do {
                while let record = try reader.next() {
                    guard case .traces(let data) = record.payload else { continue }
                    for group in data.resourceGroups {
                        let pid = group.resource?.attributes.first { $0.key == "process.pid" }?.value
                        guard case .int(let process)? = pid else { continue }
                        for span in group.scopeGroups.flatMap(\.items) {
                            guard case .int(let index)? = span.attributes.first(where: { $0.key == "index" })?.value else { continue }
                            found.append((process, index, span.status?.code == .error))
                        }
                    }
                }
            } catch {
                #expect([.truncatedRecord, .truncatedLengthPrefix].contains(error.code), "\(path): \(error)")
            }
        }
        return found
    }

    @Test(
        "killed at random moments over 50 runs: every span of every run exported exactly once; only the open ones interrupted"
    )
    func killedRepeatedly() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state").path
        var generator = SystemRandomNumberGenerator()
        // One output path, as an app has: each start moves the previous file aside (traces.N.u32be.bin, newest 1).
        let path = directory.appendingPathComponent("traces.u32be.bin").path
        for run in 0..<50 {
            let recovered = try Self.runAndKill(
                stateDirectory: state, tracesPath: path, spans: Int.random(in: 1...20, using: &generator) * 100)
            #expect(recovered >= 0)
            if run == 0 { #expect(recovered == 0) } else { #expect(recovered > 0, "run \(run) recovered nothing of the killed run before") }
        }
        // A clean start exports the last run's leftovers, then shuts down cleanly: the journal is gone.
        let clean = try OTLPProcess.run(Self.writer, ["recover", state, path])
        #expect(clean.status == 0, "\(clean.errors)")
        #expect(!FileManager.default.fileExists(atPath: state + "/open-spans.u32be.bin"))
        let again = try OTLPProcess.run(Self.writer, ["recover", state, path])
        #expect(again.output == "recovered 0 skipped 0\n", "after a clean shutdown nothing is recovered")

        let paths = [path] + (1...60).map { directory.appendingPathComponent("traces.\($0).u32be.bin").path }
        let spans = try Self.spans(in: paths)
        let byProcess = Dictionary(grouping: spans, by: \.pid)
        #expect(byProcess.count == 50)
        var exportedTwice = 0
        for (pid, ofProcess) in byProcess {
            let counts = Dictionary(grouping: ofProcess.map(\.index), by: { $0 }).mapValues(\.count)
            let highest = counts.keys.max() ?? -1
            let missing = (0...highest).filter { counts[$0] == nil }
            #expect(missing.isEmpty, "process \(pid): \(missing.count) spans lost, the first \(missing.prefix(5))")
            // A batch handed to the exporter without an acknowledgement (killed in between) is looked up in the
            // output: found there, it is not exported again.
            let twice = counts.filter { $0.value > 1 }.keys.sorted()
            #expect(twice.isEmpty, "process \(pid): \(twice.count) spans exported twice, the first \(twice.prefix(5))")
            exportedTwice += twice.count
            let interrupted = ofProcess.filter(\.interrupted).map(\.index)
            // Span i starts before span i - 1 ends: at the kill, the last one or two are open.
            #expect(interrupted.allSatisfy { $0 >= highest - 1 }, "process \(pid): only the spans open at the kill are interrupted")
            #expect(highest >= 99)
        }
        print(
            "open-span journal, 50 processes killed: \(spans.count) spans exported, \(exportedTwice) of them twice"
        )
    }

    /// Runs `otlp-crash-writer journal` with the fault point set: it kills itself (SIGKILL) the `acknowledgement`th
    /// time the journal is about to say that an exporter took a batch. Returns the journal's records as the
    /// kill left them.
    static func runKilledBeforeAcknowledgement(
        _ acknowledgement: Int, stateDirectory: String, tracesPath: String, environment: [String: String] = [:]
    ) throws -> [OTLPSpanJournalRecord] {
        let killed = try OTLPProcess.run(
            writer, ["journal", stateDirectory, tracesPath],
            environment: environment.merging(["OTLP_CRASH_WRITER_KILL_BEFORE_ACKNOWLEDGEMENT": "\(acknowledgement)"]) { $1 })
        #expect(killed.status == SIGKILL, "\(killed.errors)")
        var records: [OTLPSpanJournalRecord] = []
        let reader = try OTLPRecordReader(path: stateDirectory + "/open-spans.u32be.bin", options: OTLPReaderOptions(signal: .traces))
        // The records end at the first empty one: the file is preallocated (zeros after the last record).
        while let record = try reader.next(), case .traces(let data) = record.payload, !data.resourceGroups.isEmpty {
            guard case .record(let decoded) = OTLPSpanJournalRecord.decode(data) else { continue }
            records.append(decoded)
        }
        return records
    }

    /// Finds the killed process's write-ahead intent that was never acknowledged (the kill came between its
    /// exporter's write and the `exported` record), checks that it names `kind`, and returns the IDs of that
    /// batch's spans. The app's threads journal spans while the exporter works, and a caller helping a slow
    /// worker writes batches too, so other records may follow the intent (regression: the test took the very
    /// last record for it, and failed under load).
    static func batchInDoubt(_ records: [OTLPSpanJournalRecord], kind: OTLPExportDestination.Kind) -> Set<OTLPSpanID> {
        for index in records.indices.reversed() where records[index].kind == .exporting {
            let spans = Set(records[index].exportedSpans.compactMap(\.spanID))
            let acknowledged = records[(index + 1)...].contains {
                $0.kind == .exported && !spans.isDisjoint(with: $0.exportedSpans.compactMap(\.spanID))
            }
            guard !acknowledged else { continue }
            #expect(
                records[index].destination?.kind == kind,
                "the intent says where the batch goes: \(String(describing: records[index].destination))")
            return spans
        }
        Issue.record("no write-ahead intent left unacknowledged: the kill came right after an exporter's write, before its acknowledgement")
        return []
    }

    @Test(
        "killed after the file output wrote a batch and before the journal heard of it: the next start finds the batch in the file by its inode and exports nothing twice, nothing lost"
    )
    func killedBeforeTheFileOutputsAcknowledgement() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state").path
        let path = directory.appendingPathComponent("traces.u32be.bin").path
        let records = try Self.runKilledBeforeAcknowledgement(3, stateDirectory: state, tracesPath: path)
        let inDoubt = Self.batchInDoubt(records, kind: .file)
        #expect(!inDoubt.isEmpty)
        // The batch is in the killed process's file (moved aside as traces.1.u32be.bin by the next start).
        let clean = try OTLPProcess.run(Self.writer, ["recover", state, path])
        #expect(clean.status == 0, "\(clean.errors)")
        let killedFile = try Self.spanIDs(in: [directory.appendingPathComponent("traces.1.u32be.bin").path])
        #expect(inDoubt.isSubset(of: Set(killedFile)))
        let spans = try Self.spans(in: [path, directory.appendingPathComponent("traces.1.u32be.bin").path])
        Self.expectEachOnce(spans, processes: 1)
    }

    @Test(
        "killed after the spool took a batch and before the journal heard of it: the next start finds the record in the spool and exports nothing twice, nothing lost"
    )
    func killedBeforeTheSpoolsAcknowledgement() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state").path
        let spool = directory.appendingPathComponent("spool").path
        let environment = ["OTLP_CRASH_WRITER_SPOOL": spool]
        let records = try Self.runKilledBeforeAcknowledgement(3, stateDirectory: state, tracesPath: "-", environment: environment)
        let inDoubt = Self.batchInDoubt(records, kind: .spool)
        #expect(!inDoubt.isEmpty)
        let clean = try OTLPProcess.run(Self.writer, ["recover", state, "-"], environment: environment)
        #expect(clean.status == 0, "\(clean.errors)")
        // The collector is not there: everything both processes exported waits in the spool.
        let files = try FileManager.default.contentsOfDirectory(atPath: spool + "/traces").filter { $0.hasSuffix(".u32be.bin") }
        let spans = try Self.spans(in: files.map { spool + "/traces/" + $0 })
        Self.expectEachOnce(spans, processes: 1)
        #expect(inDoubt.isSubset(of: Set(try Self.spanIDs(in: files.map { spool + "/traces/" + $0 }))))
    }

    /// The span IDs of the files (any number of times).
    static func spanIDs(in paths: [String]) throws -> [OTLPSpanID] {
        var found: [OTLPSpanID] = []
        for path in paths where FileManager.default.fileExists(atPath: path) {
            let reader = try OTLPRecordReader(path: path, options: OTLPReaderOptions(signal: .traces))
            while let record = try reader.next() {
                guard case .traces(let data) = record.payload else { continue }
                for group in data.resourceGroups { found += group.scopeGroups.flatMap(\.items).compactMap(\.spanID) }
            }
        }
        return found
    }

    /// Every span index of each of `processes` writer processes is there exactly once, from 0 to its highest.
    static func expectEachOnce(_ spans: [(pid: Int64, index: Int64, interrupted: Bool)], processes: Int) {
        let byProcess = Dictionary(grouping: spans, by: \.pid)
        #expect(byProcess.count == processes)
        for (pid, ofProcess) in byProcess {
            let counts = Dictionary(grouping: ofProcess.map(\.index), by: { $0 }).mapValues(\.count)
            let highest = counts.keys.max() ?? -1
            let missing = (0...max(highest, 0)).filter { counts[$0] == nil }
            #expect(missing.isEmpty, "process \(pid): \(missing.count) spans lost, the first \(missing.prefix(5))")
            let twice = counts.filter { $0.value > 1 }.keys.sorted()
            #expect(twice.isEmpty, "process \(pid): \(twice.count) spans exported twice, the first \(twice.prefix(5))")
            #expect(highest >= 16)
        }
    }

    @Test("two processes on one state directory: the second is refused, naming the first; nothing is journaled twice")
    func twoProcesses() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state").path
        let process = Process()
        process.executableURL = Self.writer
        process.arguments = ["journal", state, directory.appendingPathComponent("a.u32be.bin").path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        // Once the first has started spans it holds the journal.
        var text = ""
        while !text.contains("started ") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let second = try OTLPProcess.run(Self.writer, ["recover", state, directory.appendingPathComponent("b.u32be.bin").path])
        #expect(second.status == 3)
        #expect(second.output.contains("journal refused"), "\(second.output)")
        #expect(second.output.contains("process \(process.processIdentifier)"), "\(second.output)")
    }
}
