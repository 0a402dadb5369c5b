import ArgumentParser
import OTLPWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct OTLPDump: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "otlp-dump",
        abstract:
            "Inspect, validate, convert and send OTLP files of traces, logs and metrics: framed protobuf (u32be, varint), JSON lines, bare messages, gzip or zstd or neither.",
        discussion: """
            FILE arguments may be `-` for standard input (the default). Framing, compression and signal are detected \
            unless given. Damaged input: every record before the fault is still shown, then one error on stderr \
            naming the file, record index, byte offset and problem.

            Exit status:
              0   all input read
              1   damaged or invalid input
              2   a file (or stdout) could not be opened, read or written
              3   send: the collector refused data or stayed unreachable
              64  usage error, or an output that is one of the inputs
            """,
        version: "0.1.0",
        subcommands: [PrintCommand.self, StatsCommand.self, ValidateCommand.self, ConvertCommand.self, SendCommand.self],
        defaultSubcommand: PrintCommand.self
    )

    /// Runs the command, with standard output checked at exit (``OTLPStandardOutputCheck``): `--help` or
    /// `--version` into a full disk is exit 2 too.
    static func main() {
        OTLPStandardOutputCheck.install(program: "otlp-dump")
        main(nil)
    }
}
