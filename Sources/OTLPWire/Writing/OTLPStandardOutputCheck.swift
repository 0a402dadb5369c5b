#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// For the package's command-line tools, before anything else runs:
/// - Text printed through C's buffered standard output (`print`, and swift-argument-parser's `--help` and
///   `--version`) is flushed at exit with its errors ignored. An exit handler flushes it first, so a failed
///   write there (`> /dev/full`, a full disk) is exit status 2 with one line on standard error; a closed pipe
///   stays quiet.
/// - `SIGPIPE` is ignored, so a closed pipe on standard error (a usage message into `| head`) is a failed
///   write, not death by signal (exit 141 instead of 64).
/// - Standard input, output and error that were closed (`2>&-`) are held by `/dev/null` opened the wrong way
///   round (writes and reads fail as on a closed descriptor), so a file the tool opens never becomes
///   descriptor 0, 1 or 2, where diagnostics would be written into it.
package enum OTLPStandardOutputCheck {
    nonisolated(unsafe) private static var program = ""

    /// Installs the exit handler; `program` prefixes its message (`otlp-dump: <stdout>: write failed: …`).
    package static func install(program: String) {
        Self.program = program
        _ = signal(SIGPIPE, SIG_IGN)
        for descriptor in Int32(0)...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            // open returns the lowest free descriptor: this one, as those below it are open by now.
            let placeholder = open("/dev/null", descriptor == 0 ? O_WRONLY : O_RDONLY)
            if placeholder >= 0 && placeholder != descriptor { close(placeholder) }
        }
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
