import Foundation
import PeerSupport
import Tracing

/// The span hot path of each SDK under the same workload (`startSpan`, 8 attributes, `end`, on 1 or more
/// tasks, then shutdown), one SDK configuration per process: prints one JSON line with the time per span
/// spent in the application's tasks, the time until everything was exported, the spans exported and
/// dropped, and the peak resident memory. run-pipeline.sh runs every configuration in interleaved rounds
/// and prints ratios against NoOpTracer measured in the same round.
@main
struct PipelineBenchmark {
    static func main() async throws {
        guard let options = PipelineOptions(Array(CommandLine.arguments.dropFirst())) else {
            FileHandle.standardError.write(Data((PipelineOptions.usage + "\n").utf8))
            exit(64)
        }
        let result: PipelineResult
        switch options.mode {
        case .noop:
            let seconds = await SpanWorkload(options: options).emit(through: NoOpTracer())
            result = PipelineResult(options: options, hotPathSeconds: seconds, totalSeconds: seconds, exported: options.spans, dropped: 0)
        case .otlpwire, .otlpwireOTLP:
            result = try await OTLPWirePipeline(options: options).run()
        case .swiftOTel, .swiftOTelOTLP:
            result = try await SwiftOTelPipeline(options: options).run()
        }
        result.print()
    }
}
