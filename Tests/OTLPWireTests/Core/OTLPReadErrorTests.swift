import Foundation
import Testing
@testable import OTLPWire

#if canImport(Glibc)
import Glibc
import OTLPTestSupport
#endif

@Suite("OTLPReadError")
struct OTLPReadErrorTests {
    /// Every code with the machine-readable name otlp-dump prints and the manifests use: these must never change.
    static let names: [(OTLPReadError.Code, String)] = [
        (.truncatedLengthPrefix, "truncated_length_prefix"), (.truncatedRecord, "truncated_record"),
        (.recordTooLarge, "record_too_large"), (.badLengthPrefix, "bad_length_prefix"),
        (.malformedProtobuf, "malformed_protobuf"), (.nestingTooDeep, "nesting_too_deep"),
        (.tooManyAttributes, "too_many_attributes"), (.wrongKind, "wrong_kind"), (.ambiguousSignal, "ambiguous_signal"),
        (.unsupportedSignal, "unsupported_signal"), (.unsupportedCompression, "unsupported_compression"),
        (.gzipBadHeader, "gzip_bad_header"), (.gzipTruncated, "gzip_truncated"), (.gzipCRCMismatch, "gzip_crc_mismatch"),
        (.gzipSizeMismatch, "gzip_size_mismatch"), (.gzipCorrupt, "gzip_corrupt"), (.gzipTooLarge, "gzip_too_large"),
        (.zstdTruncated, "zstd_truncated"), (.zstdCorrupt, "zstd_corrupt"), (.zstdTooLarge, "zstd_too_large"),
        (.malformedJSON, "malformed_json"), (.lineTooLong, "line_too_long"), (.io, "io_error"),
        (.invalidOptions, "invalid_options"),
    ]

    @Test("each code prints its machine-readable name, and codes are distinct")
    func codeNames() {
        for (code, name) in Self.names {
            #expect(code.description == name)
            #expect("\(code)" == name)
        }
        #expect(Set(Self.names.map(\.0)).count == Self.names.count)
        #expect(Set(Self.names.map(\.1)).count == Self.names.count)
    }

    @Test("the description is location, code name and message, as before")
    func description() {
        #expect(
            OTLPReadError(.truncatedRecord, "the input ends inside a record", recordIndex: 3, byteOffset: 120).description
                == "record 3, byte offset 120: truncated_record: the input ends inside a record")
        #expect(
            OTLPReadError(.gzipCRCMismatch, "bad", byteOffset: 9, offsetIn: .file).description
                == "byte offset 9 (file): gzip_crc_mismatch: bad")
        #expect(OTLPReadError(.invalidOptions, "x").description == "invalid_options: x")
        let withCause = OTLPReadError(.io, "read failed: Input/output error", cause: SystemCallError(errno: EIO))
        #expect(withCause.description == "io_error: read failed: Input/output error")
    }

    @Test("equality compares code, location, message and cause")
    func equality() {
        let error = OTLPReadError(.io, "read failed", cause: SystemCallError(errno: EIO))
        #expect(error == OTLPReadError(.io, "read failed", cause: SystemCallError(errno: EIO)))
        #expect(error != OTLPReadError(.io, "read failed", cause: SystemCallError(errno: EBADF)))
        #expect(error != OTLPReadError(.io, "read failed"))
        #expect(error != OTLPReadError(.malformedJSON, "read failed", cause: SystemCallError(errno: EIO)))
        #expect(error != OTLPReadError(.io, "read failed", recordIndex: 0, cause: SystemCallError(errno: EIO)))
        struct Opaque: Error, CustomStringConvertible { var description: String }
        #expect(OTLPReadError(.io, "x", cause: Opaque(description: "a")) == OTLPReadError(.io, "x", cause: Opaque(description: "a")))
        #expect(OTLPReadError(.io, "x", cause: Opaque(description: "a")) != OTLPReadError(.io, "x", cause: Opaque(description: "b")))
    }

    @Test("a file that cannot be opened is io_error with the errno kept as the cause")
    func openFailureKeepsErrno() {
        let missing = OTLPTemporaryDirectory.unusedPath("no-such", suffix: "/in.bin").path
        do throws(OTLPReadError) {
            _ = try OTLPFileSource(path: missing)
            Issue.record("opened a missing file")
        } catch {
            #expect(error.code == .io)
            #expect(error.message == "cannot open \(missing): No such file or directory")
            #expect((error.cause as? SystemCallError)?.errno == ENOENT)
        }
    }

    @Test("a read that fails is io_error with the errno kept as the cause")
    func readFailureKeepsErrno() throws {
        let directory = open(FileManager.default.temporaryDirectory.path, O_RDONLY | O_DIRECTORY)
        try #require(directory >= 0)
        defer { close(directory) }
        let source = OTLPFileSource(descriptor: directory)
        var buffer = [UInt8](repeating: 0, count: 16)
        let result = buffer.withUnsafeMutableBytes { bytes in Result { () throws(OTLPReadError) in try source.read(into: bytes) } }
        guard case .failure(let error) = result else {
            Issue.record("read a directory")
            return
        }
        do {
            #expect(error.code == .io)
            #expect(error.message == "read failed: Is a directory")
            #expect((error.cause as? SystemCallError)?.errno == EISDIR)
        }
    }
}
