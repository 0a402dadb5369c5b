import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct OTLPDump: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "otlp-dump",
        abstract: "Inspect OTLP trace and log files: framed protobuf (u32be, varint), JSON lines, bare messages, gzip or not.",
        discussion: """
            FILE arguments may be `-` for standard input (the default). Framing, gzip and signal are detected \
            unless given. Damaged input: every record before the fault is still shown, then one error on stderr \
            naming the file, record index, byte offset and problem.

            Exit status:
              0   all input read
              1   damaged or invalid input
              2   a file (or stdout) could not be opened, read or written
              64  usage error, or an output that is one of the inputs
            """,
        version: "0.1.0",
        subcommands: [PrintCommand.self, StatsCommand.self, ValidateCommand.self, ConvertCommand.self],
        defaultSubcommand: PrintCommand.self
    )

    /// Runs the command. Text that swift-argument-parser prints itself (`--help`, `--version`) goes through
    /// C's buffered standard output, which is flushed at exit with its errors ignored; an exit handler
    /// flushes it first, so a failed write there is also exit 2 with a message (a closed pipe stays quiet).
    static func main() {
        atexit {
            guard fflush(nil) != 0 else { return }  // every C output stream: standard output is the only buffered one
            guard errno != EPIPE else { return }
            Output.diagnostic("<stdout>: write failed: \(String(cString: strerror(errno)))")
            _exit(2)
        }
        main(nil)
    }
}
