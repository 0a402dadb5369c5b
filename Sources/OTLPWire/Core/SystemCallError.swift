#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cause of an error from a failed system call: the `errno` it set. Described as the C library does
/// (`strerror`: `No space left on device`).
struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value the call set (`ENOSPC`, `EPIPE`, …).
    var errno: Int32

    var description: String { String(cString: strerror(errno)) }
}
