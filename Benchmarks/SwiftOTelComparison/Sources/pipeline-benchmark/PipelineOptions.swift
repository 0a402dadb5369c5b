/// The command line: which SDK configuration, how many spans on how many tasks, where the collector listens.
struct PipelineOptions {
    /// An SDK configuration under test.
    enum Mode: String, CaseIterable {
        /// swift-distributed-tracing's `NoOpTracer`: the API's own cost, the baseline.
        case noop
        /// `OTLPTelemetry` writing traces to a file (its defaults otherwise).
        case otlpwire
        /// `OTLPTelemetry` delivering to the collector over OTLP/HTTP (protobuf, gzip; no file).
        case otlpwireOTLP = "otlpwire-otlp"
        /// swift-otel's tracing backend with exporter `none` (its batch processor, nothing sent).
        case swiftOTel = "swift-otel"
        /// swift-otel's tracing backend with its OTLP/HTTP exporter (protobuf) to the collector.
        case swiftOTelOTLP = "swift-otel-otlp"
    }

    static let usage = """
        usage: pipeline-benchmark MODE [--spans N] [--tasks T] [--queue N] [--endpoint URL]
          MODE         \(Mode.allCases.map(\.rawValue).joined(separator: " | "))
          --spans      spans in all, split evenly over the tasks (default 200000)
          --tasks      tasks starting spans concurrently (default 1)
          --queue      batch queue size for both SDKs (default: each SDK's own default, 2048 in both)
          --endpoint   the collector's OTLP/HTTP base URL for the -otlp modes (default http://127.0.0.1:4318)
        Each span: startSpan, 4 string, 2 int, 1 double and 1 bool attributes, end. Prints one JSON line.
        """

    var mode: Mode
    var spans = 200_000
    var tasks = 1
    var maxQueueSize: Int?
    var endpoint = "http://127.0.0.1:4318"

    /// Parses `arguments` (without the program name); nil if they are not understood.
    init?(_ arguments: [String]) {
        var arguments = arguments[...]
        guard let mode = arguments.popFirst().flatMap(Mode.init(rawValue:)) else { return nil }
        self.mode = mode
        while let flag = arguments.popFirst() {
            switch flag {
            case "--spans": guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else { return nil }; spans = value
            case "--tasks": guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else { return nil }; tasks = value
            case "--queue": guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else { return nil }; maxQueueSize = value
            case "--endpoint": guard let value = arguments.popFirst() else { return nil }; endpoint = value
            default: return nil
            }
        }
        guard spans >= tasks else { return nil }
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
    }
}
