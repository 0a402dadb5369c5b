import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A FIFO put where code expects a regular file (a temporary file, a lock file): opening it to write waits
/// for a reader that never comes, unless the code refuses or removes it. ``run(safetySeconds:_:)`` runs
/// such code without letting a regression hang the tests.
public struct OTLPFIFOTrap: Sendable {
    /// Where the FIFO is.
    public let path: String

    /// Makes a FIFO at `path`.
    public init(path: String) throws {
        guard mkfifo(path, 0o644) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        self.path = path
    }

    /// Runs `body` on another thread and returns its result, or `nil` when it had not returned after
    /// `safetySeconds`. That bound is a safety net, not the test: tests assert on what `body` returns. On
    /// it, `body` is presumably blocked opening the FIFO: the FIFO is opened here for reading and writing,
    /// which lets such an open return, and `body` is waited for once more (so it does not outlive the test
    /// when it can finish).
    public func run<Value: Sendable>(safetySeconds: Double = 60, _ body: @escaping @Sendable () -> Value) -> Value? {
        let box = ResultBox<Value>()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            box.value = body()
            done.signal()
        }
        if done.wait(timeout: .now() + safetySeconds) == .success { return box.value }
        let release = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        _ = done.wait(timeout: .now() + safetySeconds)
        if release >= 0 { close(release) }
        return nil
    }
}

/// The result of a call on another thread, read after a semaphore says it is there.
private final class ResultBox<Value>: @unchecked Sendable {
    var value: Value?
}
