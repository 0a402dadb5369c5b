import Logging
import OTLPTelemetry
import OTLPWire
import Tracing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `make demo` runs: the pipeline as an app uses it. OTLPTelemetry is configured and bootstrapped
/// for swift-distributed-tracing and swift-log; a simulated launch, screen load and network calls (one
/// failing) produce spans and logs; shutdown writes everything, one signal per file.
///
/// usage: otlpwire-demo [OUTPUT_DIRECTORY]   (default demo-output)
@main
struct OTLPWireDemo {
    struct ServiceUnavailable: Error, CustomStringConvertible {
        var description: String { "503 Service Unavailable" }
    }

    static func main() async throws {
        let directory = CommandLine.arguments.dropFirst().first ?? "demo-output"
        mkdir(directory, 0o755)

        let telemetry = OTLPTelemetry(configuration: .init(
            service: .init(name: "otlpwire-demo", version: "0.1.0"),
            traces: .init(path: "\(directory)/traces.u32be.bin"),
            logs: .init(path: "\(directory)/logs.u32be.bin.gz", gzip: true)))
        telemetry.bootstrap()
        let logger = Logger(label: "demo")

        await withSpan("AppStart", ofKind: .internal) { launch in
            launch.attributes["launch.type"] = "COLD"
            logger.info("session started", metadata: ["session.id": "\(UInt64.random(in: 1...UInt64.max))"])
            await withSpan("HomeScreen") { screen in
                screen.attributes["view.name"] = "HomeScreen"
                for path in ["/v1/feed", "/v1/profile", "/v1/recommendations"] {
                    do {
                        try await withSpan("GET \(path)", ofKind: .client) { request in
                            request.attributes["http.request.method"] = "GET"
                            request.attributes["url.path"] = path
                            try await Task.sleep(nanoseconds: 20_000_000)  // the "network"
                            if path.hasSuffix("recommendations") {
                                request.attributes["http.response.status_code"] = 503
                                throw ServiceUnavailable()
                            }
                            request.attributes["http.response.status_code"] = 200
                            logger.info("GET \(path) -> 200", metadata: ["url.path": "\(path)"])
                        }
                    } catch {
                        logger.error("GET \(path) failed: \(error)", metadata: ["url.path": "\(path)"])
                    }
                }
                screen.setStatus(SpanStatus(code: .ok))
            }
        }
        telemetry.shutdown()
        print("wrote \(telemetry.counters.snapshot)")
    }
}
