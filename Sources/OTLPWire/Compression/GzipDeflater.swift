#if canImport(CLibdeflate)
/// The gzip compressor of this platform: libdeflate where the package links it (Linux).
typealias PlatformGzipCompressor = LibdeflateGzipCompressor
#else
/// The gzip compressor of this platform: zlib where libdeflate is not linked (Apple platforms).
typealias PlatformGzipCompressor = ZlibGzipCompressor
#endif

/// Compresses into gzip members (RFC 1952). Each ``finishMember(into:)`` closes a complete member, so a file
/// cut short after it still decompresses up to that point.
///
/// A member's input is kept until ``finishMember(into:)`` and compressed there in one call (libdeflate
/// compresses whole buffers only): ``compress(_:into:)`` appends nothing to its output until a member holds
/// ``memberInputLimit`` bytes, where it closes that member itself, so the input kept never grows past it.
final class GzipDeflater {
    /// The most input one member holds before ``compress(_:into:)`` closes it (16 MiB): bounds the memory a
    /// writer that never flushes keeps (a whole file converted), at the cost of a few more member headers.
    static let defaultMemberInputLimit = 16 << 20

    private let compressor: any GzipMemberCompressor
    private let memberInputLimit: Int
    private var pending: [UInt8] = []
    private var active = false

    /// - Parameter level: compression level, 0...9 (default 6), with this platform's compressor.
    convenience init(level: Int32 = 6) {
        self.init(compressor: PlatformGzipCompressor(level: level))
    }

    /// A deflater over `compressor` (tests run both compressors on Linux), closing members at `memberInputLimit`.
    init(compressor: any GzipMemberCompressor, memberInputLimit: Int = GzipDeflater.defaultMemberInputLimit) {
        self.compressor = compressor
        self.memberInputLimit = max(1, memberInputLimit)
    }

    /// Adds `bytes` to the current member (starting one if needed); appends to `out` only the members it closes
    /// on reaching ``memberInputLimit``.
    func compress(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) throws(OTLPWriteError) {
        try compressor.prepare()
        active = true
        var start = 0
        while bytes.count - start >= memberInputLimit - pending.count {
            let end = start + (memberInputLimit - pending.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            start = end
            try finishMember(into: &out)
            active = true
        }
        pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start...]))
        if start > 0 && pending.isEmpty { active = false }
    }

    /// Ends the current member (if one was started): appends it, complete with its trailer, to `out`.
    func finishMember(into out: inout [UInt8]) throws(OTLPWriteError) {
        guard active else { return }
        active = false
        defer { pending.removeAll(keepingCapacity: true) }
        try pending.withUnsafeBytes { input in
            Result { () throws(OTLPWriteError) in try compressor.compressMember(input, into: &out) }
        }.get()
    }

    /// Appends `bytes` as one complete member of its own (whatever its size) to `out`, closing the current one
    /// first if one was started.
    func compressMember(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) throws(OTLPWriteError) {
        try finishMember(into: &out)
        try compressor.compressMember(bytes, into: &out)
    }
}
