import Foundation
import Testing
@testable import OTLPWire

#if canImport(Glibc)
import Glibc
import OTLPTestSupport
#endif

@Suite("OTLPFileSink")
struct OTLPFileSinkTests {
    static func directory() throws -> String {
        let path = OTLPTemporaryDirectory.unusedPath("otlpfilesink").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func write(_ sink: OTLPFileSink, _ text: String) throws {
        try Array(text.utf8).withUnsafeBytes { bytes in Result { () throws(OTLPWriteError) in try sink.write(bytes) } }.get()
    }

    static func errorNumber(of body: () throws -> Void) -> Int32? {
        do {
            try body()
            return nil
        } catch let error as OTLPWriteError {
            if error.code == .system, let code = error.errno { return code }
            return -1
        } catch {
            return -2
        }
    }

    @Test("a symbolic link at the path is refused (ELOOP, said so), and the file it points to is untouched", arguments: [false, true])
    func symlinkRefused(append: Bool) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = "\(directory)/victim.txt", link = "\(directory)/out.bin"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        do throws(OTLPWriteError) {
            _ = try OTLPFileSink(path: link, append: append)
            Issue.record("a symbolic link was opened")
        } catch {
            guard error.code == .system, let code = error.errno else { Issue.record("\(error)"); return }
            #expect(code == ELOOP)
            #expect(error.message.contains(link) && error.message.contains("symbolic link"), "\(error.message)")
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    }

    @Test("a dangling symbolic link is refused too: nothing is created where it points")
    func danglingSymlinkRefused() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = "\(directory)/elsewhere.bin", link = "\(directory)/out.bin"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(Self.errorNumber { _ = try OTLPFileSink(path: link) } == ELOOP)
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("followSymlink writes to the link's target, resolved once and reported in symlinkTarget")
    func followSymlink() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = "\(directory)/real.bin", link = "\(directory)/out.bin"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let sink = try OTLPFileSink(path: link, followSymlink: true)
        #expect(sink.symlinkTarget == URL(fileURLWithPath: target).resolvingSymlinksInPath().path)
        // Pointing the link elsewhere afterwards does not move the sink.
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "\(directory)/other.bin")
        try Self.write(sink, "data")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "data")
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/other.bin"))
        #expect(try OTLPFileSink(path: target, followSymlink: true).symlinkTarget == nil)
    }

    @Test("open errors keep errno and name the path")
    func openErrorKeepsErrno() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let missing = "\(directory)/no/such/dir/out.bin"
        do throws(OTLPWriteError) {
            _ = try OTLPFileSink(path: missing)
            Issue.record("opened a path in a missing directory")
        } catch {
            #expect(error == .system("cannot open \(missing)", errno: ENOENT))
            #expect(error.description.contains("No such file or directory"))
        }
        #expect(Self.errorNumber { _ = try OTLPFileSink(path: directory) } == EISDIR)
    }

    @Test("write errors keep errno: ENOSPC on /dev/full")
    func writeErrorKeepsErrno() throws {
        let sink = try OTLPFileSink(path: "/dev/full", append: true)
        #expect(Self.errorNumber { try Self.write(sink, "x") } == ENOSPC)
    }

    @Test("renameWithoutReplacing never replaces an existing file (EEXIST), and renames to a free name")
    func renameWithoutReplacing() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let from = "\(directory)/a", to = "\(directory)/b"
        try Data("a".utf8).write(to: URL(fileURLWithPath: from))
        try Data("b".utf8).write(to: URL(fileURLWithPath: to))
        #expect(Self.errorNumber { try OTLPSystemCall.renameWithoutReplacing(from, to: to) } == EEXIST)
        #expect(try String(contentsOfFile: to, encoding: .utf8) == "b")
        #expect(try String(contentsOfFile: from, encoding: .utf8) == "a")
        try OTLPSystemCall.renameWithoutReplacing(from, to: "\(directory)/c")
        #expect(try String(contentsOfFile: "\(directory)/c", encoding: .utf8) == "a")
        #expect(!FileManager.default.fileExists(atPath: from))
    }
}
