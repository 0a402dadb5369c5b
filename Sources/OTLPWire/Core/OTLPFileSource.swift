#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file descriptor (a file, a pipe, standard input) with `read(2)`, in the caller's chunk sizes.
package final class OTLPFileSource: OTLPByteSource {
    /// The descriptor read: for `fstat` and `pread` beside the reads (which they do not move), never for
    /// reading or closing.
    package let descriptor: Int32
    private let ownsDescriptor: Bool

    /// Opens `path` for reading; `-` means standard input.
    package init(path: String) throws(OTLPReadError) {
        if path == "-" {
            descriptor = 0
            ownsDescriptor = false
            return
        }
        let fd: Int32
        switch OTLPSystemCall.retrying({ open(path, O_RDONLY | O_CLOEXEC) }) {
        case .success(let opened): fd = opened
        case .failure(let cause): throw OTLPReadError(.io, "cannot open \(path): \(cause)", cause: cause)
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw OTLPReadError(.io, "\(path) is a directory")
        }
        descriptor = fd
        ownsDescriptor = true
    }

    /// Opens `path` (links followed) only if it is a regular file; anything else (a FIFO, socket, device,
    /// directory) is refused with an ``OTLPReadError/Code/io`` error naming what it is, without blocking: the
    /// file is opened non-blocking (opening a FIFO with no writer would wait for one) and checked before it is
    /// read. For files found by walking a directory, which the user did not name one by one.
    package init(regularFile path: String) throws(OTLPReadError) {
        let fd: Int32
        switch OTLPSystemCall.retrying({ open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }) {
        case .success(let opened): fd = opened
        case .failure(let cause): throw OTLPReadError(.io, "cannot open \(path): \(cause)", cause: cause)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            let type = OTLPFileStatus.describe(mode: info.st_mode)
            close(fd)
            throw OTLPReadError(.io, "\(path) is not a regular file (\(type))")
        }
        // Reads of a regular file never wait anyway; cleared so the descriptor reads as a normal one.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        descriptor = fd
        ownsDescriptor = true
    }

    /// Reads an already open descriptor; it is not closed by this source.
    package init(descriptor: Int32) {
        self.descriptor = descriptor
        ownsDescriptor = false
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(OTLPReadError) -> Int {
        switch OTLPSystemCall.retrying({ systemRead(descriptor, buffer.baseAddress, buffer.count) }) {
        case .success(let count): return count
        case .failure(let cause): throw OTLPReadError(.io, "read failed: \(cause)", cause: cause)
        }
    }
}

@inline(__always)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(fd, buffer, count)
    #else
    Darwin.read(fd, buffer, count)
    #endif
}
