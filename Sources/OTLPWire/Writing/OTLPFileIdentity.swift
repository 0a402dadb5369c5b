#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which file a path or descriptor names: its device and inode, so two spellings, a hard link and a
/// symbolic link to one file all compare equal.
///
/// Tools check an output against their inputs with it before opening the output: opening a file for
/// writing truncates it (and appending to a file being read never ends), so an output that is one of the
/// inputs would destroy data before it is read.
///
/// ```swift
/// if let output = OTLPFileIdentity(path: outputPath), output.isRegularFile, output == OTLPFileIdentity(path: inputPath) {
///     // refuse: writing would truncate the input
/// }
/// ```
public struct OTLPFileIdentity: Hashable, Sendable {
    /// The device holding the file (`st_dev`).
    public let device: UInt64
    /// The file's inode number on that device (`st_ino`).
    public let inode: UInt64
    /// Whether it is a regular file (not a directory, device, FIFO or socket). Only a regular file loses
    /// data when it is both read and written: `/dev/null` may well be two things at once.
    public let isRegularFile: Bool

    /// The file `path` names, following symbolic links; `nil` when it does not exist or cannot be examined.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The file an open descriptor refers to (`0` is standard input, `1` standard output); `nil` when
    /// `descriptor` is not open.
    public init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
        isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether writing to `self` could destroy the data of `other`: both name the same regular file.
    public func overlaps(_ other: OTLPFileIdentity?) -> Bool {
        isRegularFile && self == other
    }
}
