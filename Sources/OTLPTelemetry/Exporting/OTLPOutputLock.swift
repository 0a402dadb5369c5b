import Foundation
package import OTLPWire

/// An exclusive advisory lock on an output path, held while this object lives, so that two pipelines (in
/// this process or in others) never write, rotate and count the same files.
///
/// The lock is `flock(LOCK_EX | LOCK_NB)` on `DIR/.NAME.lock` beside the output `DIR/NAME`: a file that
/// rotation never renames (the output itself is renamed away), hidden from `NAME*` globs. `flock` belongs to
/// the open file, so a second sink in the same process is refused too. The holder writes its process ID
/// into the file so the refused one can name it. Releasing removes the file; after a crash the kernel
/// drops the lock and the stale file is simply locked again. Like every advisory lock, it binds only
/// writers that take it (this package's pipelines), and network file systems may not honour it.
///
/// A directory is locked by the file `.lock` inside it (``init(directory:)``): every path that reaches the
/// directory (through a symbolic link, `..`, a bind mount) opens that one file, so they all meet one lock,
/// where locks beside it would be one per path. The lock file is opened without following a link at its own
/// name and only if it is a regular file, never waiting on a FIFO.
package final class OTLPOutputLock {
    /// The lock file.
    package let lockPath: String
    private let descriptor: Int32
    private let status: OTLPFileStatus

    /// Takes the lock for `outputPath`, or throws `.system(…, errno: EWOULDBLOCK)` naming the path and the
    /// holder when another pipeline has it.
    package init(outputPath: String) throws(OTLPWriteError) {
        lockPath = Self.lockPath(for: outputPath)
        (descriptor, status) = try Self.acquire(lockPath, outputPath: outputPath, shared: "an output path")
    }

    /// Takes the lock of the existing directory `directory`, held in `DIR/.lock`, or throws
    /// `.system(…, errno: EWOULDBLOCK)` naming the directory and the holder when another has it.
    package init(directory: String) throws(OTLPWriteError) {
        let trimmed = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        lockPath = (trimmed == "/" ? "" : trimmed) + "/" + Self.directoryLockName
        (descriptor, status) = try Self.acquire(lockPath, outputPath: trimmed, shared: "a directory")
    }

    /// The name of a directory's lock file, inside it.
    private static let directoryLockName = ".lock"

    deinit {
        // Remove the file only if it is still ours, then unlock by closing.
        if let found = try? OTLPFileStatus.of(path: lockPath), found.isSameFile(as: status) { unlink(lockPath) }
        close(descriptor)
    }

    static func lockPath(for outputPath: String) -> String {
        guard let slash = outputPath.lastIndex(of: "/") else { return ".\(outputPath).lock" }
        return "\(outputPath[...slash]).\(outputPath[outputPath.index(after: slash)...]).lock"
    }

    /// Locks the file at `lockPath` for `outputPath`; `shared` names what two pipelines cannot share.
    private static func acquire(_ lockPath: String, outputPath: String, shared: String) throws(OTLPWriteError) -> (Int32, OTLPFileStatus) {
        // A holder releasing at this moment removes the file we opened: lock again what is at the path.
        for _ in 0..<16 {
            let (fd, mine) = try OTLPSystemCall.openRegularFile(
                lockPath, flags: O_RDWR | O_CREAT, "cannot create \(lockPath), the lock file of \(outputPath)")
            do throws(OTLPWriteError) {
                try OTLPSystemCall.check("cannot lock \(lockPath)") { flock(fd, LOCK_EX | LOCK_NB) }
                guard let found = try OTLPFileStatus.of(path: lockPath), found.isSameFile(as: mine) else {
                    close(fd)
                    continue
                }
                let line = Array("\(getpid())\n".utf8)
                try OTLPSystemCall.check("cannot write the lock file \(lockPath)") { ftruncate(fd, 0) }
                try OTLPSystemCall.check("cannot write the lock file \(lockPath)") {
                    line.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
                }
                return (fd, mine)
            } catch {
                let holder = holder(fd)
                close(fd)
                if let code = error.errno, code == EWOULDBLOCK {
                    throw .system(
                        "\(outputPath) is being written by \(holder) (lock file \(lockPath)); two pipelines cannot share \(shared)",
                        errno: code)
                }
                throw error
            }
        }
        throw .system("cannot lock \(outputPath): the lock file \(lockPath) keeps being replaced", errno: EAGAIN)
    }

    /// Who holds the lock, from the process ID in the lock file.
    private static func holder(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0, let pid = Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            return "another pipeline"
        }
        if pid == getpid() { return "another sink in this process (\(pid))" }
        // Linux names the process in /proc (absent elsewhere, or when it has exited: then just the number).
        guard let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return "process \(pid)" }
        return "process \(pid) (\(comm.trimmingCharacters(in: .whitespacesAndNewlines)))"
    }
}
