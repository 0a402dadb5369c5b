#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension OTLPSystemCall {
    /// Opens `path` with `flags` plus `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC` (mode 0644 when it creates), and
    /// keeps it open only if it is a regular file: for the files this package replaces, locks and reads back
    /// (temporary files, lock files, checkpoints), which nothing else may stand in for.
    ///
    /// It never waits: a FIFO opens at once (or fails with `ENXIO` when opened for writing without a
    /// reader) and is refused, as are sockets, devices and directories. A symbolic link at `path` is not
    /// followed (`ELOOP`); links in the directories above it are. `O_NONBLOCK` stays set: it changes nothing
    /// for a regular file.
    ///
    /// - Parameters:
    ///   - path: The file to open.
    ///   - flags: The access mode and creation flags (`O_WRONLY | O_CREAT | O_EXCL`, `O_RDWR | O_CREAT`,
    ///     `O_RDONLY`).
    ///   - what: What is being done, the start of the error's message (`cannot create checkpoint.tmp`).
    /// - Returns: The descriptor, which the caller closes, and what `fstat` says of it.
    /// - Throws: ``OTLPWriteError/system(_:errno:)`` with the `errno` of the failed call (`ELOOP` for a
    ///   symbolic link, `EEXIST` with `O_EXCL`, `ENXIO` for a FIFO or socket opened for writing), or when the
    ///   file opened is not a regular file, `EISDIR` for a directory and `EINVAL` for anything else; the
    ///   message then says what the file is.
    package static func openRegularFile(
        _ path: String, flags: Int32, _ what: @autoclosure () -> String
    ) throws(OTLPWriteError) -> (descriptor: Int32, status: OTLPFileStatus) {
        let descriptor: Int32
        do throws(OTLPWriteError) {
            descriptor = try check(what()) { open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644) }
        } catch {
            // A link not followed, a FIFO or socket without a reader: say what is there, keeping the errno.
            if let code = error.errno, code == ELOOP || code == ENXIO, let found = try? OTLPFileStatus.of(path: path), !found.isRegularFile
            {
                throw .system("\(what()): \(path) is \(found.typeDescription), not a regular file", errno: code)
            }
            throw error
        }
        let status: OTLPFileStatus
        do throws(OTLPWriteError) {
            status = try OTLPFileStatus.of(descriptor: descriptor, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        guard status.isRegularFile else {
            close(descriptor)
            throw .system(
                "\(what()): \(path) is \(status.typeDescription), not a regular file", errno: status.isDirectory ? EISDIR : EINVAL)
        }
        return (descriptor, status)
    }
}
