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
///
/// A write that fails part-way on a regular file (disk full, quota) is rolled back: the file is truncated
/// to its length before the write, so it never ends in a torn record. Creating a sink ignores `SIGPIPE`
/// for the process (as swift-nio does), so a reader that closes its pipe makes writes fail with `EPIPE`
/// instead of killing the process.
public final class OTLPFileSink: OTLPByteSink {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let isRegularFile: Bool

    /// Opens `path` for writing (`-` is standard output); `append` keeps existing content.
    public init(path: String, append: Bool = false) throws(OTLPWriteError) {
        Self.ignoreSIGPIPE()
        if path == "-" {
            descriptor = 1
            ownsDescriptor = false
            isRegularFile = Self.isRegularFile(1)
            return
        }
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC)
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
        descriptor = fd
        ownsDescriptor = true
        isRegularFile = Self.isRegularFile(fd)
    }

    /// Writes to an open descriptor, which this sink does not close.
    public init(descriptor: Int32) {
        Self.ignoreSIGPIPE()
        self.descriptor = descriptor
        ownsDescriptor = false
        isRegularFile = Self.isRegularFile(descriptor)
    }

    private static func isRegularFile(_ fd: Int32) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    private static func ignoreSIGPIPE() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    /// Standard output.
    public static var standardOutput: OTLPFileSink { OTLPFileSink(descriptor: 1) }
    /// Standard error.
    public static var standardError: OTLPFileSink { OTLPFileSink(descriptor: 2) }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(OTLPWriteError) {
        let start = isRegularFile ? lseek(descriptor, 0, SEEK_END) : -1
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                let message = String(cString: strerror(errno))
                if offset > 0 && start >= 0 { _ = ftruncate(descriptor, start) }  // no torn record
                throw .io(message)
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

    /// Forgets what was written (keeps the capacity).
    public func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        writeCount = 0
    }
}

@inline(__always)
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, buffer, count)
    #else
    Darwin.write(fd, buffer, count)
    #endif
}
