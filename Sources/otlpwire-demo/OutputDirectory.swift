import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The demo's output folder, created like `mkdir -p`, with errors that say which path failed and why
/// (the `errno` text), instead of Foundation's generic "could not be completed".
enum OutputDirectory {
    /// Creates `path` and any missing parents; throws a message naming the path that failed.
    static func create(_ path: String) throws(DemoFailure) {
        guard !path.isEmpty else { throw DemoFailure("output directory: the path is empty", status: .usage) }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += prefix.isEmpty || prefix.hasSuffix("/") ? String(component) : "/\(component)"
            if mkdir(prefix, 0o777) == 0 { continue }
            let error = errno
            var info = stat()
            if error == EEXIST, stat(prefix, &info) == 0 {
                if info.st_mode & S_IFMT == S_IFDIR { continue }
                throw DemoFailure("cannot create output directory \(path): \(prefix) exists and is not a directory", status: .ioError)
            }
            throw DemoFailure("cannot create output directory \(path): \(prefix): \(String(cString: strerror(error)))", status: .ioError)
        }
    }
}
