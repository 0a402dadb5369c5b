/// The command line: which SDK, where the collector listens, how much and how to batch.
struct DeliveryOptions {
    static let usage = """
        usage: delivery-benchmark otlpwire|otlpwire-file|swift-otel [--endpoint URL] [--items N] [--queue N]
                                  [--batch N] [--delay-ms MS] [--no-gzip]
          otlpwire     OTLPTelemetry's otlp section through OTLPHTTPExporterFactory (protobuf, gzip)
          otlpwire-file  the same pipeline writing u32be files (one gzip member per batch) in a temporary
                       directory instead: the file path delivery is measured against
          swift-otel   swift-otel's tracing and logging backends with its OTLP/HTTP exporter (protobuf)
          --endpoint   the collector's OTLP/HTTP base URL (default http://127.0.0.1:4318)
          --items      spans, and log records (default 100000)
          --queue      batch processor queue size, both SDKs (default: items, at most 1048576: nothing dropped)
          --batch      items per export (default 512), --delay-ms schedule delay (default 1000)
          --no-gzip    ask both SDKs for uncompressed bodies
        Prints one JSON line per signal.
        """

    var mode: String
    var endpoint = "http://127.0.0.1:4318"
    var items = 100_000
    var maxQueueSize: Int?
    var maxExportBatchSize = 512
    var scheduleDelaySeconds = 1.0
    var gzip = true

    /// Parses `arguments` (without the program name); nil if they are not understood.
    init?(_ arguments: [String]) {
        var arguments = arguments[...]
        guard let mode = arguments.popFirst(), ["otlpwire", "otlpwire-file", "swift-otel"].contains(mode) else { return nil }
        self.mode = mode
        while let flag = arguments.popFirst() {
            switch flag {
            case "--no-gzip": gzip = false
            case "--endpoint": guard let value = arguments.popFirst() else { return nil }; endpoint = value
            case "--items": guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else { return nil }; items = value
            case "--queue": guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else { return nil }; maxQueueSize = value
            case "--batch":
                guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else { return nil }; maxExportBatchSize = value
            case "--delay-ms":
                guard let value = arguments.popFirst().flatMap({ Double($0) }), value > 0 else { return nil };
                scheduleDelaySeconds = value / 1000
            default: return nil
            }
        }
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
    }

    /// The queue size both SDKs get: as given, else room for every item (within OTLPWire's range).
    var queueSize: Int { maxQueueSize ?? min(max(items, maxExportBatchSize), 1 << 20) }
}
