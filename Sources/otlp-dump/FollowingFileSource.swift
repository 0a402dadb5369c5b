import OTLPWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file that another process is still writing, like `tail -f`: at its current end it waits for more
/// (checking every `pollIntervalMilliseconds`) instead of ending, so a record the writer has not finished yet
/// is read once its last byte arrives. It ends (reads 0) only when ``FollowStop`` is set (SIGINT, SIGTERM).
///
/// Each time it reaches the end it calls `onIdle` once, before waiting: every complete record before that
/// point has been handed out by then, so the caller can show what it holds.
final class FollowingFileSource: OTLPByteSource {
    private let file: OTLPFileSource
    private let pollIntervalMilliseconds: Int
    private let stop: FollowStop
    private let onIdle: () -> Void

    init(path: String, pollIntervalMilliseconds: Int, stop: FollowStop, onIdle: @escaping () -> Void) throws(OTLPReadError) {
        file = try OTLPFileSource(path: path)
        self.pollIntervalMilliseconds = pollIntervalMilliseconds
        self.stop = stop
        self.onIdle = onIdle
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(OTLPReadError) -> Int {
        var idle = false
        while true {
            let count = try file.read(into: buffer)
            if count > 0 || buffer.isEmpty { return count }
            if stop.isRequested { return 0 }
            if !idle {
                idle = true
                onIdle()
            }
            stop.wait(milliseconds: pollIntervalMilliseconds)
        }
    }
}
