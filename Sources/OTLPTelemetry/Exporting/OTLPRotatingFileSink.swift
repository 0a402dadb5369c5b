import Foundation
public import OTLPWire

/// Appends to a file and rotates it by size and age: `path` is the current file, `path.1` the newest
/// rotated one, up to `path.<maxFiles - 1>`.
///
/// Each `write` (one batch: whole records) goes to one file, so no record is split across files. When a
/// rotation would keep more than `maxFiles` files, the oldest is deleted and the items it held are counted
/// as dropped (`retention`). After a failed write the file is closed and opened again on the next write.
public final class OTLPRotatingFileSink: OTLPByteSink, @unchecked Sendable {
    public let path: String
    public let rotation: OTLPTelemetryConfiguration.Rotation
    private let kind: OTLPItemKind
    private let counters: OTLPTelemetryCounters
    private let clock: any OTLPClock
    private let diagnostics: @Sendable (String) -> Void
    private let lock = NSLock()
    private var file: OTLPFileSink?
    private var currentSize = 0
    private var openedAtUnixNano: UInt64 = 0

    public init(
        path: String, rotation: OTLPTelemetryConfiguration.Rotation, kind: OTLPItemKind, counters: OTLPTelemetryCounters,
        clock: any OTLPClock = OTLPSystemClock(), diagnostics: @escaping @Sendable (String) -> Void = OTLPDiagnostics.standardError
    ) {
        self.path = path
        self.rotation = rotation
        self.kind = kind
        self.counters = counters
        self.clock = clock
        self.diagnostics = diagnostics
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(OTLPWriteError) {
        lock.lock()
        defer { lock.unlock() }
        if file == nil { try open() }
        if needsRotation(adding: bytes.count) {
            file = nil
            try rotateFiles()
            try open()
        }
        do {
            try file!.write(bytes)
            currentSize += bytes.count
        } catch {
            file = nil
            throw error
        }
    }

    public func sync() throws(OTLPWriteError) {
        lock.lock()
        defer { lock.unlock() }
        try file?.sync()
    }

    /// The current file followed by the rotated ones, newest first (those that exist).
    public var files: [String] {
        ([path] + (1..<max(rotation.maxFiles, 1)).map { "\(path).\($0)" }).filter { FileManager.default.fileExists(atPath: $0) }
    }

    private func open() throws(OTLPWriteError) {
        file = try OTLPFileSink(path: path, append: true)
        var info = stat()
        currentSize = stat(path, &info) == 0 ? Int(info.st_size) : 0
        openedAtUnixNano = clock.nowUnixNano()
    }

    private func needsRotation(adding count: Int) -> Bool {
        guard currentSize > 0 else { return false }
        if rotation.maxFileBytes > 0 && currentSize + count > rotation.maxFileBytes { return true }
        if rotation.maxAgeSeconds > 0 && Double(clock.nowUnixNano() &- openedAtUnixNano) / 1e9 >= rotation.maxAgeSeconds { return true }
        return false
    }

    /// Shifts `path.i` to `path.(i+1)` and `path` to `path.1`, deleting (and counting) what falls off the end.
    private func rotateFiles() throws(OTLPWriteError) {
        let keep = max(rotation.maxFiles, 1)
        let oldest = keep == 1 ? path : "\(path).\(keep - 1)"
        if FileManager.default.fileExists(atPath: oldest) {
            let items = Self.countItems(oldest)
            counters.dropped(items, kind, .retention)
            if unlink(oldest) != 0 { throw .io("cannot delete \(oldest): \(String(cString: strerror(errno)))") }
        }
        guard keep > 1 else { return }
        for index in stride(from: keep - 2, through: 1, by: -1) where FileManager.default.fileExists(atPath: "\(path).\(index)") {
            if rename("\(path).\(index)", "\(path).\(index + 1)") != 0 {
                throw .io("cannot rename \(path).\(index): \(String(cString: strerror(errno)))")
            }
        }
        if rename(path, "\(path).1") != 0 { throw .io("cannot rename \(path): \(String(cString: strerror(errno)))") }
    }

    /// Items in a file about to be deleted (what a reader would get from it).
    static func countItems(_ path: String) -> Int {
        guard let reader = try? OTLPStreamReader(path: path) else { return 0 }
        var items = 0
        while let next = try? reader.validateNext() { items += next.items }
        return items
    }
}
