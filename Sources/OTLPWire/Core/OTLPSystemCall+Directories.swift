#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension OTLPSystemCall {
    /// Creates `path` and its missing parents, like `mkdir -p` (new folders get `mode`, less the umask); a
    /// folder that exists already is fine. Throws naming the component that failed: one that exists and is
    /// not a folder (`ENOTDIR`), or the `mkdir` error (`EACCES`, `EROFS`, …).
    package static func makeDirectories(_ path: String, mode: UInt32 = 0o755) throws(OTLPWriteError) {
        guard !path.isEmpty else { throw .system("cannot create a directory with an empty path", errno: ENOENT) }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += prefix.isEmpty || prefix.hasSuffix("/") ? String(component) : "/\(component)"
            if mkdir(prefix, mode_t(mode)) == 0 { continue }
            let error = errno
            guard error == EEXIST else { throw .system("cannot create the directory \(prefix)", errno: error) }
            // Whatever is there must be a folder (a link to one counts: the path was given that way).
            var info = stat()
            guard stat(prefix, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw .system("cannot create the directory \(path): \(prefix) exists and is not a directory", errno: ENOTDIR)
            }
        }
    }

    /// Creates the folder that holds the file at `path` and its missing parents (``makeDirectories(_:mode:)``);
    /// nothing for a path without a folder part.
    package static func makeParentDirectories(of path: String, mode: UInt32 = 0o755) throws(OTLPWriteError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        try makeDirectories(String(path[..<slash]), mode: mode)
    }
}
