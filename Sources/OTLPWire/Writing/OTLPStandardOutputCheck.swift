#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// For the package's command-line tools: text printed through C's buffered standard output (`print`, and
/// swift-argument-parser's `--help` and `--version`) is flushed at exit with its errors ignored. An exit
/// handler flushes it first, so a failed write there (`> /dev/full`, a full disk) is exit status 2 with one
/// line on standard error; a closed pipe stays quiet.
package enum OTLPStandardOutputCheck {
    nonisolated(unsafe) private static var program = ""

    /// Installs the exit handler; `program` prefixes its message (`otlp-dump: <stdout>: write failed: …`).
    package static func install(program: String) {
        Self.program = program
        atexit {
            guard fflush(nil) != 0 else { return }  // every C output stream: standard output is the only buffered one
            let code = errno
            guard code != EPIPE else { return }
            let line = Array("\(OTLPStandardOutputCheck.program): <stdout>: write failed: \(String(cString: strerror(code)))\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            _exit(2)
        }
    }
}
