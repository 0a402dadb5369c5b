import Foundation
import OTLPTestSupport
import OTLPWire
import Testing
@testable import OTLPTelemetry

#if canImport(Glibc)
import Glibc
#endif

/// A directory's lock, in a file inside it: every path that reaches the directory meets the one lock.
@Suite("OTLPOutputLock(directory:)")
struct OTLPOutputLockDirectoryTests {
    static func lockError(_ directory: String) -> OTLPWriteError? {
        do throws(OTLPWriteError) {
            _ = try OTLPOutputLock(directory: directory)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "a directory reached through a symbolic link meets the lock taken through its real path (regression: a lock beside each path, so two holders), and the other way round; released, it is free and its file gone"
    )
    func symlinkedPathMeetsTheSameLock() throws {
        let root = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let real = "\(root)/b/traces", link = "\(root)/a-traces"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        for (first, second) in [(real, link), (link + "/", real)] {
            var held: OTLPOutputLock? = try OTLPOutputLock(directory: first)
            #expect(held?.lockPath.hasSuffix("/.lock") == true && FileManager.default.fileExists(atPath: "\(real)/.lock"))
            let refused = Self.lockError(second)
            #expect(refused?.code == .system && refused?.errno == EWOULDBLOCK, "\(second): \(String(describing: refused))")
            let message = refused?.message ?? ""
            let named = second.hasSuffix("/") ? String(second.dropLast()) : second
            #expect(message.contains("\(named) is being written by another sink in this process (\(getpid()))"), "\(message)")
            held = nil
            #expect(!FileManager.default.fileExists(atPath: "\(real)/.lock"))
            #expect(Self.lockError(second) == nil)
        }
    }

    @Test("a FIFO at DIR/.lock is refused, naming it (EINVAL), never waited on; a symbolic link there is not followed (ELOOP)")
    func lockFileThatIsNotAFile() throws {
        let root = try OTLPTemporaryDirectory.make("otlptelemetry").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fifoDirectory = "\(root)/fifo", linkDirectory = "\(root)/link"
        for directory in [fifoDirectory, linkDirectory] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let trap = try OTLPFIFOTrap(path: "\(fifoDirectory)/.lock")
        let outcome = trap.run { Self.lockError(fifoDirectory) }
        let fifoError = try #require(outcome, "still blocked after the safety bound")
        #expect(
            fifoError?.errno == EINVAL && fifoError?.message.contains("is a FIFO, not a regular file") == true,
            "\(String(describing: fifoError))")
        try FileManager.default.createSymbolicLink(atPath: "\(linkDirectory)/.lock", withDestinationPath: "\(root)/elsewhere")
        let linkError = Self.lockError(linkDirectory)
        #expect(linkError?.errno == ELOOP, "\(String(describing: linkError))")
        #expect(!FileManager.default.fileExists(atPath: "\(root)/elsewhere"), "the link was followed")
    }
}
