import Foundation

/// The yardstick workload delivered to an OTLP/HTTP collector by one SDK per process: spans and log
/// records per second, CPU seconds, delivered and dropped counts, as JSON lines (run.sh runs both SDKs
/// against rotel and prints the table).
@main
struct DeliveryBenchmark {
    static func main() async throws {
        guard let options = DeliveryOptions(Array(CommandLine.arguments.dropFirst())) else {
            FileHandle.standardError.write(Data((DeliveryOptions.usage + "\n").utf8))
            exit(64)
        }
        let workload = Workload(spanCount: options.items, logRecordCount: options.items)
        let results =
            switch options.mode {
            case "otlpwire": await OTLPWireDelivery(options: options).run(workload)
            case "otlpwire-file": await OTLPWireDelivery.toTemporaryFiles(options: options, workload)
            default: try await SwiftOTelDelivery(options: options).run(workload)
            }
        for result in results { result.print() }
    }
}
