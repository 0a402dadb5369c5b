import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Set when `--follow` should end: by SIGINT or SIGTERM (then the records read so far are shown and the
/// exit status is 0), wakes a waiting ``FollowingFileSource`` at once.
final class FollowStop: @unchecked Sendable {
    private var requested = false
    private let condition = DispatchSemaphore(value: 0)
    private let lock = DispatchSemaphore(value: 1)
    private var signalSources: [any DispatchSourceSignal] = []

    var isRequested: Bool {
        lock.wait()
        defer { lock.signal() }
        return requested
    }

    func request() {
        lock.wait()
        requested = true
        lock.signal()
        condition.signal()
    }

    /// Waits until `milliseconds` pass or a stop is requested.
    func wait(milliseconds: Int) {
        _ = condition.wait(timeout: .now() + .milliseconds(milliseconds))
        if isRequested { condition.signal() }  // keeps later waits short too
    }

    /// Makes SIGINT and SIGTERM request a stop instead of ending the process.
    func installSignalHandlers() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.request() }
            source.resume()
            signalSources.append(source)
        }
    }
}
