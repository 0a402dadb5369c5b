import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension OTLPMetricKitCommand {
    /// Whether two output arguments reach the same file or stream, so that both signals would be written
    /// into one: both `-` (stdout), the same path, or different names of one file (`-` and `/dev/stdout`, a
    /// symbolic or hard link), compared by device and inode; paths not created yet by their resolved
    /// directory and name. `/dev/null` may be named twice: it keeps nothing.
    static func sameOutput(_ first: String, _ second: String) -> Bool {
        if first == "-" && second == "-" { return true }
        if let a = identity(first), let b = identity(second) {
            return a == b && a != identity("/dev/null")
        }
        return resolvedPath(first) == resolvedPath(second)
    }

    /// Device and inode of an output (`-` is stdout), or `nil` when it does not exist yet.
    private static func identity(_ output: String) -> [UInt64]? {
        var status = stat()
        let result = output == "-" ? fstat(STDOUT_FILENO, &status) : stat(output, &status)
        guard result == 0 else { return nil }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }

    /// An output path with its directory's symbolic links resolved (the file itself may not exist yet).
    private static func resolvedPath(_ output: String) -> String {
        if output == "-" { return "-" }
        let url = URL(fileURLWithPath: output).standardizedFileURL
        let directory = url.deletingLastPathComponent().resolvingSymlinksInPath()
        return directory.appendingPathComponent(url.lastPathComponent).path
    }
}
