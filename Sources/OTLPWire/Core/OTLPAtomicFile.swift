#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small files replaced as a whole, so that a crash at any moment leaves either the old content or the new
/// one, never a mix: the content goes to `PATH.tmp`, is `fsync`ed, renamed over `PATH`, and the directory is
/// `fsync`ed so that the rename itself survives a power loss. Checkpoints are written this way.
package enum OTLPAtomicFile {
    /// Replaces the file at `path` with `bytes`, durably.
    package static func replace(_ path: String, with bytes: [UInt8]) throws(OTLPWriteError) {
        let temporary = path + ".tmp"
        let descriptor = try OTLPSystemCall.check("cannot create \(temporary)") {
            open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        }
        do throws(OTLPWriteError) {
            var done = 0
            while done < bytes.count {
                done += try bytes.withUnsafeBytes { raw in
                    Result { () throws(OTLPWriteError) in
                        try OTLPSystemCall.check("cannot write \(temporary)") { write(descriptor, raw.baseAddress! + done, raw.count - done) }
                    }
                }.get()
            }
            try OTLPSystemCall.check("cannot fsync \(temporary)") { fsync(descriptor) }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        try OTLPSystemCall.check("cannot rename \(temporary) to \(path)") { rename(temporary, path) }
        try syncDirectory(containing: path)
    }

    /// `fsync`s the directory that holds `path`, so that names created, renamed or removed in it are durable.
    package static func syncDirectory(containing path: String) throws(OTLPWriteError) {
        guard let slash = path.lastIndex(of: "/") else { return try syncDirectory(".") }
        try syncDirectory(slash == path.startIndex ? "/" : String(path[..<slash]))
    }

    /// `fsync`s `directory`, so that names created, renamed or removed in it are durable.
    package static func syncDirectory(_ directory: String) throws(OTLPWriteError) {
        let descriptor = try OTLPSystemCall.check("cannot open the directory \(directory)") { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
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
