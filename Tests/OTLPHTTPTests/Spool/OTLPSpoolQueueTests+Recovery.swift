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

    static func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64(offset))
        handle.write(Data(bytes))
        try handle.close()
    }

    @Test("a crash-left open file with a record whose content is damaged in its middle: only that record is lost and counted; every intact record after it is kept (regression: the file was cut there)")
    func damagedContentInside() throws {
        let spool = try Self.crashedSpool()
        defer { try? FileManager.default.removeItem(atPath: spool.directory + "/..") }
        // The body of record 2 (its length prefix intact) made unreadable.
        try Self.overwrite(spool.file, at: spool.offsets[2] + 4, with: [UInt8](repeating: 0xFF, count: spool.requests[2].count))
        let reopened = try OTLPSpoolQueue(directory: spool.directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        defer { reopened.release() }
        #expect(reopened.damagedRecords == 1)
        #expect(reopened.recoveredItems == 4)
        var expected = spool.requests
        expected.remove(at: 2)
        #expect(try Queue.drain(reopened) == expected)
    }

    @Test("a damaged length prefix in the middle of a crash-left open file: the records after it are found again and kept, the damage counted once",
        arguments: [[0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 1], [0x00, 0x10, 0x00, 0x00]])
    func damagedPrefixInside(prefix: [UInt8]) throws {
        let spool = try Self.crashedSpool()
        defer { try? FileManager.default.removeItem(atPath: spool.directory + "/..") }
        try Self.overwrite(spool.file, at: spool.offsets[2], with: prefix)
        let reopened = try OTLPSpoolQueue(directory: spool.directory, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        defer { reopened.release() }
        #expect(reopened.damagedRecords == 1)
        #expect(reopened.recoveredItems == 4)
        var expected = spool.requests
        expected.remove(at: 2)
        #expect(try Queue.drain(reopened) == expected)
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
        #expect(reopened.damagedRecords == 2)
        #expect(reopened.recoveredItems == 4)
        var expected = spool.requests
        expected.remove(at: 1)
        #expect(try Queue.drain(reopened) == expected)
    }

    @Test("a record over the queue's record limit (an eighth of maxBytes, at least 32 KiB) is refused before anything is written; one at the limit is taken")
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

    @Test("the quarantine: each refused request is one u32be file readable as OTLP, named with its items; over its bound the oldest go first, the newest stays")
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
        let large = OTLPEncoder().encode(OTLPTracesData(resource: OTLPHTTPTestData.resource, scope: OTLPHTTPTestData.scope, spans: [
            OTLPSpan(traceID: OTLPTraceID(high: 1, low: 1), spanID: OTLPSpanID(1), name: String(repeating: "x", count: 300 << 10), kind: .internal,
                startTimeUnixNano: 1, endTimeUnixNano: 2)
        ]))
        for _ in 0..<6 { dropped += try queue.quarantine(large, items: 1) }
        let kept = Queue.files(queue.quarantineDirectory)
        let total = kept.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: "\(queue.quarantineDirectory)/\($1)")[.size] as? Int) ?? 0) }
        #expect(total <= queue.quarantineMaxBytes)
        #expect(kept == (5...7).map { "0000000000000000000\($0)-1.u32be.bin" })
        // The small request's 3 items, then the first three large ones'.
        #expect(dropped == 6, "\(kept)")
    }
}
