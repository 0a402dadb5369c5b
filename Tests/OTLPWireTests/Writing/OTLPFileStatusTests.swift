import Foundation
import Testing
import OTLPWire

#if canImport(Glibc)
import Glibc
import OTLPTestSupport
#endif

@Suite("OTLPFileStatus")
struct OTLPFileStatusTests {
    @Test(
        "one regular file under any name (same path, another spelling, hard link, symbolic link, open descriptor) overlaps; others do not")
    func identities() throws {
        let directory = try OTLPTemporaryDirectory.make("otlp-identity")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.bin").path
        let other = directory.appendingPathComponent("b.bin").path
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: file))
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: other))
        let hardLink = directory.appendingPathComponent("hard.bin").path
        let symbolicLink = directory.appendingPathComponent("soft.bin").path
        try FileManager.default.linkItem(atPath: file, toPath: hardLink)
        try FileManager.default.createSymbolicLink(atPath: symbolicLink, withDestinationPath: file)

        let identity = try #require(OTLPFileStatus.reached(by: file))
        #expect(identity.isRegularFile)
        for name in [file, hardLink, symbolicLink, directory.path + "/./a.bin"] {
            #expect(identity.overlaps(OTLPFileStatus.reached(by: name)), "\(name)")
        }
        #expect(!identity.overlaps(OTLPFileStatus.reached(by: other)))
        #expect(!identity.overlaps(OTLPFileStatus.reached(by: directory.appendingPathComponent("missing").path)))
        #expect(OTLPFileStatus.reached(by: directory.appendingPathComponent("missing").path) == nil)
        let descriptor = open(file, O_RDONLY)
        defer { close(descriptor) }
        #expect(OTLPFileStatus.reached(byDescriptor: descriptor) == identity)
        #expect(OTLPFileStatus.reached(byDescriptor: -1) == nil)
    }

    @Test("devices and directories are never overlapping outputs: /dev/null may be read and written at once")
    func notRegular() throws {
        let null = try #require(OTLPFileStatus.reached(by: "/dev/null"))
        #expect(!null.isRegularFile && !null.overlaps(OTLPFileStatus.reached(by: "/dev/null")))
        #expect(OTLPFileStatus.reached(by: "/tmp")?.isRegularFile == false)
    }
}
