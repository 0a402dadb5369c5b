import Foundation
import OTLPTelemetry
import OTLPWire
import Testing

@testable import OTLPHTTP

/// Recovery keeps every intact record; the record limit; the quarantine (issue 21, rules 1, 2 and 6).
@Suite("OTLPSpoolQueue recovery and quarantine")
struct OTLPSpoolQueueRecoveryTests {
    typealias Queue = OTLPSpoolQueueTests

    /// Five one-span records appended to a file left open (as after SIGKILL); returns the directory, the
    /// open file's path, the requests and the offset of each record's length prefix.
    static func crashedSpool() throws -> (directory: String, file: String, requests: [[UInt8]], offsets: [Int]) {
        let directory = Queue.directory()
        let requests = (0..<5).map { Queue.request($0) }
        var queue: OTLPSpoolQueue? = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        for request in requests { _ = try queue?.append(request, items: 1) }
        queue = nil
        let open = try #require(Queue.files(directory).first)
        var offsets: [Int] = []
        var offset = 0
        for request in requests {
            offsets.append(offset)
            offset += 4 + request.count
        }
        return (directory, "\(directory)/\(open)", requests, offsets)
    }

    /// Reads every record as the uploader does: a record that does not decode is stepped over with
    /// `skipDamaged`, the others acknowledged with their items. Returns the readable records.
    static func drainLikeUploader(_ queue: OTLPSpoolQueue) throws -> [[UInt8]] {
        let decoder = OTLPDecoder(options: OTLPSpoolQueue.readOptions)
        var records: [[UInt8]] = []
        while let record = try queue.next() {
            if let request = try? OTLPSpoolQueue.request(ofRecord: record.bytes), let traces = try? decoder.decodeTraces(request),
                traces.itemCount > 0
            {
                try queue.acknowledge(record, items: traces.itemCount)
                records.append(record.bytes)
            } else {
                try queue.skipDamaged(record)
            }
        }
        return records
    }

    static func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64(offset))
        handle.write(Data(bytes))
        try handle.close()
    }

    @Test(
        "a crash-left open file with a record whose content is damaged in its middle: only that record is lost and counted; every intact record after it is kept (regression: the file was cut there)"
    )
    func damagedContentInside() throws {
        let spool = try Self.crashedSpool()
        defer { try? FileManager.default.removeItem(atPath: spool.directory + "/..") }
        // The body of record 2 (its length prefix intact) made unreadable.
        try Self.overwrite(spool.file, at: spool.offsets[2] + 4, with: [UInt8](repeating: 0xFF, count: spool.requests[2].count))
        let reopened = try OTLPSpoolQueue(directory: spool.directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        defer { reopened.release() }
        #expect(reopened.recoveredItems == 4)
        var expected = spool.requests
        expected.remove(at: 2)
        #expect(try Self.drainLikeUploader(reopened) == expected)
        #expect(reopened.damagedRecords == 1)
    }

    @Test(
        "a damaged length prefix in the middle of a crash-left open file: the records after it are found again and kept, the damage counted once",
        arguments: [[0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 1], [0x00, 0x10, 0x00, 0x00]])
    func damagedPrefixInside(prefix: [UInt8]) throws {
        let spool = try Self.crashedSpool()
        defer { try? FileManager.default.removeItem(atPath: spool.directory + "/..") }
        try Self.overwrite(spool.file, at: spool.offsets[2], with: prefix)
        let reopened = try OTLPSpoolQueue(directory: spool.directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        defer { reopened.release() }
        #expect(reopened.recoveredItems == 4)
        var expected = spool.requests
        expected.remove(at: 2)
        #expect(try Self.drainLikeUploader(reopened) == expected)
        #expect(reopened.damagedRecords == 1)
    }

    @Test("damage inside and a torn tail: the intact records between them are kept; both are counted")
    func damageAndTornTail() throws {
        let spool = try Self.crashedSpool()
        defer { try? FileManager.default.removeItem(atPath: spool.directory + "/..") }
        try Self.overwrite(spool.file, at: spool.offsets[1] + 4, with: [UInt8](repeating: 0xFF, count: 8))
        let handle = try #require(FileHandle(forWritingAtPath: spool.file))
        handle.seekToEndOfFile()
        handle.write(Data([0, 0, 1, 0, 0x0A]))
        try handle.close()
        let reopened = try OTLPSpoolQueue(directory: spool.directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        defer { reopened.release() }
        #expect(reopened.damagedRecords == 1, "the torn tail, cut at opening")
        #expect(reopened.recoveredItems == 4)
        var expected = spool.requests
        expected.remove(at: 1)
        #expect(try Self.drainLikeUploader(reopened) == expected)
        #expect(reopened.damagedRecords == 2)
    }

    @Test(
        "a damaged length that still fits the file (one bit flipped) does not swallow the intact records it spans, in an open or a sealed file (regression: records 3 and 4 were lost)",
        arguments: [false, true])
    func damagedLengthThatFits(sealed: Bool) throws {
        let spool = try Self.crashedSpool()
        defer { try? FileManager.default.removeItem(atPath: spool.directory + "/..") }
        // Record 1's length made to reach into record 3.
        let length = spool.requests[1].count + 4 + spool.requests[2].count + 10
        try Self.overwrite(
            spool.file, at: spool.offsets[1],
            with: [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
        if sealed {
            // As a sealed file whose name holds its 5 items.
            try FileManager.default.moveItem(
                atPath: spool.file, toPath: spool.file.replacingOccurrences(of: ".u32be.bin", with: "-5.u32be.bin"))
        }
        let reopened = try OTLPSpoolQueue(directory: spool.directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        defer { reopened.release() }
        var expected = spool.requests
        expected.remove(at: 1)
        #expect(try Self.drainLikeUploader(reopened) == expected)
        #expect(reopened.damagedRecords == 1)
        // A sealed file's lost item is reported; the open file's count never included it.
        #expect(reopened.takeLostItems() == (sealed ? 1 : 0))
    }

    @Test(
        "a sealed file with a length prefix that does not fit in its middle: the records after it are found again (regression: the rest of the file was deleted as damaged)"
    )
    func sealedDamagedPrefix() throws {
        let spool = try Self.crashedSpool()
        defer { try? FileManager.default.removeItem(atPath: spool.directory + "/..") }
        try Self.overwrite(spool.file, at: spool.offsets[2], with: [0x01, 0, 0, 0x93])
        try FileManager.default.moveItem(
            atPath: spool.file, toPath: spool.file.replacingOccurrences(of: ".u32be.bin", with: "-5.u32be.bin"))
        let reopened = try OTLPSpoolQueue(directory: spool.directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        defer { reopened.release() }
        var expected = spool.requests
        expected.remove(at: 2)
        #expect(try Self.drainLikeUploader(reopened) == expected)
        #expect(reopened.damagedRecords == 1 && reopened.takeLostItems() == 1)
    }

    @Test(
        "a checkpoint into a crash-left file with damage before it stays true: the unacknowledged records after it are sent (regression: the file was rewritten under the checkpoint and one was skipped)"
    )
    func checkpointIntoDamagedFile() throws {
        let spool = try Self.crashedSpool()
        defer { try? FileManager.default.removeItem(atPath: spool.directory + "/..") }
        // Records 0 to 3 acknowledged before the crash; record 1's length prefix damaged since.
        let fileNumber = UInt64(URL(fileURLWithPath: spool.file).lastPathComponent.prefix(20))!
        try Data("\(fileNumber) \(spool.offsets[4]) 4\n".utf8).write(to: URL(fileURLWithPath: "\(spool.directory)/checkpoint"))
        try Self.overwrite(spool.file, at: spool.offsets[1], with: [0xFF])
        let reopened = try OTLPSpoolQueue(directory: spool.directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        defer { reopened.release() }
        #expect(!reopened.isCheckpointDistrusted)
        #expect(try Self.drainLikeUploader(reopened) == [spool.requests[4]])
    }

    @Test(
        "a zero-filled tail (a crash on a file system that extended the file first) is cut as one torn tail, at once (regression: 16,384 empty records, each acknowledged durably)"
    )
    func zeroFilledTail() throws {
        let spool = try Self.crashedSpool()
        defer { try? FileManager.default.removeItem(atPath: spool.directory + "/..") }
        let handle = try #require(FileHandle(forWritingAtPath: spool.file))
        handle.seekToEndOfFile()
        handle.write(Data(count: 65_536))
        try handle.close()
        let reopened = try OTLPSpoolQueue(directory: spool.directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        defer { reopened.release() }
        #expect(reopened.damagedRecords == 1 && reopened.recoveredItems == 5)
        #expect(try Self.drainLikeUploader(reopened) == spool.requests)
    }

    @Test(
        "a record over the queue's record limit (an eighth of maxBytes, at least 32 KiB) is refused before anything is written; one at the limit is taken"
    )
    func recordLimit() throws {
        let directory = Queue.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let queue = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 64 << 10, durability: .flush)
        defer { queue.release() }
        #expect(queue.maxAppendBytes == 32 << 10)
        #expect(throws: OTLPWriteError.self) { try queue.append([UInt8](repeating: 0, count: (32 << 10) + 1), items: 1) }
        #expect(queue.bytes == 0)
        _ = try queue.append([UInt8](repeating: 0, count: (32 << 10) - 4), items: 0)
        #expect(queue.bytes == 32 << 10)
    }

    @Test(
        "a quarantine that is a symbolic link (or a file) is refused: nothing is written through it (regression: quarantined files went where the link pointed)",
        arguments: [true, false])
    func quarantineNotOurs(symlink: Bool) throws {
        let directory = Queue.directory()
        let elsewhere = directory + "/../elsewhere"
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let queue = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 64 << 10, durability: .flush)
        defer { queue.release() }
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        if symlink {
            try FileManager.default.createSymbolicLink(atPath: queue.quarantineDirectory, withDestinationPath: elsewhere)
        } else {
            try Data("not a directory".utf8).write(to: URL(fileURLWithPath: queue.quarantineDirectory))
        }
        #expect(throws: OTLPWriteError.self) { try queue.quarantine(Queue.request(1), items: 1) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }

    @Test(
        "the quarantine: each refused request is one u32be file readable as OTLP, named with its items; over its bound the oldest go first, the newest stays"
    )
    func quarantine() throws {
        let directory = Queue.directory()
        defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
        let queue = try OTLPSpoolQueue(directory: directory, signal: .traces, maxBytes: 64 << 10, durability: .flush)
        defer { queue.release() }
        #expect(queue.quarantineMaxBytes == 1 << 20)
        let small = Queue.request(7, spans: 3)
        #expect(try queue.quarantine(small, items: 3) == 0)
        let names = Queue.files(queue.quarantineDirectory)
        #expect(names == ["00000000000000000001-3.u32be.bin"])
        let reader = try OTLPRecordReader(path: "\(queue.quarantineDirectory)/\(names[0])")
        let record = try #require(try reader.next())
        #expect(record.payload.itemCount == 3)
        #expect(try reader.next()?.index == nil)
        // 300 KiB requests: three fit beside the small one; each later one pushes the oldest out.
        var dropped = 0
        let large = OTLPEncoder().encode(
            OTLPTracesData(
                resource: OTLPHTTPTestData.resource, scope: OTLPHTTPTestData.scope,
                items: [
                    OTLPSpan(
                        traceID: OTLPTraceID(high: 1, low: 1), spanID: OTLPSpanID(1), name: String(repeating: "x", count: 300 << 10),
                        kind: .internal,
                        startTimeUnixNano: 1, endTimeUnixNano: 2)
                ]))
        for _ in 0..<6 { dropped += try queue.quarantine(large, items: 1) }
        let kept = Queue.files(queue.quarantineDirectory)
        let total = kept.reduce(0) {
            $0 + ((try? FileManager.default.attributesOfItem(atPath: "\(queue.quarantineDirectory)/\($1)")[.size] as? Int) ?? 0)
        }
        #expect(total <= queue.quarantineMaxBytes)
        #expect(kept == (5...7).map { "0000000000000000000\($0)-1.u32be.bin" })
        // The small request's 3 items, then the first three large ones'.
        #expect(dropped == 6, "\(kept)")
    }
}
