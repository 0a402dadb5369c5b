import Foundation
import OTLPWire

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
        if let a = status(first), let b = status(second) {
            return a.isSameFile(as: b) && !(status("/dev/null").map(a.isSameFile(as:)) ?? false)
        }
        return resolvedPath(first) == resolvedPath(second)
    }

    /// The file an output reaches (`-` is stdout), or `nil` when it does not exist yet.
    private static func status(_ output: String) -> OTLPFileStatus? {
        output == "-" ? OTLPFileStatus.reached(byDescriptor: STDOUT_FILENO) : OTLPFileStatus.reached(by: output)
    }

    /// An output path with its directory's symbolic links resolved (the file itself may not exist yet).
    private static func resolvedPath(_ output: String) -> String {
        if output == "-" { return "-" }
        let url = URL(fileURLWithPath: output).standardizedFileURL
        let directory = url.deletingLastPathComponent().resolvingSymlinksInPath()
        return directory.appendingPathComponent(url.lastPathComponent).path
    }
}
