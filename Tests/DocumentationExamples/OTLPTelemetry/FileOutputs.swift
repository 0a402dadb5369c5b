// OTLPTelemetry.docc/FileOutputs.md.
import OTLPTelemetry
import Tracing

func writeRotatedGzipFiles() {
    let telemetry = OTLPTelemetry(
        configuration: .init(
            service: .init(name: "checkout"),
            traces: .init(path: "traces.u32be.bin.gz", gzip: true),
            durability: .fsync,
            rotation: .init(maxFileBytes: 10 << 20, maxAgeSeconds: 3_600, maxFiles: 5)))
    // A missing directory, a symbolic link, a path another pipeline holds: reported here and at every batch.
    for error in telemetry.openErrors { print(error) }

    telemetry.tracer.withSpan("GET /cart") { _ in }
    telemetry.shutdown()  // closes the files and releases their locks
}
