import Foundation
import Testing
import OTLPTelemetry
import OTLPTesting
import OTLPWire
@testable import OTLPMetricKit

@Suite("MetricKit diagnostic payloads")
struct MetricKitDiagnosticTests {
    static func attributes(_ record: OTLPLogRecord) -> [String: OTLPAttributeValue] {
        Dictionary(record.attributes.map { ($0.key, $0.value ?? .empty) }, uniquingKeysWith: { $1 })
    }

    static func convert(_ options: MetricKitConverter.Options = .init()) throws -> MetricKitConverter.DiagnosticConversion {
        try MetricKitConverter(options: options, idGenerator: OTLPSequentialIDGenerator())
            .convertDiagnosticPayload(json: MetricKitConverterTests.sample("diagnostic-all-kinds.json"))
    }

    @Test("an MXDiagnosticPayload span over the period; one log record per diagnostic at its end, in the span's trace")
    func shape() throws {
        let result = try Self.convert()
        #expect(result.span.name == "MXDiagnosticPayload")
        #expect(result.span.startTimeUnixNano == (try #require(MetricKitTimestamp.unixNano("2025-06-03 09:14:00"))))
        #expect(result.span.endTimeUnixNano == (try #require(MetricKitTimestamp.unixNano("2025-06-03 17:42:00"))))
        #expect(
            result.logRecords.map(\.eventName)
                == ["app.crash"] + ["hang", "cpu_exception", "disk_write_exception", "app_launch"].map { "metrickit.diagnostic.\($0)" })
        #expect(
            result.logRecords.allSatisfy {
                $0.timeUnixNano == result.span.endTimeUnixNano && $0.traceID == result.span.traceID && $0.spanID == result.span.spanID
            })
        #expect(
            result.logRecords.map { Self.attributes($0)["metrickit.diagnostic.name"] }
                == ["crash", "hang", "cpu_exception", "disk_write_exception", "app_launch"].map { .string($0) })
        #expect(result.logRecords.map(\.severity) == [.fatal, .warn, .warn, .warn, .warn])
    }

    @Test("crash: Darwin exception and signal names, Objective-C exception, OpenTelemetry exception.*")
    func crash() throws {
        let crash = try Self.convert().logRecords[0]
        let a = Self.attributes(crash)
        #expect(crash.body == .string("EXC_CRASH (SIGABRT)"))
        // The semantic conventions' crash event, with the seed's attributes kept beside exception.*.
        #expect(crash.eventName == "app.crash")
        #expect(a["metrickit.diagnostic.name"] == .string("crash"))
        #expect(a["metrickit.diagnostic.crash.exception.mach_exception.type"] == .int(10))
        #expect(a["metrickit.diagnostic.crash.exception.mach_exception.name"] == .string("EXC_CRASH"))
        #expect(a["metrickit.diagnostic.crash.exception.signal"] == .int(6))
        #expect(a["metrickit.diagnostic.crash.exception.signal.name"] == .string("SIGABRT"))
        #expect(a["metrickit.diagnostic.crash.exception.code"] == .int(0))
        #expect(a["metrickit.diagnostic.crash.exception.termination_reason"] == .string("Namespace SIGNAL, Code 6, Abort trap: 6"))
        #expect(a["metrickit.diagnostic.crash.exception.objc.name"] != nil)
        #expect(a["exception.type"] == a["metrickit.diagnostic.crash.exception.objc.name"])
        #expect(a["exception.message"] == a["metrickit.diagnostic.crash.exception.objc.message"])
        #expect(a["metrickit.metadata.application_version"] == .string("4.2.0"))
        #expect(a["metrickit.metadata.pid"] == .int(3127))
        if case .array(let signposts)? = a["metrickit.diagnostic.crash.signposts"] {
            #expect(signposts.count == 2)
        } else {
            Issue.record("signposts")
        }
        // The raw tree round-trips as JSON; the readable trace is the attributed thread, innermost first.
        guard case .string(let json)? = a["metrickit.diagnostic.crash.exception.stacktrace_json"] else {
            Issue.record("no stacktrace_json"); return
        }
        #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8))) != nil)
        guard case .string(let trace)? = a["exception.stacktrace"] else { Issue.record("no exception.stacktrace"); return }
        #expect(trace.split(separator: "\n").count == 17)
        #expect(trace.hasPrefix("0 "))
    }

    @Test("hang, CPU, disk and launch values in base units")
    func values() throws {
        let records = try Self.convert().logRecords
        #expect(Self.attributes(records[1])["metrickit.diagnostic.hang.hang_duration"] == .double(3))
        #expect(Self.attributes(records[1])["metrickit.diagnostic.hang.hang_type"] == .string("Main Runloop Hang"))
        #expect(Self.attributes(records[2])["metrickit.diagnostic.cpu_exception.total_cpu_time"] == .double(62))
        #expect(Self.attributes(records[2])["metrickit.diagnostic.cpu_exception.total_sampled_time"] == .double(180))
        #expect(Self.attributes(records[3])["metrickit.diagnostic.disk_write_exception.total_writes_caused"] == .double(1_073_741_824))
        #expect(Self.attributes(records[4])["metrickit.diagnostic.app_launch.launch_duration"] == .double(3.21))
    }

    @Test("aggregated trees: the heaviest path, reversed (innermost first); frames without a binary name still print")
    func flameGraph() throws {
        let cpu = Self.attributes(try Self.convert().logRecords[2])
        guard case .string(let trace)? = cpu["exception.stacktrace"] else { Issue.record("no trace"); return }
        let lines = trace.split(separator: "\n")
        #expect(lines.count >= 2)
        #expect(cpu["metrickit.diagnostic.cpu_exception.stacktrace_json"] != nil)
        // The outermost frame of a flame graph (a root: parentIndex -1, the heaviest) is printed last.
        let json = try #require(
            { if case .string(let s)? = cpu["metrickit.diagnostic.cpu_exception.stacktrace_json"] { return s } else { return nil } }())
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let frames = try #require(((tree["callStacks"] as? [[String: Any]])?.first?["callStackFrames"]) as? [[String: Any]])
        let roots = frames.filter { ($0["parentIndex"] as? Int) == -1 }
        #expect(!roots.isEmpty && roots.allSatisfy { ($0["depth"] as? Int) == 0 })
        let root = roots.max { (($0["sampleCount"] as? Int) ?? 0) < (($1["sampleCount"] as? Int) ?? 0) }
        let rootName = (root?["binaryName"] as? String) ?? "???"
        #expect(lines.last?.contains(rootName) == true)
        // Every frame's parent comes before it and is one level up: the tree is rebuilt from the flat list.
        for (index, frame) in frames.enumerated() {
            let parent = try #require(frame["parentIndex"] as? Int), depth = try #require(frame["depth"] as? Int)
            #expect(parent < index)
            if parent >= 0 { #expect(frames[parent]["depth"] as? Int == depth - 1) }
        }
    }

    @Test("an oversized stack tree is cut to the limit and the cut is counted")
    func oversized() throws {
        let crash = Self.attributes(try Self.convert(.init(maxStacktraceJSONBytes: 500)).logRecords[0])
        guard case .string(let json)? = crash["metrickit.diagnostic.crash.exception.stacktrace_json"] else { Issue.record("none"); return }
        #expect(json.utf8.count <= 500)
        guard case .int(let cut)? = crash["metrickit.diagnostic.crash.exception.stacktrace_json_truncated_bytes"] else {
            Issue.record("not counted"); return
        }
        #expect(cut > 0)
        guard case .int(let frames)? = crash["metrickit.diagnostic.crash.exception.stacktrace_json_omitted_frames"] else {
            Issue.record("frames not counted"); return
        }
        #expect(frames > 0)
        #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8))) != nil, "cut between frames: still valid JSON")
        #expect(crash["exception.stacktrace"] != nil, "the readable trace is made from the whole tree")
    }

    @Test("unknown Darwin numbers are named as the reference does; missing sections give no records")
    func edges() throws {
        #expect(DarwinExceptionNames.mach(57).name == "Unknown exception type: 57")
        #expect(DarwinExceptionNames.signal(59).description == "Unknown signal: 59")
        let empty = try MetricKitConverter(idGenerator: OTLPSequentialIDGenerator()).convertDiagnosticPayload(
            json: Array(#"{"timeStampBegin": "2025-06-03 09:14:00", "timeStampEnd": "2025-06-03 09:14:00"}"#.utf8))
        #expect(empty.logRecords.isEmpty)
        // A diagnostic that is not an object is skipped and noted, not a failure of the payload.
        let odd = try MetricKitConverter().convertDiagnosticPayload(
            json: Array(#"{"timeStampBegin": "2025-06-03 09:14:00", "crashDiagnostics": [1]}"#.utf8))
        #expect(odd.logRecords.isEmpty)
        #expect(odd.skippedValues.map(\.path) == ["$.crashDiagnostics[0]"])
    }
}
