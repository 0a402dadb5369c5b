import ArgumentParser
import OTLPWire

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check framing and decoding only; the exit status is the verdict.",
        discussion: """
            Prints one line per valid file; for a damaged one, the error on stderr and exit status 1.

            Protobuf records are checked by the pre-scan decoding runs first, without building any structure: \
            framing and record size, wire format, nesting depth, UTF-8 of strings, trace and span ID lengths, \
            attribute and decoded-memory limits, and the signal. It refuses everything protobuf-c's unpack \
            refuses (a differential test holds it against protobuf-c on the test vectors and thousands of \
            mutations of them), so a record it accepts decodes. JSON records are parsed whole.
            """
    )

    @OptionGroup var input: InputOptions

    func validate() throws {
        try OutputCollision.check(output: "-", inputs: input.files)
    }

    func run() throws {
        var status = ExitCode.success
        let output = Output.standard
        for file in input.inputFiles(status: &status) {
            var records = 0
            var items = 0
            do {
                let reader = try OTLPRecordReader(path: file, options: input.readerOptions)
                while let (_, count) = try reader.validateNext() {
                    records += 1
                    items += count
                }
                let signal = reader.signal?.itemNoun ?? "items"
                output.write(
                    "\(displayName(file)): valid, \(records) records, \(items) \(signal) (\(reader.framing)\(reader.isCompressed ? ", \(reader.compression)" : ""), \(reader.inputBytesRead) bytes)\n"
                )
            } catch {
                Output.diagnostic("\(displayName(file)): \(error) [\(records) valid records before it]")
                if status == .success { status = error.code == .io ? ExitStatus.ioError : ExitStatus.damagedInput }
            }
        }
        status = output.finish(status: status)
        if status != .success { throw status }
    }
}
