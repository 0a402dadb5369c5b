#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `lstat`/`fstat` say about a file: enough to tell one file from another and to refuse links.
package struct OTLPFileStatus: Equatable, Sendable {
    package var device: UInt64
    package var inode: UInt64
    package var isRegularFile: Bool
    package var isSymbolicLink: Bool
    /// Whether it is a directory.
    package var isDirectory: Bool
    package var sizeBytes: Int64
    /// What kind of file it is, in words: "a regular file", "a directory", "a FIFO", "a socket", ….
    package var typeDescription: String

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
        isSymbolicLink = (info.st_mode & S_IFMT) == S_IFLNK
        isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        sizeBytes = Int64(info.st_size)
        typeDescription = Self.describe(mode: info.st_mode)
    }

    /// The file type in `mode` (`st_mode`), in words.
    static func describe(mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link"
        default: "a file of unknown type"
        }
    }

    /// The file at `path` itself (a link is not followed), or `nil` when nothing is there.
    package static func of(path: String) throws(OTLPWriteError) -> OTLPFileStatus? {
        var info = stat()
        do throws(OTLPWriteError) {
            try OTLPSystemCall.check("cannot inspect \(path)") { lstat(path, &info) }
        } catch {
            if error.errno == ENOENT { return nil }
            throw error
        }
        return OTLPFileStatus(info)
    }

    /// The file open at `descriptor`.
    package static func of(descriptor: Int32, path: String) throws(OTLPWriteError) -> OTLPFileStatus {
        var info = stat()
        try OTLPSystemCall.check("cannot inspect \(path)") { fstat(descriptor, &info) }
        return OTLPFileStatus(info)
    }

    /// The file that opening `path` reaches (links followed), or `nil` when it cannot be inspected.
    package static func reached(by path: String) -> OTLPFileStatus? {
        var info = stat()
        return stat(path, &info) == 0 ? OTLPFileStatus(info) : nil
    }

    /// The file open at `descriptor`, or `nil` when it is not open.
    package static func reached(byDescriptor descriptor: Int32) -> OTLPFileStatus? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? OTLPFileStatus(info) : nil
    }

    /// Whether writing this file would overwrite `other`: both are one regular file (device and inode). Two
    /// opens of a device such as `/dev/null` do not overlap.
    package func overlaps(_ other: OTLPFileStatus?) -> Bool {
        guard let other else { return false }
        return isRegularFile && isSameFile(as: other)
    }

    /// Whether both describe the same file (device and inode).
    package func isSameFile(as other: OTLPFileStatus) -> Bool {
        device == other.device && inode == other.inode
    }
}
