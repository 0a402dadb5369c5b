import Foundation
import OTLPTestSupport
import Testing
@testable import OTLPWire

#if canImport(Glibc)
import Glibc
#endif

/// `OTLPAtomicFile.replace`: whatever is found at the temporary path is never opened as it is.
@Suite("OTLPAtomicFile")
struct OTLPAtomicFileTests {
    static func directory() throws -> String {
        let path = OTLPTemporaryDirectory.unusedPath("otlp-atomic").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func replace(_ path: String, with text: String) -> Result<Void, OTLPWriteError> {
        Result { () throws(OTLPWriteError) in try OTLPAtomicFile.replace(path, with: Array(text.utf8)) }
    }

    static func contents(_ path: String) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("without syncing (a journal's compaction under flush durability): the same replacement, no temporary file left")
    func withoutSyncing() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/journal"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        try OTLPAtomicFile.replace(path, with: Array("new\n".utf8), syncing: false)
        #expect(Self.contents(path) == "new\n")
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
    }

    @Test("a rename that fails (PATH is a folder) leaves no PATH.tmp behind and PATH as it was (regression: the temporary stayed)")
    func failedRename() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/journal"
        try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
        guard case .failure(let error) = Self.replace(path, with: "new\n") else {
            Issue.record("the rename over a folder succeeded")
            return
        }
        #expect(error.message.contains("cannot rename"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
        #expect(FileManager.default.fileExists(atPath: path + "/inside"))
    }

    @Test("a FIFO at PATH.tmp does not hold replace() (regression: it waited for a reader forever): it is removed, the file written")
    func fifoAtTemporaryPath() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/checkpoint"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        let trap = try OTLPFIFOTrap(path: path + ".tmp")
        let outcome = trap.run { Self.replace(path, with: "new\n") }
        let result = try #require(outcome, "replace() was still blocked after the safety bound")
        #expect(throws: Never.self) { try result.get() }
        #expect(Self.contents(path) == "new\n")
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
    }

    @Test("a symbolic link at PATH.tmp: the link is removed, the file it points to is untouched")
    func symlinkAtTemporaryPath() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/checkpoint", victim = "\(directory)/victim"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: path + ".tmp", withDestinationPath: victim)
        #expect(throws: Never.self) { try Self.replace(path, with: "new\n").get() }
        #expect(Self.contents(path) == "new\n")
        #expect(Self.contents(victim) == "precious\n")
        #expect((try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular)
    }

    @Test("a stale regular file at PATH.tmp (a crash before the rename) is replaced, not appended to")
    func staleTemporaryFile() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/checkpoint"
        try Data("stale and longer than the new content\n".utf8).write(to: URL(fileURLWithPath: path + ".tmp"))
        #expect(throws: Never.self) { try Self.replace(path, with: "new\n").get() }
        #expect(Self.contents(path) == "new\n")
    }

    @Test("a directory at PATH.tmp is not removed: replace() fails with EISDIR, saying so; the file keeps its content")
    func directoryAtTemporaryPath() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/checkpoint"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.createDirectory(atPath: path + ".tmp", withIntermediateDirectories: false)
        guard case .failure(let error) = Self.replace(path, with: "new\n") else {
            Issue.record("a directory at the temporary path was written through")
            return
        }
        #expect(error.code == .system && error.errno == EISDIR)
        #expect(error.message.contains("\(path).tmp") && error.message.contains("directory"), "\(error)")
        #expect(Self.contents(path) == "old\n")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: path + ".tmp", isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test(
        "openRegularFile never waits and names what it found: a FIFO (EINVAL; ENXIO opened to write), a directory (EISDIR), a link (ELOOP)")
    func openRegularFileRefusals() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = try OTLPFIFOTrap(path: "\(directory)/fifo")
        try FileManager.default.createSymbolicLink(atPath: "\(directory)/link", withDestinationPath: fifo.path)
        let cases: [(path: String, flags: Int32, errno: Int32, type: String)] = [
            (fifo.path, O_RDWR | O_CREAT, EINVAL, "a FIFO"),
            (fifo.path, O_RDONLY, EINVAL, "a FIFO"),
            (fifo.path, O_WRONLY, ENXIO, "a FIFO"),
            (directory, O_RDONLY, EISDIR, "a directory"),
            ("\(directory)/link", O_RDONLY, ELOOP, "a symbolic link"),
        ]
        for (path, flags, expected, type) in cases {
            let outcome = fifo.run {
                Result { () throws(OTLPWriteError) in try OTLPSystemCall.openRegularFile(path, flags: flags, "cannot open \(path)") }
            }
            let result = try #require(outcome, "blocked opening \(path)")
            guard case .failure(let error) = result else {
                if case .success(let opened) = result { close(opened.descriptor) }
                Issue.record("\(path) opened with flags \(flags)")
                continue
            }
            #expect(error.errno == expected && error.message.contains("is \(type), not a regular file"), "\(path) \(flags): \(error)")
        }
    }
}
