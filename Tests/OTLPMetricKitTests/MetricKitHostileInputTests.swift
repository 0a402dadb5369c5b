import Foundation
import Testing
import OTLPTelemetry
import OTLPTesting
import OTLPWire
@testable import OTLPMetricKit

/// Payloads built to hit the converter's edges: numbers whose arithmetic overflows, deep call stacks and
/// values, types nobody expects, and names that only look like structure.
@Suite("MetricKit hostile inputs")
struct MetricKitHostileInputTests {
    static let period = #""timeStampBegin": "2025-06-03 09:14:00", "timeStampEnd": "2025-06-03 17:42:00""#

    static func converter(_ options: MetricKitConverter.Options = .init()) -> MetricKitConverter {
        MetricKitConverter(options: options, idGenerator: OTLPSequentialIDGenerator())
    }

    static func attributes(_ items: [OTLPAttribute]) -> [String: OTLPAttributeValue] {
        Dictionary(items.map { ($0.key, $0.value ?? .empty) }, uniquingKeysWith: { $1 })
    }

    /// Expects `json` to fail as one payload error at `path` whose message contains `message`.
    static func expectFailure(
        _ json: String, path: String, message: String = "", options: MetricKitConverter.Options = .init(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let result = try converter(options).convertPayload(json: Array(json.utf8))
            Issue.record("converted, expected an error at \(path): \(result)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.path == path, "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(message), "\(error)", sourceLocation: sourceLocation)
        }
    }

    /// A crash whose attributed thread is a chain of `frames` frames (`subFrames` nesting, as MetricKit writes it).
    static func crashPayload(frames: Int, loadAddressAt badFrame: Int? = nil) -> String {
        var tree = ""
        for index in 0..<frames {
            let offset = index == badFrame ? 9_000_000_000 : 1_000 + index
            tree += #"{"binaryUUID": "70B89F27-1634-3580-A695-57CDB41D7743", "offsetIntoBinaryTextSegment": \#(offset), "#
            tree += #""sampleCount": 1, "binaryName": "TrailApp", "address": \#(4_295_000_000 + index * 4)"#
            if index < frames - 1 { tree += #", "subFrames": ["# }
        }
        for index in (0..<frames).reversed() { tree += index < frames - 1 ? "]}" : "}" }
        return #"{\#(period), "crashDiagnostics": [{"diagnosticMetaData": {"exceptionType": 1, "signal": 11, "appVersion": "4.2.0"}, "#
            + #""callStackTree": {"callStackPerThread": true, "callStacks": [{"threadAttributed": true, "callStackRootFrames": [\#(tree)]}]}}]}"#
    }

    /// The output as the readers see it with default limits: protobuf and OTLP JSON, traces and logs.
    static func expectReadable(_ result: MetricKitConverter.DiagnosticConversion, sourceLocation: SourceLocation = #_sourceLocation) throws
    {
        let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "test")])
        let scope = OTLPInstrumentationScope(name: "test")
        let logs = OTLPLogsData(resource: resource, scope: scope, items: result.logRecords)
        let traces = OTLPTracesData(resource: resource, scope: scope, items: [result.span])
        let decodedLogs = try OTLPDecoder(options: .default).decodeLogs(OTLPEncoder().encode(logs))
        #expect(decodedLogs.itemCount == result.logRecords.count, sourceLocation: sourceLocation)
        _ = try OTLPDecoder(options: .default).decodeTraces(OTLPEncoder().encode(traces))
        let json = OTLPJSONEncoder().encode(logs)
        _ = try json.withUnsafeBytes { (bytes) throws(OTLPReadError) in try OTLPJSONDecoder(options: .default).decodeLogs(bytes) }
    }

    static func string(_ value: OTLPAttributeValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }

    // MARK: - Arithmetic

    @Test(
        "numbers whose arithmetic overflows are payload errors naming the JSON path, never traps",
        arguments: [
            // Bucket counts adding up past Int64.
            (
                #"{\#(period), "applicationLaunchMetrics": {"histogrammedTimeToFirstDrawKey": {"histogramValue": {"#
                    + #""0": {"bucketCount": 9223372036854775807, "bucketStart": "1 ms", "bucketEnd": "2 ms"}, "#
                    + #""1": {"bucketCount": 9223372036854775807, "bucketStart": "2 ms", "bucketEnd": "3 ms"}}}}}"#,
                "$.applicationLaunchMetrics.histogrammedTimeToFirstDrawKey", "add up to more than"
            ),
            // A bucket bound beyond Double once in its base unit.
            (
                #"{\#(period), "applicationResponsivenessMetrics": {"histogrammedAppHangTime": {"histogramValue": {"#
                    + #""0": {"bucketCount": 1, "bucketStart": "1 hr", "bucketEnd": "1\#(String(repeating: "0", count: 306)) hr"}}}}}"#,
                "$.applicationResponsivenessMetrics.histogrammedAppHangTime.histogramValue.0", "beyond the range"
            ),
            // A measurement whose number is infinite as a Double, and one whose unit factor makes it so.
            (
                #"{\#(period), "memoryMetrics": {"peakMemoryUsage": "1\#(String(repeating: "0", count: 400)) kB"}}"#,
                "$.memoryMetrics.peakMemoryUsage", "beyond the range"
            ),
            (
                #"{\#(period), "networkTransferMetrics": {"cumulativeWifiUpload": "1\#(String(repeating: "0", count: 300)) TB"}}"#,
                "$.networkTransferMetrics.cumulativeWifiUpload", "beyond the range"
            ),
            // A standard deviation scaled by the average's unit.
            (
                #"{\#(period), "memoryMetrics": {"averageSuspendedMemory": {"averageValue": "1 GB", "standardDeviation": 1e300, "sampleCount": 2}}}"#,
                "$.memoryMetrics.averageSuspendedMemory.standardDeviation", "beyond the range"
            ),
            // Frame address minus a load address above it.
            (
                crashPayload(frames: 3, loadAddressAt: 1),
                "$.crashDiagnostics[0].callStackTree.callStacks[0].callStackRootFrames[0].subFrames[0].offsetIntoBinaryTextSegment",
                "above the frame's address"
            ),
        ])
    func overflow(json: String, path: String, message: String) {
        Self.expectFailure(json, path: path, message: message)
    }

    @Test("options out of range are refused by the converter, whatever the number")
    func options() {
        let json = #"{\#(Self.period)}"#
        for offset in [Int.min, Int.max, -64_801, 64_801] {
            Self.expectFailure(json, path: "$", message: "assumed UTC offset", options: .init(assumedUTCOffsetSeconds: offset))
            #expect(MetricKitTimestamp.unixNano("2022-11-14 00:00:00", assumedUTCOffsetSeconds: offset) == nil)
        }
        for offset in [-64_800, 64_800] {
            #expect(MetricKitTimestamp.unixNano("2022-11-14 00:00:00", assumedUTCOffsetSeconds: offset) != nil)
        }
        Self.expectFailure(json, path: "$", message: "maxStacktraceJSONBytes", options: .init(maxStacktraceJSONBytes: -1))
        for depth in [Int.min, 0, MetricKitConverter.Options.maxPayloadNestingDepthLimit + 1, Int.max] {
            Self.expectFailure(json, path: "$", message: "maxPayloadNestingDepth", options: .init(maxPayloadNestingDepth: depth))
        }
    }

    @Test("timestamps: offsets and fields out of range are not timestamps; the other timestamp is used, the bad one noted")
    func timestamps() throws {
        for text in [
            "2022-11-14 00:00:00 +9900", "2022-11-14 00:00:00 +-100", "2022-11-14 00:00:00 +0060", "2022-11-14 00:00:00 +1900",
            "2022-+1-14 00:00:00", "99999-11-14 00:00:00", "2022-11-14 -1:00:00",
        ] {
            #expect(MetricKitTimestamp.unixNano(text) == nil, "\(text)")
        }
        #expect(MetricKitTimestamp.unixNano("2022-11-14 00:00:00 +1800") != nil)
        let result = try Self.converter().convertPayload(
            json: Array(#"{"timeStampBegin": "2022-11-14 00:00:00 +9900", "timeStampEnd": "2022-11-14 01:00:00"}"#.utf8))
        guard case .metric(let metric) = result else { Issue.record("not a metric payload"); return }
        #expect(metric.skippedValues.map(\.path) == ["$.timeStampBegin"])
        #expect(metric.spans[0].startTimeUnixNano == metric.spans[0].endTimeUnixNano)
    }

    @Test("histogram statistics are nil, not traps, when counts overflow or are negative")
    func histogramTotals() {
        let overflowing = MetricKitHistogram(
            buckets: [.init(start: 0, end: 1, count: .max), .init(start: 1, end: 2, count: 1)], unit: .seconds)
        #expect(overflowing.totalCount == nil && overflowing.average == nil && overflowing.percentile(0.5) == nil)
        let negative = MetricKitHistogram(buckets: [.init(start: 0, end: 1, count: -3), .init(start: 1, end: 2, count: 5)], unit: .seconds)
        #expect(negative.totalCount == nil && negative.average == nil)
        let huge = MetricKitHistogram(
            buckets: [.init(start: .greatestFiniteMagnitude, end: .greatestFiniteMagnitude, count: 4)], unit: .bytes)
        #expect(huge.average == .greatestFiniteMagnitude, "the midpoint and the mean are computed without overflowing")
        #expect(huge.percentile(0.99) == .greatestFiniteMagnitude)
        let heavy = MetricKitHistogram(buckets: [.init(start: 1e302, end: 2e302, count: 9_000_000_000_000_000_000)], unit: .bytes)
        #expect(abs((heavy.average ?? 0) / 1.5e302 - 1) < 1e-12)
    }

    @Test("addresses above Int64.max are read and printed")
    func highAddresses() throws {
        let json =
            #"{\#(Self.period), "crashDiagnostics": [{"callStackTree": {"callStackPerThread": true, "callStacks": [{"threadAttributed": true, "callStackRootFrames": [{"binaryName": "App", "address": 18446744073709551615, "offsetIntoBinaryTextSegment": 16}]}]}}]}"#
        let result = try Self.converter().convertDiagnosticPayload(json: Array(json.utf8))
        let trace = try #require(Self.string(Self.attributes(result.logRecords[0].attributes)["exception.stacktrace"]))
        #expect(trace.contains("0xffffffffffffffff App + 16"), "\(trace)")
    }

    // MARK: - Classification

    @Test("the payload kind is decided by top-level structure, never by text in values or nested keys")
    func classification() throws {
        let metric =
            #"{\#(Self.period), "metaData": {"crashDiagnostics": "hangDiagnostics", "deviceType": "\"crashDiagnostics\""}, "#
            + #""futureMetrics": {"nested": {"crashDiagnostics": [{"a": 1}], "appLaunchDiagnostics": []}}, "#
            + #""signpostMetrics": [{"signpostName": "crashDiagnostics", "signpostCategory": "\"hangDiagnostics\": ["}], "#
            + #""crashDiagnostics": "not an array"}"#
        #expect(try Self.converter().payloadKind(json: Array(metric.utf8)) == .metric)
        guard case .metric(let result) = try Self.converter().convertPayload(json: Array(metric.utf8)) else {
            Issue.record("a metric payload was classified as diagnostic")
            return
        }
        #expect(result.spans.map(\.name) == ["MXMetricPayload", "MXSignpostMetric"])
        #expect(Self.attributes(result.spans[1].attributes)["signpost.name"] == .string("crashDiagnostics"))

        for key in MetricKitConverter.diagnosticKinds.map(\.array) {
            // A diagnostic array with entries decides; an empty one only when nothing else is there, so the
            // metrics of a payload that also carries an empty `crashDiagnostics: []` are not lost.
            let diagnostic = #"{\#(Self.period), "cpuMetrics": {"cumulativeCPUTime": "1 sec"}, "\#(key)": [{"version": "1.0.0"}]}"#
            #expect(try Self.converter().payloadKind(json: Array(diagnostic.utf8)) == .diagnostic, "\(key)")
            let emptyDiagnostic = #"{\#(Self.period), "\#(key)": []}"#
            #expect(try Self.converter().payloadKind(json: Array(emptyDiagnostic.utf8)) == .diagnostic, "\(key)")
            let metricWithEmptyArray = #"{\#(Self.period), "cpuMetrics": {"cumulativeCPUTime": "1 sec"}, "\#(key)": []}"#
            #expect(try Self.converter().payloadKind(json: Array(metricWithEmptyArray.utf8)) == .metric, "\(key)")
        }
    }

    // MARK: - Nesting

    @Test("deep crashes convert, and what is written passes the readers' default nesting limit", arguments: [1, 126, 1_000, 2_000])
    func deepCrash(frames: Int) throws {
        let result = try Self.converter().convertDiagnosticPayload(json: Array(Self.crashPayload(frames: frames).utf8))
        #expect(result.logRecords.count == 1)
        #expect(result.skippedValues.isEmpty, "\(result.skippedValues)")
        try Self.expectReadable(result)
        let a = Self.attributes(result.logRecords[0].attributes)
        let json = try #require(Self.string(a["metrickit.diagnostic.crash.exception.stacktrace_json"]))
        if frames <= 126 {
            let tree = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let list = try #require(((tree["callStacks"] as? [[String: Any]])?.first?["callStackFrames"]) as? [[String: Any]])
            #expect(list.count == frames)
            #expect(list.enumerated().allSatisfy { ($1["depth"] as? Int) == $0 && ($1["parentIndex"] as? Int) == $0 - 1 })
            #expect(a["metrickit.diagnostic.crash.exception.stacktrace_json_omitted_frames"] == nil)
        } else {
            // Cut between frames at 64 KiB: valid JSON, the cut counted.
            #expect(json.utf8.count <= 64 * 1024)
            #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8))) != nil)
            guard case .int(let omitted)? = a["metrickit.diagnostic.crash.exception.stacktrace_json_omitted_frames"] else {
                Issue.record("the cut is not counted")
                return
            }
            #expect(omitted > 0 && omitted < frames)
        }
        let lines = try #require(Self.string(a["exception.stacktrace"])).split(separator: "\n")
        #expect(lines.count == min(frames, 512) + (frames > 512 ? 1 : 0))
        if frames > 512 { #expect(lines.last == "... \(frames - 512) more frames") }
        #expect(lines.first?.hasPrefix("0   TrailApp") == true)
    }

    @Test("the payload nesting limit bounds hostile depth with a clear error, and can be set")
    func hostileDepth() {
        for json in [
            String(repeating: "[", count: 100_000), String(repeating: #"{"a":"#, count: 100_000),
            #"{\#(Self.period), "x": \#(String(repeating: "[", count: 5_000))1\#(String(repeating: "]", count: 5_000))}"#,
        ] {
            Self.expectFailure(json, path: "$", message: "nested deeper than 4096 levels")
        }
        Self.expectFailure(
            Self.crashPayload(frames: 126), path: "$", message: "nested deeper than 100 levels", options: .init(maxPayloadNestingDepth: 100)
        )
        Self.expectFailure(Self.crashPayload(frames: 2_050), path: "$", message: "--max-payload-nesting-depth")
        let limit = MetricKitConverter.Options.maxPayloadNestingDepthLimit
        #expect(throws: Never.self) {
            try Self.converter(.init(maxPayloadNestingDepth: limit)).convertPayload(
                json: Array(Self.crashPayload(frames: limit / 2 - 10).utf8))
        }
    }

    @Test(
        "the JSON parser accepts exactly what OTLPWire's parser accepts",
        arguments: [
            #"{"a": [1, -2.5e3, true, false, null, "x\"y\\u00e9\ud83d\ude00", {}, []]}"#, #"  {"a" : { "b" : [ ] } }  "#,
            #"{"a": 01}"#, #"{"a": 1,}"#, #"{"a" 1}"#, #"{"a": [1 2]}"#, #"{"a": tru}"#, #"{"a": "\x"}"#, #"{"a": "unterminated}"#,
            #"{"a": 1} x"#, #"{"a": "\ud800"}"#, "{\"a\": \"\u{1}\"}", #"{1: 2}"#, #"{"a": -}"#, #"{"a": [1,]}"#, "", "  ",
        ])
    func parserAgreement(json: String) {
        let bytes = Array(json.utf8)
        let ours = bytes.withUnsafeBufferPointer { try? MetricKitJSONParser.parse($0, maxDepth: 64) }
        let theirs = bytes.withUnsafeBufferPointer { try? JSONParser.parse($0, maxDepth: 64) }
        #expect(ours == theirs, "\(json)")
    }

    @Test("nested values from the payload never go deeper than readers accept: the deep part is kept as JSON text, noted")
    func deepAttributeValues() throws {
        let deep = String(repeating: #"{"a": ["#, count: 40) + "1" + String(repeating: "]}", count: 40)
        let json =
            #"{\#(Self.period), "hangDiagnostics": [{"diagnosticMetaData": {"hangDuration": "3 sec", "signpostData": [\#(deep), {"name": "flat"}]}}]}"#
        let result = try Self.converter().convertDiagnosticPayload(json: Array(json.utf8))
        try Self.expectReadable(result)
        #expect(
            result.skippedValues.contains {
                $0.message.contains("kept as JSON text") && $0.path.hasPrefix("$.hangDiagnostics[0].diagnosticMetaData.signpostData[0]")
            })
        guard case .array(let signposts)? = Self.attributes(result.logRecords[0].attributes)["metrickit.diagnostic.hang.signposts"] else {
            Issue.record("no signposts")
            return
        }
        #expect(signposts.count == 2)
        #expect(signposts[1] == .keyValueList([OTLPAttribute("name", "flat")]))
    }

    // MARK: - Tolerance

    @Test("unexpected types in known and unknown keys are skipped or kept as text, counted with their paths; the payload converts")
    func tolerance() throws {
        let json =
            #"{"timeStampBegin": "2022-11-14 00:00:00", "timeStampEnd": {"when": 1}, "appVersion": {"major": 4}, "#
            + #""multipleAppVersions": "maybe", "metaData": {"pid": 1.5, "appBuildVersion": 7, "regionFormat": null, "x": {"y": 1}, "z": [1], "#
            + #""lowPowerModeEnabled": true, "huge": 1e999}, "cpuMetrics": [], "memoryMetrics": {"peakMemoryUsage": {"a": 1}, "#
            + #""averageSuspendedMemory": {"averageValue": "10 MB", "standardDeviation": "wide", "sampleCount": -2}}, "#
            + #""gpuMetrics": {"cumulativeGPUTime": 12}, "signpostMetrics": [7, {"signpostName": 5, "totalSignpostCount": 2.5}], "#
            + #""applicationExitMetrics": {"foregroundExitData": {"cumulativeBadAccessExitCount": 1.5, "cumulativeFutureExitCount": "3"}}, "#
            + #""applicationLaunchMetrics": {"histogrammedResumeTime": {"histogramValue": {"0": {"bucketCount": -1, "bucketStart": "1 ms", "bucketEnd": "2 ms"}}}, "#
            + #""histogrammedTimeToFirstDrawKey": {"histogramValue": {"0": {"bucketCount": "many", "bucketStart": "1 ms", "bucketEnd": "2 ms"}, "1": {"bucketCount": 2, "bucketStart": "1 ms", "bucketEnd": "3 ms"}}}}}"#
        guard case .metric(let result) = try Self.converter().convertPayload(json: Array(json.utf8)) else {
            Issue.record("not metric"); return
        }
        let paths = Set(result.skippedValues.map(\.path))
        for path in [
            "$.timeStampEnd", "$.appVersion", "$.multipleAppVersions", "$.metaData.x", "$.metaData.z", "$.cpuMetrics",
            "$.memoryMetrics.peakMemoryUsage", "$.memoryMetrics.averageSuspendedMemory.standardDeviation",
            "$.memoryMetrics.averageSuspendedMemory.sampleCount", "$.signpostMetrics[0]", "$.signpostMetrics[1].totalSignpostCount",
            "$.applicationExitMetrics.foregroundExitData.cumulativeBadAccessExitCount", "$.applicationLaunchMetrics.histogrammedResumeTime",
            "$.applicationLaunchMetrics.histogrammedTimeToFirstDrawKey.histogramValue.0.bucketCount",
        ] {
            #expect(paths.contains(path), "\(path) not noted: \(result.skippedValues)")
        }
        #expect(paths.count == result.skippedValues.count, "a value read twice is noted once: \(result.skippedValues)")
        let a = Self.attributes(result.spans[0].attributes)
        #expect(a["metrickit.skipped_value_count"] == .int(Int64(result.skippedValues.count)))
        guard case .array(let listed)? = a["metrickit.skipped_values"] else { Issue.record("not listed"); return }
        #expect(listed.count == min(result.skippedValues.count, MetricKitConversionNotes.maxListedSkippedValues))
        #expect(a["metrickit.metadata.pid"] == .double(1.5))
        #expect(a["metrickit.metadata.app_build_version"] == .int(7))
        #expect(a["metrickit.metadata.low_power_mode_enabled"] == .bool(true))
        #expect(a["metrickit.metadata.huge"] == .string("1e999"))
        #expect(a["metrickit.metadata.region_format"] == nil)
        #expect(a["metrickit.gpu.time_raw"] == .string("12"))
        #expect(a["metrickit.memory.suspended_memory_average"] == .double(10_000_000))
        #expect(a["metrickit.app_exit.foreground.bad_access_exit_count"] == nil, "present but unreadable: not reported as 0")
        #expect(a["metrickit.app_exit.foreground.normal_app_exit_count"] == .int(0))
        #expect(a["metrickit.app_exit.foreground.future_exit_count"] == .int(3))
        #expect(a["metrickit.app_launch.time_to_first_draw_count"] == .int(2))
        #expect(a["metrickit.app_launch.app_resume_time_count"] == nil)
        #expect(a["metrickit.includes_multiple_application_versions"] == nil)
        #expect(Self.attributes(result.spans[1].attributes)["signpost.name"] == .string("5"))
    }

    @Test("diagnostics with unexpected types convert; the record and the span count what was skipped")
    func diagnosticTolerance() throws {
        let json =
            #"{\#(Self.period), "crashDiagnostics": [{"diagnosticMetaData": {"exceptionType": "EXC", "signal": 1.5, "objectiveCexceptionReason": "text", "terminationReason": ["a"], "#
            + #""signpostData": {"a": 1}}, "callStackTree": {"callStackPerThread": "yes", "callStacks": [1, {"callStackRootFrames": [null, 2, "#
            + #"{"binaryName": 5, "address": "0x10", "offsetIntoBinaryTextSegment": -4, "sampleCount": -1, "subFrames": {}}]}]}}, "#
            + #"{"callStackTree": [1]}], "hangDiagnostics": {"not": "an array"}}"#
        let result = try Self.converter().convertDiagnosticPayload(json: Array(json.utf8))
        #expect(result.logRecords.count == 2)
        try Self.expectReadable(result)
        let paths = Set(result.skippedValues.map(\.path))
        #expect(paths.count == result.skippedValues.count, "a value read twice is noted once: \(result.skippedValues)")
        let tree = "$.crashDiagnostics[0].callStackTree"
        for path in [
            "$.crashDiagnostics[0].diagnosticMetaData.exceptionType", "$.crashDiagnostics[0].diagnosticMetaData.signal",
            "$.crashDiagnostics[0].diagnosticMetaData.terminationReason",
            "$.crashDiagnostics[0].diagnosticMetaData.objectiveCexceptionReason", "$.crashDiagnostics[0].diagnosticMetaData.signpostData",
            "\(tree).callStackPerThread", "\(tree).callStacks[0]", "\(tree).callStacks[1].callStackRootFrames[1]",
            "\(tree).callStacks[1].callStackRootFrames[2].address",
            "\(tree).callStacks[1].callStackRootFrames[2].offsetIntoBinaryTextSegment",
            "\(tree).callStacks[1].callStackRootFrames[2].sampleCount", "\(tree).callStacks[1].callStackRootFrames[2].subFrames",
            "$.crashDiagnostics[1].callStackTree", "$.hangDiagnostics",
        ] {
            #expect(paths.contains(path), "\(path) not noted: \(result.skippedValues)")
        }
        let first = Self.attributes(result.logRecords[0].attributes)
        let second = Self.attributes(result.logRecords[1].attributes)
        #expect(
            first["metrickit.skipped_value_count"]
                == .int(Int64(result.skippedValues.filter { $0.path.hasPrefix("$.crashDiagnostics[0]") }.count)))
        #expect(second["metrickit.skipped_value_count"] == .int(1))
        #expect(Self.attributes(result.span.attributes)["metrickit.skipped_value_count"] == .int(Int64(result.skippedValues.count)))
        #expect(Self.string(first["exception.stacktrace"])?.contains("5 ") == true, "a numeric binary name is kept as text")
    }

    // MARK: - Size

    @Test(
        "thousands of metadata keys: at most the readers' attributes per item, the excess counted as dropped; large objects read in linear time"
    )
    func manyAttributes() throws {
        let keys = (0..<30_000).map { #""key\#($0)": \#($0)"# }.joined(separator: ", ")
        let buckets = (0..<100_000).map { #""\#($0)": {"bucketCount": 1, "bucketStart": "\#($0) ms", "bucketEnd": "\#($0 + 1) ms"}"# }
            .joined(separator: ", ")
        let json =
            #"{\#(Self.period), "metaData": {\#(keys)}, "applicationLaunchMetrics": {"histogrammedResumeTime": {"histogramValue": {\#(buckets)}}}, "cpuMetrics": [1]}"#
        guard case .metric(let result) = try Self.converter().convertPayload(json: Array(json.utf8)) else {
            Issue.record("not metric"); return
        }
        let span = result.spans[0]
        let limit = OTLPDecodingOptions.default.maxAttributesPerItem
        #expect(span.attributes.count == limit)
        #expect(Int(span.droppedAttributesCount) > 30_000 - limit)
        let a = Self.attributes(span.attributes)
        #expect(a["metrickit.skipped_value_count"] == .int(1), "the notes are kept when attributes are dropped")
        let data = OTLPTracesData(resource: OTLPResource(attributes: []), scope: OTLPInstrumentationScope(name: "t"), items: result.spans)
        let decoded = try OTLPDecoder(options: .default).decodeTraces(OTLPEncoder().encode(data))
        #expect(decoded.itemCount == result.spans.count)

        let diagnostic = #"{\#(Self.period), "hangDiagnostics": [{"diagnosticMetaData": {\#(keys)}}]}"#
        let logs = try Self.converter().convertDiagnosticPayload(json: Array(diagnostic.utf8))
        #expect(logs.logRecords[0].attributes.count == limit && logs.logRecords[0].droppedAttributesCount > 0)
        try Self.expectReadable(logs)
    }

    @Test("every skipped value is counted; the first 100 are kept with their paths, then one summary entry")
    func manySkipped() throws {
        let values = (0..<500).map { #"{"signpostName": {"n": \#($0)}}"# }.joined(separator: ", ")
        guard
            case .metric(let result) = try Self.converter().convertPayload(
                json: Array(#"{\#(Self.period), "signpostMetrics": [\#(values)]}"#.utf8))
        else {
            Issue.record("not metric")
            return
        }
        #expect(result.skippedValueCount == 500)
        #expect(result.skippedValues.count == MetricKitConversionNotes.maxRecordedSkippedValues + 1)
        #expect(result.skippedValues.last == MetricKitConversionError(path: "$", message: "400 more values skipped"))
        #expect(Self.attributes(result.spans[0].attributes)["metrickit.skipped_value_count"] == .int(500))
    }

    @Test("an array of 300,000 elements parses in linear time")
    func wideArray() throws {
        let json = #"{\#(Self.period), "x": [\#(Array(repeating: "1", count: 300_000).joined(separator: ","))]}"#
        let value = try Array(json.utf8).withUnsafeBufferPointer { try MetricKitJSONParser.parse($0, maxDepth: 8) }
        guard case .object(let members) = value, case .array(let elements)? = members.last?.1 else { Issue.record("shape"); return }
        #expect(elements.count == 300_000)
    }
}
