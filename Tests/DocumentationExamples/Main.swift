// Runs one documentation example in the current directory, so that each runs in a process of its own (some
// bootstrap swift-distributed-tracing and swift-log, which is once per process) and writes where the test
// says. Usage: otlp-doc-examples NAME [ARGUMENT...]; `--list` prints the names. Not an example itself: the
// examples are the other files of this folder, each named in the documentation it belongs to.
import Foundation
import OTLPInstrumentation
import OTLPTelemetry
import OTLPWire
import Tracing

@main
struct DocumentationExamplesMain {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first else {
            FileHandle.standardError.write(Data("usage: otlp-doc-examples NAME [ARGUMENT...] | --list\n".utf8))
            exit(64)
        }
        if name == "--list" {
            print(examples.keys.sorted().joined(separator: "\n"))
            return
        }
        guard let example = examples[name] else {
            FileHandle.standardError.write(Data("otlp-doc-examples: no example \(name)\n".utf8))
            exit(64)
        }
        do {
            try example(Array(arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("otlp-doc-examples: \(name): \(error)\n".utf8))
            exit(1)
        }
    }

    /// An example's missing argument, as an error the runner reports (not a trap).
    struct MissingArgument: Error, CustomStringConvertible {
        var position: Int
        var description: String { "argument \(position + 1) is missing" }
    }

    /// The argument at `position`, or ``MissingArgument``.
    static func argument(_ position: Int, of arguments: [String]) throws -> String {
        guard arguments.indices.contains(position) else { throw MissingArgument(position: position) }
        return arguments[position]
    }

    /// Runs an async example to its end, from the synchronous runner.
    static func waitFor(_ operation: @escaping @Sendable () async throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: (any Error)?
        Task {
            do { try await operation() } catch { failure = error }
            done.signal()
        }
        done.wait()
        if let failure { throw failure }
    }

    /// Every example, by the name the tests use, with what it needs around it.
    static let examples: [String: @Sendable ([String]) throws -> Void] = [
        // README.md
        "readme-otlpwire": { _ in print(try writeAndReadTraces()) },
        "readme-otlptelemetry": { arguments in runCheckout(orders: arguments.first.flatMap { Int($0) } ?? 100) },
        "readme-otlphttp": { arguments in deliverToCollector(endpoint: try argument(0, of: arguments)) },
        "readme-otlpinstrumentation": { _ in
            let telemetry = OTLPTelemetry(configuration: .init(traces: .init(path: "traces.u32be.bin")))
            try launchAndShowHome(telemetry: telemetry)
            telemetry.shutdown()
        },
        "readme-otlpmetrickit": { arguments in
            for path in arguments {
                let (spans, logRecords) = try convertUploadedPayload(at: path)
                print("\(spans.count) \(logRecords.count)")
            }
        },
        "readme-otlptesting": { _ in
            guard let span = try recordOnePaymentSpan() else { return }
            print(span.name, span.durationNano, span.traceID?.description ?? "", span.spanID?.description ?? "")
        },
        // OTLPWire
        "otlpwire-landing": { _ in
            let span = OTLPSpan(
                traceID: OTLPTraceID(high: 1, low: 2), spanID: OTLPSpanID(3), name: "pay", startTimeUnixNano: 1, endTimeUnixNano: 2)
            try writeAndReadRecords(resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "checkout"), span: span)
        },
        "getting-started": { arguments in
            try writeTracesAndLogs()
            for path in ["traces.u32be.bin", "logs.jsonl.gz"] + arguments { print(describeFile(at: path).joined(separator: "\n")) }
        },
        "file-formats": { _ in
            let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "checkout")])
            let scope = OTLPInstrumentationScope(name: "checkout")
            let span = OTLPSpan(
                traceID: OTLPTraceID(high: 1, low: 2), spanID: OTLPSpanID(3), name: "pay", startTimeUnixNano: 10, endTimeUnixNano: 20,
                attributes: [OTLPAttribute("amount", 12.5)])
            print(try encodeAndDecodeOneRequest(OTLPTracesData(resource: resource, scope: scope, items: [span])))
            let record = OTLPLogRecord(timeUnixNano: 10, severity: .info, body: "paid")
            print(try writeAndReadVarintLogs(OTLPLogsData(resource: resource, scope: scope, items: [record, record])))
        },
        "reading-hostile-input": { arguments in
            for path in arguments {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                switch readUntrustedUpload(bytes, name: URL(fileURLWithPath: path).lastPathComponent) {
                case .success(let items): print("\(items) items")
                case .failure(let error): print(explain(error))
                }
            }
            print(readCollectorAnswer(status: 200, body: OTLPExportResponse().encoded(for: .traces)))
            print(
                readCollectorAnswer(
                    status: 200, body: OTLPExportResponse(rejectedItems: 2, errorMessage: "too old").encoded(for: .traces)))
            print(readCollectorAnswer(status: 400, body: OTLPRPCStatus(code: 3, message: "bad span").encoded()))
            print(readCollectorAnswer(status: 404, body: Array("<html>".utf8)))
        },
        "otlpwire-doc-comments": { _ in
            let span = OTLPSpan(
                traceID: OTLPTraceID(high: 1, low: 2), spanID: OTLPSpanID(3), name: "pay", startTimeUnixNano: 1, endTimeUnixNano: 2)
            let (resource, scope) = (OTLPResource(), OTLPInstrumentationScope(name: "checkout"))
            try writeSpansToAFile([span, span], resource: resource, scope: scope)
            let refusal = OTLPRPCStatus(code: 3, message: "bad span").encoded()
            let partial = OTLPExportResponse(rejectedItems: 1, errorMessage: "too old").encoded(for: .traces)
            print(try countSpansInAFile(at: "traces.u32be.bin"), encodeSpans([span], resource: resource, scope: scope).count > 0)
            print(try describeRefusal(body: refusal))
            print(try describePartialSuccess(body: partial) ?? "-", try describePartialSuccess(body: []) ?? "-")
            do throws(OTLPReadError) {
                _ = try OTLPDecoder(options: OTLPDecodingOptions(maxRecordBytes: 4)).decodeTraces(
                    encodeSpans([span], resource: resource, scope: scope))
            } catch {
                print(isOverALimit(error))
            }
        },
        "architecture": { _ in
            let logs = OTLPLogsData(
                resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "a"),
                items: [OTLPLogRecord(timeUnixNano: 1), OTLPLogRecord(timeUnixNano: 2)])
            print(countItems(in: logs), encodeEitherSignal(logs).count == OTLPEncoder().encode(logs).count)
        },
        // OTLPTelemetry
        "otlptelemetry-landing": { _ in traceACheckout() },
        "configuration": { arguments in
            let loaded = try loadConfiguration(path: try argument(0, of: arguments))
            print(loaded.service.name ?? "", loaded.batch.maxQueueSize)
            let inCode = try configurationInCode()
            print(inCode.sampling.ratio, inCode.batch.scheduleDelaySeconds)
            print(environmentOverDefaults().joined(separator: "\n"))
        },
        "pipeline": { _ in
            let telemetry = makeTelemetryWithProcessors(
                configuration: .init(traces: .init(path: "traces.u32be.bin"), logs: .init(path: "logs.u32be.bin")))
            telemetry.tracer.withSpan("GET /cart") { _ in }
            recordWhatAlreadyHappened(
                telemetry: telemetry, startUnixNano: 1_700_000_000_000_000_000, endUnixNano: 1_700_000_000_500_000_000)
            logAFailure(telemetry: telemetry)
            telemetry.logEmitter.emit(OTLPLogRecord(timeUnixNano: 1, body: "signed in", attributes: [OTLPAttribute("user.email", "a@b.c")]))
            telemetry.shutdown()
        },
        "pipeline-hand-assembled": { _ in handAssembledTracer() },
        "file-outputs": { _ in writeRotatedGzipFiles() },
        "diagnostics": { _ in print(collectDiagnostics().joined(separator: "\n")) },
        "bootstrap-and-shutdown": { _ in bootstrapSwiftLogYourself() },
        // OTLPServiceLifecycle
        "otlpservicelifecycle-landing": { _ in try waitFor { try await runCheckoutService() } },
        // OTLPHTTP
        "otlphttp-landing": { _ in deliverAsTheEnvironmentSays() },
        "delivery": { arguments in
            deliverSpansAsJSON(endpoint: try argument(0, of: arguments))
            handAssembledHTTPTracer(endpoint: try argument(0, of: arguments))
        },
        "the-spool": { arguments in spoolThenDeliver(endpoint: try argument(0, of: arguments)) },
        // OTLPInstrumentation
        "app-launch": { arguments in
            let app = try loadAppConfiguration(path: try argument(0, of: arguments))
            let telemetry = OTLPTelemetry(configuration: app.telemetry)
            if app.isStartupEnabled { recordColdAndWarmLaunches(telemetry: telemetry) }
            telemetry.shutdown()
        },
        "view-tracing": { _ in
            let telemetry = OTLPTelemetry(configuration: .init(traces: .init(path: "traces.u32be.bin")))
            print(traceCartScreen(telemetry: telemetry, enabled: true), traceCartScreen(telemetry: telemetry, enabled: false))
            telemetry.shutdown()
        },
        "sessions": { arguments in
            let (telemetry, sessions) = try startTelemetryWithSessions(
                configurationPath: try argument(0, of: arguments), sessionDirectory: "sessions")
            telemetry.tracer.withSpan("GET /cart") { _ in }
            telemetry.logEmitter.emit(OTLPLogRecord(timeUnixNano: OTLPSystemClock().nowUnixNano(), body: "cart loaded"))
            print(sessions?.currentSession.id ?? "no sessions")
            telemetry.shutdown()
        },
        "when-the-app-crashes": { arguments in
            let telemetry = startTelemetryRecoveringCrashes(stateDirectory: "state")
            let launch = AppLaunchInstrumentation(telemetry: telemetry)
            launch.phase("launch.load") {
                if arguments.first == "crash" { kill(getpid(), SIGKILL) }
            }
            NotificationCenter.default.post(name: OTLPAppLifecycle.didFinishLaunching, object: nil)
            telemetry.shutdown()
        },
        // OTLPMetricKit
        "mapping": { arguments in
            let metric = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try argument(0, of: arguments))))
            let diagnostic = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try argument(1, of: arguments))))
            let (spans, logRecords) = try convertBothKinds(metricJSON: metric, diagnosticJSON: diagnostic)
            try writeConverted(spans: spans, logRecords: logRecords)
            print(spans.count, logRecords.count)
        },
        // OTLPTesting
        "otlptesting-landing": { _ in
            for (scope, span) in try recordAPaySpan() { print(scope?.name ?? "", span.name, span.durationNano) }
        },
        "recording-spans": { _ in
            print(try recordAViewsSpans().joined(separator: ","))
            let telemetry = deterministicTelemetry()
            telemetry.tracer.withSpan("step") { _ in }
            telemetry.shutdown()
        },
    ]
}
