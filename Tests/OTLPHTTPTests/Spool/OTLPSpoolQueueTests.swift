import Foundation
import OTLPTelemetry
import OTLPWire
import Testing

@testable import OTLPHTTP
import OTLPTestSupport

/// The on-disk queue alone: order, acknowledgement, recovery after a crash, the size bound, the lock.
@Suite("OTLPSpoolQueue")
struct OTLPSpoolQueueTests {
    /// A fresh directory, removed by the caller.
    static func directory() -> String {
        OTLPTemporaryDirectory.unusedPath("otlp-spool", suffix: "/traces").path
    }

    static func request(_ index: Int, spans count: Int = 1) -> [UInt8] {
        OTLPEncoder().withEncoded(
            OTLPScopedSpan.request(OTLPHTTPTestData.spans(count, from: index * 1000), resource: OTLPHTTPTestData.resource)
        ) {
            Array($0)
        }
    }

    /// Reads and acknowledges every waiting record; returns their bytes.
    static func drain(_ queue: OTLPSpoolQueue, limit: Int = .max, itemsPerRecord: Int = 1) throws -> [[UInt8]] {
        var records: [[UInt8]] = []
        while records.count < limit, let record = try queue.next() {
            try queue.acknowledge(record, items: itemsPerRecord)
            records.append(record.bytes)
        }
        return records
    }

    static func files(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".u32be.bin") }.sorted()
    }

    @Test("records come back in order across file rotation; a file is deleted once all its records are acknowledged")
    func orderAndDeletion() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let queue = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 256 << 10, durability: .flush)
        let requests = (0..<300).map { Self.request($0, spans: 3) }
        for request in requests { #expect(try queue.append(request, items: 3) == 0) }
        #expect(Self.files(directory).count > 1, "rotated by size")
        #expect(queue.pendingItems == 900)
        #expect(try Self.drain(queue, limit: 100, itemsPerRecord: 3) == Array(requests[..<100]))
        #expect(queue.pendingItems == 600)
        #expect(try Self.drain(queue, itemsPerRecord: 3) == Array(requests[100...]))
        #expect(queue.pendingItems == 0)
        #expect(Self.files(directory).count <= 1, "only the file still open for appending may stay")
        queue.release()
    }

    @Test("a queue opened again resumes after the last acknowledged record; sealed files carry their item count")
    func resumeFromCheckpoint() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let requests = (0..<50).map { Self.request($0) }
        do {
            let queue = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .fsync)
            for request in requests { _ = try queue.append(request, items: 1) }
            #expect(try Self.drain(queue, limit: 20) == Array(requests[..<20]))
            // One more read, not acknowledged: in flight when the process dies.
            #expect(try queue.next()?.bytes == requests[20])
            queue.release()
        }
        #expect(Self.files(directory).allSatisfy { $0.contains("-") }, "\(Self.files(directory))")
        let reopened = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        #expect(reopened.recoveredItems == 30)
        #expect(reopened.damagedRecords == 0)
        #expect(try Self.drain(reopened) == Array(requests[20...]))
        reopened.release()
    }

    @Test(
        "a torn record at the end of a file left open by a crash is cut off and counted; its predecessors are kept",
        arguments: [1, 3, 4, 10])
    func tornRecord(tornBytes: Int) throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let requests = (0..<5).map { Self.request($0) }
        var queue: OTLPSpoolQueue? = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        for request in requests { _ = try queue?.append(request, items: 1) }
        // No release: the file stays open (unsealed), as after SIGKILL.
        let open = try #require(Self.files(directory).first)
        #expect(!open.contains("-"))
        let handle = try #require(FileHandle(forWritingAtPath: "\(directory)/\(open)"))
        handle.seekToEndOfFile()
        // The first bytes of a record longer than what follows.
        handle.write(Data(([0, 0, 1, 0] + [UInt8](repeating: 0x0A, count: 16)).prefix(tornBytes)))
        handle.closeFile()
        queue = nil
        let reopened = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        #expect(reopened.damagedRecords == 1)
        #expect(reopened.recoveredItems == 5)
        #expect(try Self.drain(reopened) == requests)
        reopened.release()
    }

    @Test(
        "a crash before the first release: the open file is counted once (gzip records by their content) and sealed (regression: every gzip record of the open file was cut off as one torn record)",
        arguments: [false, true])
    func openFileRecovered(gzip: Bool) throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let requests = try (0..<4).map { index in
            let request = Self.request(index, spans: 2)
            return gzip ? try request.withUnsafeBytes { try OTLPGzip.compress($0) } : request
        }
        var first: OTLPSpoolQueue? = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        for request in requests { _ = try first?.append(request, items: 2) }
        first = nil  // released without sealing, as a killed process
        let reopened = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        #expect(reopened.recoveredItems == 8 && reopened.damagedRecords == 0)
        #expect(Self.files(directory) == ["00000000000000000001-8.u32be.bin"])
        #expect(try Self.drain(reopened) == requests)
        reopened.release()
    }

    @Test(
        "a record's request: plain as stored, gzip decompressed; a second member, a truncated or corrupt member is an error with its offset in the record"
    )
    func requestOfRecord() throws {
        let request = Self.request(1, spans: 2)
        let member = try request.withUnsafeBytes { try OTLPGzip.compress($0) }
        #expect(try OTLPSpoolQueue.request(ofRecord: request) == request)
        #expect(try OTLPSpoolQueue.request(ofRecord: member) == request)
        #expect(throws: OTLPReadError.self) { try OTLPSpoolQueue.request(ofRecord: member + member) }
        do {
            _ = try OTLPSpoolQueue.request(ofRecord: Array(member.dropLast(3)))
            Issue.record("a truncated member was read")
        } catch {
            #expect(error.code == .gzipTruncated && error.offsetIn == .record, "\(error)")
        }
    }

    @Test("over maxBytes the oldest files go first and their items are returned as dropped; the newest records stay in order")
    func boundedBySize() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let queue = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 64 << 10, durability: .none)
        let requests = (0..<400).map { Self.request($0, spans: 2) }
        var dropped = 0
        for request in requests { dropped += try queue.append(request, items: 2) }
        #expect(dropped > 0)
        #expect(queue.bytes <= queue.maxBytes + queue.fileBytes)
        #expect(queue.pendingItems + dropped == 800)
        let left = try Self.drain(queue)
        #expect(left.count * 2 == 800 - dropped)
        #expect(left == Array(requests.suffix(left.count)), "the newest records, in order")
        queue.release()
    }

    @Test("the file being uploaded is never dropped for size: its record is acknowledged, not counted twice")
    func inFlightFileKept() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let queue = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 64 << 10, durability: .none)
        let requests = (0..<400).map { Self.request($0, spans: 2) }
        _ = try queue.append(requests[0], items: 2)
        let inFlight = try #require(try queue.next())
        var dropped = 0
        for request in requests.dropFirst() { dropped += try queue.append(request, items: 2) }
        try queue.acknowledge(inFlight, items: 2)
        let left = try Self.drain(queue)
        #expect(inFlight.bytes == requests[0])
        #expect(2 + left.count * 2 + dropped == 800)
        queue.release()
    }

    @Test("a second queue on the same directory fails clearly (EWOULDBLOCK, naming the holder); after release it opens")
    func oneProcessPerDirectory() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let first = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        #expect {
            _ = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        } throws: { error in
            guard let error = error as? OTLPWriteError else { return false }
            return error.errno == EWOULDBLOCK && error.description.contains("\(directory) is being written by")
        }
        first.release()
        let second = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        second.release()
    }

    @Test(
        "a checkpoint that is unreadable or does not match the files (a file number ahead of them, an offset past the end or inside a record, a number that would overflow) is not trusted: nothing is deleted, everything is sent (regression: real files were deleted, or the process trapped)",
        arguments: ["99 0 0\n", "1 999999 3\n", "1 3 0\n", "18446744073709551615 0 0\n", "4611686018427387903 0 0\n", "garbage\u{0}"])
    func checkpointNotMatchingFiles(checkpoint: String) throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let requests = (0..<3).map { Self.request($0) }
        do {
            let queue = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
            for request in requests { _ = try queue.append(request, items: 1) }
            queue.release()
        }
        try Data(checkpoint.utf8).write(to: URL(fileURLWithPath: "\(directory)/checkpoint"))
        let reopened = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        #expect(reopened.isCheckpointDistrusted)
        #expect(reopened.recoveredItems == 3)
        #expect(try Self.drain(reopened) == requests)
        reopened.release()
    }

    @Test("names that are not the spool's (a number past 2^62, a sign, an absurd item count, a second file of one number) are left alone")
    func foreignNamesLeftAlone() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let foreign = [
            "18446744073709551615.u32be.bin", "+0000000000000000001.u32be.bin", "00000000000000000002-99999999999999999.u32be.bin",
            "00000000000000000002-+5.u32be.bin", "notes.txt",
        ]
        for name in foreign { try Data([0, 0, 0, 9]).write(to: URL(fileURLWithPath: "\(directory)/\(name)")) }
        let queue = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        #expect(queue.recoveredItems == 0 && queue.damagedRecords == 0)
        #expect(try queue.next() == nil)
        _ = try queue.append(Self.request(0), items: 1)
        #expect(try Self.drain(queue) == [Self.request(0)])
        queue.release()
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        #expect(names.isSuperset(of: foreign))
    }

    @Test(
        "a spool file deleted behind the queue's back: its items are reported lost, the next file is read (regression: the uploader retried the missing file forever)"
    )
    func fileDeletedBehindItsBack() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let queue = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 256 << 10, durability: .none)
        let requests = (0..<300).map { Self.request($0, spans: 3) }
        for request in requests { _ = try queue.append(request, items: 3) }
        let first = try #require(Self.files(directory).first)
        #expect(first.hasSuffix("-\(first.split(separator: "-")[1])"))
        let itemsInFirst = try #require(Int(first.split(separator: "-")[1].split(separator: ".")[0]))
        try FileManager.default.removeItem(atPath: "\(directory)/\(first)")
        let next = try #require(try queue.next())
        #expect(queue.takeLostItems() == itemsInFirst)
        #expect(next.bytes == requests[itemsInFirst / 3])
        queue.release()
    }

    @Test(
        "damage inside a sealed file: the records before it are read, the items after it reported lost (regression: lost without a count)")
    func damageInSealedFile() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let requests = (0..<5).map { Self.request($0) }
        do {
            let queue = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
            for request in requests { _ = try queue.append(request, items: 1) }
            queue.release()
        }
        let sealed = try #require(Self.files(directory).first)
        let handle = try #require(FileHandle(forWritingAtPath: "\(directory)/\(sealed)"))
        handle.seekToEndOfFile()
        handle.write(Data([0xFF, 0xFF, 0xFF, 0xF0, 1, 2, 3]))
        handle.closeFile()
        // The name now claims 15 items: 5 readable, 10 behind the damage.
        try FileManager.default.moveItem(atPath: "\(directory)/\(sealed)", toPath: "\(directory)/00000000000000000001-15.u32be.bin")
        let reopened = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        #expect(try Self.drain(reopened) == requests)
        #expect(reopened.damagedRecords == 1)
        #expect(reopened.takeLostItems() == 10)
        reopened.release()
    }

    @Test(
        "records are read back with the widest limits: what the exporter accepts (values nested 60 deep, 20,000 attributes) is not refused by its own uploader"
    )
    func readOptionsAcceptWhatTheExporterWrites() throws {
        var value = OTLPAttributeValue.string("leaf")
        for _ in 0..<60 { value = .array([value]) }
        var span = OTLPSpan(
            traceID: OTLPTraceID(high: 1, low: 1), spanID: OTLPSpanID(1), name: "deep", startTimeUnixNano: 1, endTimeUnixNano: 2)
        span.attributes = [OTLPAttribute("deep", value)] + (0..<20_000).map { OTLPAttribute("a\($0)", .int(Int64($0))) }
        let item = OTLPScopedSpan(scope: OTLPHTTPTestData.scope, span: span)
        #expect(!item.nestsValues(deeperThan: OTLPScopedSpan.maxEncodableValueNesting))
        let request = OTLPEncoder().withEncoded(OTLPScopedSpan.request([item], resource: OTLPHTTPTestData.resource)) { Array($0) }
        let items = try request.withUnsafeBytes { bytes in
            try Result { () throws(OTLPReadError) in try OTLPDecoder(options: OTLPSpoolQueue.readOptions).check(bytes, as: .traces) }.get()
        }
        #expect(items == 1)
        #expect(
            (try? request.withUnsafeBytes { bytes in
                try Result { () throws(OTLPReadError) in try OTLPDecoder(options: .default).check(bytes, as: .traces) }.get()
            }) == nil, "the default limits refuse it: the test would not show the regression otherwise")
    }

    @Test("a checkpoint that is a symbolic link is not believed (regression: a link to another file skipped records)")
    func symlinkedCheckpoint() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let requests = (0..<3).map { Self.request($0) }
        do {
            let queue = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
            for request in requests { _ = try queue.append(request, items: 1) }
            queue.release()
        }
        let elsewhere = directory + "/../elsewhere"
        let firstEnd = 4 + requests[0].count
        try Data("1 \(firstEnd) 1\n".utf8).write(to: URL(fileURLWithPath: elsewhere))
        try FileManager.default.createSymbolicLink(atPath: "\(directory)/checkpoint", withDestinationPath: elsewhere)
        let reopened = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        #expect(reopened.isCheckpointDistrusted)
        #expect(try Self.drain(reopened) == requests)
        reopened.release()
    }
}
