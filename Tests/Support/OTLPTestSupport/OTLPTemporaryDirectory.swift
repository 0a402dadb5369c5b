public import Foundation

/// Folders for one test each, under the system's temporary directory: the one way tests make them.
public enum OTLPTemporaryDirectory {
    /// A new, empty folder named `prefix-<UUID>` (mode 0700), made before it is returned.
    public static func make(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return url
    }

    /// A path for a file or folder named `prefix-<UUID>suffix` that does not exist yet (for tests of what
    /// creates it).
    public static func unusedPath(_ prefix: String, suffix: String = "") -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)\(suffix)")
    }

    /// Removes `url` and everything in it; a folder already gone is not an error.
    public static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }
}
