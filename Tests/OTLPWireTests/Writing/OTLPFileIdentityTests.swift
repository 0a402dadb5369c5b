import Foundation
import Testing
import OTLPWire

#if canImport(Glibc)
import Glibc
#endif

@Suite("OTLPFileIdentity")
struct OTLPFileIdentityTests {
    @Test("one regular file under any name (same path, another spelling, hard link, symbolic link, open descriptor) overlaps; others do not")
    func identities() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-identity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.bin").path
        let other = directory.appendingPathComponent("b.bin").path
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: file))
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: other))
        let hardLink = directory.appendingPathComponent("hard.bin").path
        let symbolicLink = directory.appendingPathComponent("soft.bin").path
        try FileManager.default.linkItem(atPath: file, toPath: hardLink)
        try FileManager.default.createSymbolicLink(atPath: symbolicLink, withDestinationPath: file)

        let identity = try #require(OTLPFileIdentity(path: file))
        #expect(identity.isRegularFile)
        for name in [file, hardLink, symbolicLink, directory.path + "/./a.bin"] {
            #expect(identity.overlaps(OTLPFileIdentity(path: name)), "\(name)")
        }
        #expect(!identity.overlaps(OTLPFileIdentity(path: other)))
        #expect(!identity.overlaps(OTLPFileIdentity(path: directory.appendingPathComponent("missing").path)))
        #expect(OTLPFileIdentity(path: directory.appendingPathComponent("missing").path) == nil)
        let descriptor = open(file, O_RDONLY)
        defer { close(descriptor) }
        #expect(OTLPFileIdentity(descriptor: descriptor) == identity)
        #expect(OTLPFileIdentity(descriptor: -1) == nil)
    }

    @Test("devices and directories are never overlapping outputs: /dev/null may be read and written at once")
    func notRegular() throws {
        let null = try #require(OTLPFileIdentity(path: "/dev/null"))
        #expect(!null.isRegularFile && !null.overlaps(OTLPFileIdentity(path: "/dev/null")))
        #expect(OTLPFileIdentity(path: "/tmp")?.isRegularFile == false)
    }
}
