#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to a file descriptor: a file (created or appended), standard output or standard error.
///
/// A path that is a symbolic link is refused (`ELOOP`) unless `followSymlink` is set: the file is opened
/// with `O_NOFOLLOW`, so data never lands silently in a file the link points to. (Only the last path
/// component is checked; directories on the way may be links.)
///
/// A write that fails part-way on a regular file (disk full, quota) is rolled back: the file is truncated
/// to its length before the write, so it never ends in a torn record. Creating a sink ignores `SIGPIPE`
/// for the process (as swift-nio does), so a reader that closes its pipe makes writes fail with `EPIPE`
/// instead of killing the process.
public final class OTLPFileSink: OTLPByteSink {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let isRegularFile: Bool
    /// What errors call the output: its path, or the descriptor.
    private let name: String
    /// The file opened, when the sink was made with a path (device and inode: who created what).
    package let status: OTLPFileStatus?
    /// When `followSymlink` was set and the path was a symbolic link: the file it resolved to, once, at
    /// opening (later changes to the link do not move the sink). `nil` otherwise.
    package let symlinkTarget: String?

    /// Opens `path` for writing (`-` is standard output); `append` keeps existing content.
    ///
    /// - Parameters:
    ///   - path: the file to write, created if missing; `-` for standard output.
    ///   - append: keep the file's content and write after it. Default `false`: the file is truncated.
    ///   - followSymlink: write through a symbolic link at `path` (resolved once,
    ///     here). Default `false`: a link is refused with `ELOOP`.
    /// - Throws: an ``OTLPWriteError`` of code ``OTLPWriteError/Code/system`` (with its ``OTLPWriteError/errno``)
    ///   when the file cannot be opened.
    public convenience init(path: String, append: Bool = false, followSymlink: Bool = false) throws(OTLPWriteError) {
        if path == "-" {
            self.init(descriptor: 1)
            return
        }
        try self.init(path: path, openFlags: O_CREAT | (append ? O_APPEND : O_TRUNC), followSymlink: followSymlink)
    }

    /// Opens `path` with `O_WRONLY | O_CLOEXEC`, `O_NOFOLLOW` unless `follow`, and `openFlags`
    /// (`O_CREAT | O_EXCL`, `O_APPEND`, `O_TRUNC`), mode 0644. A symbolic link at `path` is refused with a
    /// message that says so. `neverWaiting` opens with `O_NONBLOCK` (then writes block as usual): a FIFO
    /// without a reader fails at once (`ENXIO`) instead of holding the caller until one comes.
    package init(path: String, openFlags: Int32, followSymlink follow: Bool = false, neverWaiting: Bool = false) throws(OTLPWriteError) {
        Self.ignoreSIGPIPE()
        let flags = O_WRONLY | O_CLOEXEC | openFlags | (follow ? 0 : O_NOFOLLOW) | (neverWaiting ? O_NONBLOCK : 0)
        let wasLink = follow && (try? OTLPFileStatus.of(path: path))??.isSymbolicLink == true
        let fd: Int32
        do throws(OTLPWriteError) {
            fd = try OTLPSystemCall.check("cannot open \(path)") { open(path, flags, 0o644) }
        } catch {
            if error.errno == ELOOP, !follow, (try? OTLPFileStatus.of(path: path))??.isSymbolicLink == true {
                throw .system(
                    "cannot open \(path): it is a symbolic link, which is not followed (give the path of the file it points to)",
                    errno: ELOOP)
            }
            if error.errno == ENXIO, neverWaiting {
                throw .system("cannot open \(path): it is a FIFO with no reader", errno: ENXIO)
            }
            throw error
        }
        let status: OTLPFileStatus
        do throws(OTLPWriteError) {
            if neverWaiting {
                let current = try OTLPSystemCall.check("cannot set up \(path)") { fcntl(fd, F_GETFL) }
                try OTLPSystemCall.check("cannot set up \(path)") { fcntl(fd, F_SETFL, current & ~O_NONBLOCK) }
            }
            status = try OTLPFileStatus.of(descriptor: fd, path: path)
        } catch {
            close(fd)
            throw error
        }
        descriptor = fd
        ownsDescriptor = true
        isRegularFile = status.isRegularFile
        name = path
        self.status = status
        symlinkTarget = wasLink ? Self.resolvedPath(path) : nil
    }

    /// Writes to an open descriptor, which this sink does not close.
    package init(descriptor: Int32) {
        Self.ignoreSIGPIPE()
        self.descriptor = descriptor
        ownsDescriptor = false
        isRegularFile = (try? OTLPFileStatus.of(descriptor: descriptor, path: ""))?.isRegularFile == true
        name = descriptor == 1 ? "standard output" : descriptor == 2 ? "standard error" : "descriptor \(descriptor)"
        status = nil
        symlinkTarget = nil
    }

    private static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func ignoreSIGPIPE() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    /// Standard output.
    package static var standardOutput: OTLPFileSink { OTLPFileSink(descriptor: 1) }
    /// Standard error.
    package static var standardError: OTLPFileSink { OTLPFileSink(descriptor: 2) }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(OTLPWriteError) {
        let start = isRegularFile ? lseek(descriptor, 0, SEEK_END) : -1
        var offset = 0
        while offset < bytes.count {
            do throws(OTLPWriteError) {
                offset += try OTLPSystemCall.check("cannot write \(name)") {
                    systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                }
            } catch {
                guard offset > 0 && start >= 0 else { throw error }
                do throws(OTLPWriteError) {
                    try OTLPSystemCall.check("cannot roll back \(name)") { ftruncate(descriptor, start) }  // no torn record
                } catch let rollback {
                    guard let code = error.errno else { throw error }
                    throw .system(
                        "\(error.message) (\(offset) of \(bytes.count) bytes written; \(rollback): the file ends in a torn record)",
                        errno: code)
                }
                throw error
            }
        }
    }

    public func sync() throws(OTLPWriteError) {
        do throws(OTLPWriteError) {
            try OTLPSystemCall.check("cannot fsync \(name)") { fsync(descriptor) }
        } catch {
            // Pipes, terminals and some special files cannot be synced: nothing to make durable.
            if error.errno == EINVAL || error.errno == EROFS { return }
            throw error
        }
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
