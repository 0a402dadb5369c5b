#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small files replaced as a whole, so that a crash at any moment leaves either the old content or the new
/// one, never a mix: the content goes to `PATH.tmp`, is `fsync`ed, renamed over `PATH`, and the directory is
/// `fsync`ed so that the rename itself survives a power loss. Checkpoints are written this way.
///
/// The temporary file is always created afresh (``createTemporary(_:)``): whatever is found at `PATH.tmp`
/// is never opened as it is, so a FIFO there cannot hold the writer and a link there cannot redirect it.
/// One path has one writer at a time (its owner holds a lock): a second one would remove the first's
/// temporary file.
package enum OTLPAtomicFile {
    /// Replaces the file at `path` with `bytes`, durably; with `syncing` false, atomically only, without the two
    /// `fsync`s: a killed process leaves the old content or the new one, a power loss may leave neither.
    package static func replace(_ path: String, with bytes: [UInt8], syncing: Bool = true) throws(OTLPWriteError) {
        let temporary = path + ".tmp"
        let descriptor = try createTemporary(temporary)
        do throws(OTLPWriteError) {
            var done = 0
            while done < bytes.count {
                done += try bytes.withUnsafeBytes { raw in
                    Result { () throws(OTLPWriteError) in
                        try OTLPSystemCall.check("cannot write \(temporary)") {
                            write(descriptor, raw.baseAddress! + done, raw.count - done)
                        }
                    }
                }.get()
            }
            if syncing { try OTLPSystemCall.check("cannot fsync \(temporary)") { fsync(descriptor) } }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        do throws(OTLPWriteError) {
            try OTLPSystemCall.check("cannot rename \(temporary) to \(path)") { rename(temporary, path) }
        } catch {
            // The old file stays as it was; the new content is not left beside it (regression: PATH.tmp remained).
            unlink(temporary)
            throw error
        }
        if syncing { try syncDirectory(containing: path) }
    }

    /// Creates `temporary` as a new, empty regular file, open for writing: `O_CREAT | O_EXCL`, never
    /// through a symbolic link, never waiting (``OTLPSystemCall/openRegularFile(_:flags:_:)``). Something
    /// already there (left by a crash before its rename, or put there) is removed and the create tried once
    /// more: a file, a FIFO, a socket, a device node or a symbolic link (the link, not what it points to).
    /// A directory is not removed: it is refused with `EISDIR`.
    static func createTemporary(_ temporary: String) throws(OTLPWriteError) -> Int32 {
        let what = "cannot create \(temporary)"
        do throws(OTLPWriteError) {
            return try OTLPSystemCall.openRegularFile(temporary, flags: O_WRONLY | O_CREAT | O_EXCL, what).descriptor
        } catch {
            guard error.errno == EEXIST else { throw error }
        }
        if let stale = try OTLPFileStatus.of(path: temporary), stale.isDirectory {
            throw .system("\(what): a directory is in the way (remove it)", errno: EISDIR)
        }
        do throws(OTLPWriteError) {
            try OTLPSystemCall.check("cannot remove the stale \(temporary)") { unlink(temporary) }
        } catch {
            // Gone meanwhile: the create below finds the name free.
            if error.errno != ENOENT { throw error }
        }
        return try OTLPSystemCall.openRegularFile(temporary, flags: O_WRONLY | O_CREAT | O_EXCL, what).descriptor
    }

    /// `fsync`s the directory that holds `path`, so that names created, renamed or removed in it are durable.
    package static func syncDirectory(containing path: String) throws(OTLPWriteError) {
        guard let slash = path.lastIndex(of: "/") else { return try syncDirectory(".") }
        try syncDirectory(slash == path.startIndex ? "/" : String(path[..<slash]))
    }

    /// `fsync`s `directory`, so that names created, renamed or removed in it are durable.
    package static func syncDirectory(_ directory: String) throws(OTLPWriteError) {
        let descriptor = try OTLPSystemCall.check("cannot open the directory \(directory)") {
            open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        defer { close(descriptor) }
        do throws(OTLPWriteError) {
            try OTLPSystemCall.check("cannot fsync the directory \(directory)") { fsync(descriptor) }
        } catch {
            // Some file systems cannot sync directories: nothing more to make durable there.
            if error.errno == EINVAL { return }
            throw error
        }
    }
}
