#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import COTLPShims

/// The one place where system calls are checked: each call is retried while it fails with `EINTR`, and a
/// failure keeps its `errno` (``SystemCallError``). Writers get ``OTLPWriteError/system(_:errno:)``; readers
/// map the same cause to their own error (``OTLPFileSource``).
package enum OTLPSystemCall {
    /// Runs `call`, again while it fails with `EINTR`: a negative result is a failure with `errno`.
    /// Not for `close` (on Linux a `close` interrupted by a signal has still closed the descriptor).
    static func retrying<Value: BinaryInteger>(_ call: () -> Value) -> Result<Value, SystemCallError> {
        while true {
            let result = call()
            if result >= 0 { return .success(result) }
            let cause = SystemCallError(errno: errno)
            if cause.errno != EINTR { return .failure(cause) }
        }
    }

    /// Runs `call`, again while it fails with `EINTR`: `nil` is a failure with `errno`.
    static func retrying<Value>(_ call: () -> Value?) -> Result<Value, SystemCallError> {
        while true {
            if let result = call() { return .success(result) }
            let cause = SystemCallError(errno: errno)
            if cause.errno != EINTR { return .failure(cause) }
        }
    }

    /// Runs `call`, again while it fails with `EINTR`; a negative result throws `.system(what(), errno:)`.
    /// Not for `close` (on Linux a `close` interrupted by a signal has still closed the descriptor).
    @discardableResult
    package static func check<Value: BinaryInteger>(
        _ what: @autoclosure () -> String, _ call: () -> Value
    ) throws(OTLPWriteError) -> Value {
        switch retrying(call) {
        case .success(let value): return value
        case .failure(let cause): throw .system(what(), errno: cause.errno)
        }
    }

    /// Runs `call`, again while it fails with `EINTR`; `nil` throws `.system(what(), errno:)`.
    package static func check<Value>(_ what: @autoclosure () -> String, _ call: () -> Value?) throws(OTLPWriteError) -> Value {
        switch retrying(call) {
        case .success(let value): return value
        case .failure(let cause): throw .system(what(), errno: cause.errno)
        }
    }

    /// Renames `from` to `to` unless something is at `to` (then throws with `EEXIST`): atomic where the
    /// file system supports `RENAME_NOREPLACE`, so nothing is ever renamed over.
    package static func renameWithoutReplacing(_ from: String, to: String) throws(OTLPWriteError) {
        try check("cannot rename \(from) to \(to)") { COTLPShims_rename_noreplace(from, to) }
    }

    /// The names in `directory` (without `.` and `..`).
    package static func names(inDirectory directory: String) throws(OTLPWriteError) -> [String] {
        let stream = try check("cannot list \(directory)") { opendir(directory) }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw .system("cannot list \(directory)", errno: errno) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }
}
