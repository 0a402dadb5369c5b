import Foundation
import OTLPWire
#if canImport(Glibc)
import Glibc
#endif

/// The demo's output folder, created like `mkdir -p`, with errors that say which path failed and why
/// (the `errno` text), instead of Foundation's generic "could not be completed".
enum OutputDirectory {
    /// Creates `path` and any missing parents; throws a message naming the path that failed.
    static func create(_ path: String) throws(DemoFailure) {
        guard !path.isEmpty else { throw DemoFailure("output directory: the path is empty", status: .usage) }
        do throws(OTLPWriteError) {
            try OTLPSystemCall.makeDirectories(path, mode: 0o777)
        } catch {
            throw DemoFailure("cannot create output directory \(path): \(error)", status: .ioError)
        }
    }
}
