import Foundation
import OTLPTestSupport
import OTLPWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `otlp-dump send --checkpoint`: a count belongs to the file it was made for, not to whatever is at its path.
@Suite("otlp-dump send --checkpoint: one file's count")
struct SendCheckpointTests {
    /// A fresh directory, removed by the caller.
    static func directory() throws -> String {
        let root = OTLPTemporaryDirectory.unusedPath("send-checkpoint-identity").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return root
    }

    /// `count` requests of one span each, their span indices starting at `first`.
    static func requests(_ count: Int, from first: Int) -> [[UInt8]] {
        Array(SendSpoolTests.requests(.traces, count: first + count, perRecord: 1)[first...])
    }

    static func inode(_ path: String) throws -> UInt64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return UInt64(info.st_ino)
    }

    /// `requests` as u32be frames.
    static func framed(_ requests: [[UInt8]]) -> Data {
        var bytes: [UInt8] = []
        for request in requests {
            let length = request.count
            bytes += [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + request
        }
        return Data(bytes)
    }

    /// Overwrites the file at `path` in place (same inode) with `data`: truncated, then written.
    static func rewriteInPlace(_ path: String, with data: Data) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: data)
        try handle.close()
    }

    static func send(_ file: String, checkpoint: String, to collector: OTLPTestCollector) throws -> OTLPDumpRunner.Result {
        try OTLPDumpRunner.run(["send", file, "--endpoint", collector.endpoint, "--checkpoint", checkpoint])
    }

    @Test(
        "a file rotated away and another put at its path: the new one is sent from its start with a warning, every record (regression: its first records were skipped as answered, exit 0)"
    )
    func rotatedByRenaming() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = "\(root)/app.u32be.bin", checkpoint = "\(root)/checkpoint"
        try Self.framed(Self.requests(3, from: 0)).write(to: URL(fileURLWithPath: file))
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let first = try Self.send(file, checkpoint: checkpoint, to: collector)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(SendSpoolTests.requestCount(collector) == 3)
        // Rotation: the old file moved aside (kept, so its inode stays taken), a new one at the path.
        try FileManager.default.moveItem(atPath: file, toPath: file + ".1")
        try Self.framed(Self.requests(5, from: 3)).write(to: URL(fileURLWithPath: file))
        let second = try Self.send(file, checkpoint: checkpoint, to: collector)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("\(file) is not the file the checkpoint was made for (it is device "), "\(second.stderr)")
        #expect(second.stderr.contains("; sending it from the start"), "\(second.stderr)")
        #expect(!second.stdout.contains("skipped"), "\(second.stdout)")
        #expect(SendSpoolTests.requestCount(collector) == 8, "all five records of the new file sent")
        // Its count is now the new file's: a third run skips all of it, without a warning.
        let third = try Self.send(file, checkpoint: checkpoint, to: collector)
        collector.stop()
        #expect(third.status == 0 && third.stderr.isEmpty, "\(third.stderr)")
        #expect(third.stdout.contains("5 records answered in an earlier run skipped"), "\(third.stdout)")
        let expected =
            try OTLPTestCollector.canonicalItems(ofFile: file + ".1", signal: "traces")
            + OTLPTestCollector.canonicalItems(ofFile: file, signal: "traces")
        #expect(collector.items.sorted() == expected.sorted())
    }

    @Test(
        "copytruncate: the same inode truncated and written again with other records is sent from its start with a warning (regression: skipped as answered)"
    )
    func rotatedByCopyTruncate() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = "\(root)/app.u32be.bin", checkpoint = "\(root)/checkpoint"
        try Self.framed(Self.requests(3, from: 0)).write(to: URL(fileURLWithPath: file))
        let inode = try Self.inode(file)
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        #expect(try Self.send(file, checkpoint: checkpoint, to: collector).status == 0)
        // More records than before, so the file is no shorter: only its content tells it apart.
        try Self.rewriteInPlace(file, with: Self.framed(Self.requests(4, from: 10)))
        try #require(try Self.inode(file) == inode, "the rewrite kept the inode")
        let second = try Self.send(file, checkpoint: checkpoint, to: collector)
        collector.stop()
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            second.stderr.contains("\(file) is not the file the checkpoint was made for (same inode, but its first "), "\(second.stderr)")
        #expect(SendSpoolTests.requestCount(collector) == 7, "all four records of the rewritten file sent")
        #expect(Set(collector.items).isSuperset(of: try OTLPTestCollector.canonicalItems(ofFile: file, signal: "traces")))
    }

    @Test(
        "a file cut short in place (its first 4 KiB kept) ends before the checkpoint's count: exit 2 naming the file, the count and the records found; nothing sent, the checkpoint kept (regression: skipped silently, exit 0)"
    )
    func checkpointPastTheEnd() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = "\(root)/app.u32be.bin", checkpoint = "\(root)/checkpoint"
        let requests = Self.requests(90, from: 0)
        let whole = Self.framed(requests), kept = Self.framed(Array(requests[..<60]))
        try #require(kept.count > 4096, "the cut keeps every fingerprinted byte: \(kept.count) bytes")
        try whole.write(to: URL(fileURLWithPath: file))
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        #expect(try Self.send(file, checkpoint: checkpoint, to: collector).status == 0)
        #expect(SendSpoolTests.requestCount(collector) == 90)
        let saved = try String(contentsOfFile: checkpoint, encoding: .utf8)
        try Self.rewriteInPlace(file, with: kept)
        let second = try Self.send(file, checkpoint: checkpoint, to: collector)
        collector.stop()
        #expect(second.status == 2, "\(second.stdout) \(second.stderr)")
        #expect(
            second.stderr.contains("\(file): io_error: --checkpoint \(checkpoint) counts 90 records of it answered, but it ends after 60"),
            "\(second.stderr)")
        #expect(SendSpoolTests.requestCount(collector) == 90, "nothing sent again")
        #expect(try String(contentsOfFile: checkpoint, encoding: .utf8) == saved)
    }

    @Test(
        "the normal resume: a file that grew since is the same file, its answered records skipped and only the new ones sent, no warning; the line records the file's identity"
    )
    func grownFileResumes() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = "\(root)/app.u32be.bin", checkpoint = "\(root)/checkpoint"
        try Self.framed(Self.requests(3, from: 0)).write(to: URL(fileURLWithPath: file))
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        #expect(try Self.send(file, checkpoint: checkpoint, to: collector).status == 0)
        let fields = try String(contentsOfFile: checkpoint, encoding: .utf8).split(separator: "\t")
        let inode = try Self.inode(file)
        #expect(fields.count == 6 && fields[0] == "3" && fields[2] == "\(inode)" && fields[5] == "\(file)\n", "\(fields)")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.seekToEnd()
        try handle.write(contentsOf: Self.framed(Self.requests(2, from: 3)))
        try handle.close()
        let second = try Self.send(file, checkpoint: checkpoint, to: collector)
        collector.stop()
        #expect(second.status == 0 && second.stderr.isEmpty, "\(second.stderr)")
        #expect(
            second.stdout.hasPrefix("accepted 2 records") && second.stdout.contains("3 records answered in an earlier run skipped"),
            "\(second.stdout)")
        #expect(collector.items.sorted() == (try OTLPTestCollector.canonicalItems(ofFile: file, signal: "traces")).sorted())
    }

    @Test(
        "a line without the file's identity (COUNT<TAB>PATH, an earlier otlp-dump's) is not trusted: the file is sent from its start with a warning, and the line gets the identity"
    )
    func lineWithoutIdentity() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = "\(root)/app.u32be.bin", checkpoint = "\(root)/checkpoint"
        try Self.framed(Self.requests(3, from: 0)).write(to: URL(fileURLWithPath: file))
        try Data("2\t\(file)\n".utf8).write(to: URL(fileURLWithPath: checkpoint))
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let result = try Self.send(file, checkpoint: checkpoint, to: collector)
        collector.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("is not the file the checkpoint was made for (its line has no file identity"), "\(result.stderr)")
        #expect(SendSpoolTests.requestCount(collector) == 3)
        #expect(try String(contentsOfFile: checkpoint, encoding: .utf8).split(separator: "\t").count == 6)
    }

    @Test(
        "a FIFO at the checkpoint's temporary path (CP.tmp) does not hang send (regression: it waited for a reader forever): it is removed and the run completes"
    )
    func fifoAtCheckpointTemporaryPath() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = "\(root)/app.u32be.bin", checkpoint = "\(root)/checkpoint"
        try Self.framed(Self.requests(2, from: 0)).write(to: URL(fileURLWithPath: file))
        let trap = try OTLPFIFOTrap(path: checkpoint + ".tmp")
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let endpoint = collector.endpoint
        let outcome = trap.run { try? OTLPDumpRunner.run(["send", file, "--endpoint", endpoint, "--checkpoint", checkpoint]) }
        collector.stop()
        let finished = try #require(outcome, "send was still blocked after the safety bound")
        let run = try #require(finished, "otlp-dump could not be run")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: checkpoint, encoding: .utf8).hasPrefix("2\t"))
        #expect(!FileManager.default.fileExists(atPath: checkpoint + ".tmp"))
    }
}
