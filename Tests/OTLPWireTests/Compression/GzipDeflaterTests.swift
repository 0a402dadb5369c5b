import Foundation
import OTLPTestSupport
import Testing
@testable import OTLPWire

/// The deflater writes standard gzip members (RFC 1952) with this platform's compressor (libdeflate on Linux)
/// and with zlib's (Apple platforms'), both run here: our zlib reader and Python's gzip module read them back.
@Suite("GzipDeflater")
struct GzipDeflaterTests {
    /// The compressors under test, by name: this platform's and zlib's (the same type off Linux).
    static let compressors: [(name: String, make: @Sendable (Int32) -> any GzipMemberCompressor)] = [
        ("platform", { PlatformGzipCompressor(level: $0) }), ("zlib", { ZlibGzipCompressor(level: $0) }),
    ]

    /// `count` bytes that compress well (a repeating pattern with a third of them varying).
    static func compressible(_ count: Int) -> [UInt8] { GzipInflaterFaultTests.content(count) }

    /// `count` bytes that do not compress (a 64-bit xorshift sequence).
    static func incompressible(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// The inputs every level is checked with: empty, one byte, a few KB, multi-MiB, incompressible.
    static let inputs: [(name: String, bytes: [UInt8])] = [
        ("empty", []), ("one byte", [0x2A]), ("5 KB", compressible(5_000)), ("3 MiB", compressible(3 << 20)),
        ("1 MiB random", incompressible(1 << 20)),
    ]

    static func member(_ bytes: [UInt8], _ deflater: GzipDeflater) throws -> [UInt8] {
        var out: [UInt8] = []
        try bytes.withUnsafeBytes { try deflater.compress($0, into: &out) }
        try deflater.finishMember(into: &out)
        return out
    }

    /// Everything our reader inflates from `bytes`, and how many members it started.
    static func inflate(_ bytes: [UInt8]) throws -> (out: [UInt8], members: Int) {
        let inflater = GzipInflater(source: OTLPMemorySource(bytes), chunkSize: 64 * 1024, maxDecompressedBytes: 1 << 30)
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = try buffer.withUnsafeMutableBytes { raw in
                try Result { () throws(OTLPReadError) in try inflater.read(into: raw) }.get()
            }
            if count == 0 { return (out, inflater.membersStarted) }
            out += buffer[0..<count]
        }
    }

    /// Whether `a` and `b` hold the same bytes (memcmp: element-wise comparison of MiBs is slow in debug builds).
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count
            && a.withUnsafeBytes { a in b.withUnsafeBytes { b in a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 } }
    }

    @Test("members at every level 0...9 read back byte for byte: empty, one byte, multi-MiB, incompressible")
    func everyLevelRoundTrips() throws {
        for compressor in Self.compressors {
            for level: Int32 in 0...9 {
                // One deflater per level, reused for every input: its compressor is made once.
                let deflater = GzipDeflater(compressor: compressor.make(level))
                for input in Self.inputs {
                    let member = try Self.member(input.bytes, deflater)
                    #expect(OTLPGzip.isCompressed(member), "\(compressor.name) level \(level) \(input.name)")
                    let read = try Self.inflate(member)
                    #expect(Self.same(read.out, input.bytes) && read.members == 1, "\(compressor.name) level \(level) \(input.name)")
                    // The one-shot path (HTTP bodies, spool records) writes the same member.
                    var single: [UInt8] = []
                    try input.bytes.withUnsafeBytes { try deflater.compressMember($0, into: &single) }
                    #expect(Self.same(single, member), "\(compressor.name) level \(level) \(input.name): one-shot member differs")
                    #expect(Self.same(try OTLPGzip.decompress(single, maxBytes: 1 << 30), input.bytes))
                }
            }
        }
    }

    @Test("the level reaches the compressor: 0 stores, 1 and 9 compress, 9 smaller than 1")
    func levelReachesCompressor() throws {
        // Text like a record's keys and values, with numbers that vary: levels 1 and 9 find different matches.
        let input = Array((0..<20_000).map { "key.\($0 % 97)=value-\($0 * 7919 % 10_007);" }.joined().utf8)
        for compressor in Self.compressors {
            let sizes = try [0, 1, 9].map { (level: Int32) in try Self.member(input, GzipDeflater(compressor: compressor.make(level))).count
            }
            // Stored blocks: the input, plus block headers and the gzip header and trailer.
            #expect(sizes[0] > input.count && sizes[0] < input.count + 1_000, "\(compressor.name): \(sizes)")
            #expect(sizes[1] < input.count / 3 && sizes[2] < sizes[1], "\(compressor.name): \(sizes)")
        }
        // Through the record writer too (regression guard: its compressionLevel must reach the deflater).
        func written(level: Int32) throws -> Int {
            let sink = OTLPMemorySink()
            let writer = OTLPRecordWriter(sink: sink, framing: .unframed, gzip: true, compressionLevel: level)
            try input.withUnsafeBytes { try writer.writeEncoded($0) }
            try writer.close()
            #expect(try Self.inflate(sink.bytes).out == input)
            return sink.bytes.count
        }
        let stored = try written(level: 0), fast = try written(level: 1), small = try written(level: 9)
        #expect(stored > input.count && fast < input.count / 3 && small < fast, "\([stored, fast, small])")
    }

    @Test("several members in one stream read back as their concatenation; an unused deflater writes none")
    func severalMembers() throws {
        for compressor in Self.compressors {
            let deflater = GzipDeflater(compressor: compressor.make(1))
            var out: [UInt8] = []
            try deflater.finishMember(into: &out)
            #expect(out.isEmpty, "\(compressor.name): a member was written with no input given")
            var expected: [UInt8] = []
            for input in Self.inputs {
                // Each member's input in three pieces (some empty), as a writer gives its records.
                let cuts = [0, input.bytes.count / 3, input.bytes.count * 2 / 3, input.bytes.count]
                for piece in 0..<3 {
                    try input.bytes[cuts[piece]..<cuts[piece + 1]].withUnsafeBytes { try deflater.compress($0, into: &out) }
                }
                try deflater.finishMember(into: &out)
                expected += input.bytes
            }
            let read = try Self.inflate(out)
            #expect(Self.same(read.out, expected) && read.members == Self.inputs.count, "\(compressor.name): \(read.members) members")
        }
    }

    @Test("a member closes itself at the input limit, so the input kept never grows past it; none is left empty")
    func memberInputLimit() throws {
        for compressor in Self.compressors {
            let deflater = GzipDeflater(compressor: compressor.make(6), memberInputLimit: 1_000)
            let input = Self.compressible(2_500)
            var out: [UInt8] = []
            try input[0..<700].withUnsafeBytes { try deflater.compress($0, into: &out) }
            #expect(out.isEmpty, "\(compressor.name): output before the limit")
            try input[700...].withUnsafeBytes { try deflater.compress($0, into: &out) }
            let closed = try Self.inflate(out)
            #expect(closed.out == Array(input[0..<2_000]) && closed.members == 2, "\(compressor.name): two members closed at the limit")
            try deflater.finishMember(into: &out)
            let all = try Self.inflate(out)
            #expect(all.out == input && all.members == 3, "\(compressor.name): the rest in a third")
            // Exactly at the limit: the member closes, and the next flush adds no empty one.
            var exact: [UInt8] = []
            try input[0..<1_000].withUnsafeBytes { try deflater.compress($0, into: &exact) }
            try deflater.finishMember(into: &exact)
            let single = try Self.inflate(exact)
            #expect(single.out == Array(input[0..<1_000]) && single.members == 1, "\(compressor.name): exactly at the limit")
        }
    }

    @Test("Python's gzip module and zlib read the members, one by one and as one multi-member file")
    func pythonReadsMembers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-deflater-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for compressor in Self.compressors {
            for level: Int32 in [0, 1, 6, 9] {
                let deflater = GzipDeflater(compressor: compressor.make(level))
                var file: [UInt8] = []
                var expected: [UInt8] = []
                for input in Self.inputs {
                    file += try Self.member(input.bytes, deflater)
                    expected += input.bytes
                }
                let gz = directory.appendingPathComponent("members.gz"), raw = directory.appendingPathComponent("members.raw")
                try Data(file).write(to: gz)
                // gzip.open reads every member; zlib (wbits 31: a gzip wrapper) reads them one at a time.
                let script = """
                    import gzip, sys, zlib
                    data = open(sys.argv[1], "rb").read()
                    whole = gzip.open(sys.argv[1]).read()
                    parts, rest = [], data
                    while rest:
                        d = zlib.decompressobj(31)
                        parts.append(d.decompress(rest))
                        assert d.eof, "member cut short"
                        rest = d.unused_data
                    assert b"".join(parts) == whole
                    open(sys.argv[2], "wb").write(whole)
                    print(len(parts))
                    """
                let result = try OTLPProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, gz.path, raw.path])
                #expect(result.status == 0, "\(compressor.name) level \(level): \(result.errors)")
                #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\(Self.inputs.count)")
                #expect(try Data(contentsOf: raw) == Data(expected), "\(compressor.name) level \(level)")
            }
        }
    }
}
