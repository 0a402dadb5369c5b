#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a writer puts its bytes.
public protocol OTLPByteSink: AnyObject {
    /// Writes all of `bytes`, or throws.
    func write(_ bytes: UnsafeRawBufferPointer) throws(OTLPWriteError)
    /// Makes written bytes durable (`fsync` for files); a no-op where that means nothing.
    func sync() throws(OTLPWriteError)
}

/// Writes to a file descriptor: a file (created or appended), standard output or standard error.
public final class OTLPFileSink: OTLPByteSink {
    private let descriptor: Int32
    private let ownsDescriptor: Bool

    /// Opens `path` for writing (`-` is standard output); `append` keeps existing content.
    public init(path: String, append: Bool = false) throws(OTLPWriteError) {
        if path == "-" {
            descriptor = 1
            ownsDescriptor = false
            return
        }
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC)
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
        descriptor = fd
        ownsDescriptor = true
    }

    /// Writes to an open descriptor, which this sink does not close.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
        ownsDescriptor = false
    }

    /// Standard output.
    public static var standardOutput: OTLPFileSink { OTLPFileSink(descriptor: 1) }
    /// Standard error.
    public static var standardError: OTLPFileSink { OTLPFileSink(descriptor: 2) }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(OTLPWriteError) {
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw .io(String(cString: strerror(errno)))
            }
            offset += written
        }
    }

    public func sync() throws(OTLPWriteError) {
        if fsync(descriptor) != 0 && errno != EINVAL && errno != EROFS {
            throw .io("fsync: \(String(cString: strerror(errno)))")
        }
    }
}

/// Collects written bytes in memory (tests, in-process consumers).
public final class OTLPMemorySink: OTLPByteSink {
    public private(set) var bytes: [UInt8] = []
    /// Number of `write` calls, so tests can check that each record is written in one call.
    public private(set) var writeCount = 0

    public init() {}

    public func write(_ bytes: UnsafeRawBufferPointer) throws(OTLPWriteError) {
        self.bytes.append(contentsOf: bytes)
        writeCount += 1
    }

    public func sync() throws(OTLPWriteError) {}
}

@inline(__always)
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, buffer, count)
    #else
    Darwin.write(fd, buffer, count)
    #endif
}
