import Foundation
import OTLPTelemetry
import OTLPWire
import Testing

@testable import OTLPHTTP

/// The spool's lock is taken on the directory itself, whatever path reaches it.
@Suite("OTLPSpoolQueue lock")
struct OTLPSpoolQueueLockTests {
    @Test(
        "two queues on one directory, one through its real path and one through a symbolic link: the second fails (EWOULDBLOCK) either way round (regression: each path had its own lock beside it, and both worked one queue)"
    )
    func symlinkedDirectory() throws {
        let real = OTLPSpoolQueueTests.directory()
        let root = (real as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        let elsewhere = "\(root)/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let link = "\(elsewhere)/traces"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        for (first, second) in [(real, link), (link, real)] {
            let holder = try OTLPSpoolQueue(directory: first, signal: .traces, maxBytes: 16 << 20, durability: .flush)
            #expect {
                _ = try OTLPSpoolQueue(directory: second, signal: .traces, maxBytes: 16 << 20, durability: .flush)
            } throws: { error in
                guard let error = error as? OTLPWriteError else { return false }
                return error.errno == EWOULDBLOCK && error.description.contains("\(second) is being written by")
            }
            // The lock file inside the directory is not taken for a spool file.
            _ = try holder.append(OTLPSpoolQueueTests.request(0), items: 1)
            #expect(try OTLPSpoolQueueTests.drain(holder) == [OTLPSpoolQueueTests.request(0)])
            holder.release()
        }
        let reopened = try OTLPSpoolQueue(directory: link, signal: .traces, maxBytes: 16 << 20, durability: .flush)
        #expect(reopened.recoveredItems == 0 && reopened.damagedRecords == 0)
        reopened.release()
    }
}
