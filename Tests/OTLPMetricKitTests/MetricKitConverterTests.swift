import Foundation
import Testing
import OTLPTelemetry
import OTLPTesting
import OTLPWire
@testable import OTLPMetricKit

@Suite("MetricKit metric payloads")
struct MetricKitConverterTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures/metrickit-samples")

    static func sample(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: samples.appendingPathComponent(name))) }

    static func attributes(_ span: OTLPSpan) -> [String: OTLPAttributeValue] {
        Dictionary(span.attributes.map { ($0.key, $0.value ?? .empty) }, uniquingKeysWith: { $1 })
    }

    static func double(_ value: OTLPAttributeValue?) -> Double? {
        if case .double(let double)? = value { return double }
        return nil
    }

    func convert(_ bytes: [UInt8]) throws -> [OTLPSpan] {
        try MetricKitConverter(idGenerator: OTLPSequentialIDGenerator()).convertMetricPayload(json: bytes)
    }

    @Test("metric-full.json: one MXMetricPayload span over the period, values in base units, histogram averages")
    func full() throws {
        let spans = try convert(Self.sample("metric-full.json"))
        let payload = try #require(spans.first)
        #expect(payload.name == "MXMetricPayload")
        #expect(payload.startTimeUnixNano == 1_748_822_400_000_000_000)  // 2025-06-02 00:00:00, read as UTC
        #expect(payload.endTimeUnixNano == 1_748_822_400_000_000_000 + 86_340_000_000_000)
        let a = Self.attributes(payload)
        #expect(a["metrickit.includes_multiple_application_versions"] == .bool(true))
        #expect(a["metrickit.latest_application_version"] == .string("4.2.0"))
        #expect(a["metrickit.cpu.cpu_time"] == .double(1843))
        #expect(a["metrickit.cpu.instruction_count"] == .double(9_120_344_871_000))
        #expect(a["metrickit.gpu.time"] == .double(212))
        #expect(a["metrickit.network_transfer.wifi_download"] == .double(251_877_000))
        #expect(a["metrickit.memory.peak_memory_usage"] == .double(311_408_000))
        #expect(a["metrickit.memory.suspended_memory_average"] == .double(97_330_000))
        #expect(a["metrickit.memory.suspended_memory_standard_deviation"] == .double(21_877_400))
        #expect(a["metrickit.memory.suspended_memory_sample_count"] == .int(12))
        #expect(a["metrickit.display.pixel_luminance_average"] == .double(38))
        #expect(a["metrickit.animation.scroll_hitch_time_ratio"] == .double(3))
        #expect(a["metrickit.animation.hitch_time_ratio"] == .double(5))
        #expect(a["metrickit.diskio.logical_write_count"] == .double(48_211_000))
        // The samples' documented bucket-midpoint means.
        for (name, expected, count) in [
            ("metrickit.app_launch.time_to_first_draw", 0.50117, 9), ("metrickit.app_launch.app_resume_time", 0.11307, 21),
            ("metrickit.app_launch.optimized_time_to_first_draw", 0.35164, 7), ("metrickit.app_launch.extended_launch", 0.7245, 3),
            ("metrickit.app_responsiveness.hang_time", 0.58783, 6), ("metrickit.cellular_condition.bars", 3.42, 100),
        ] {
            let average = try #require(Self.double(a["\(name)_average"]), "\(name)")
            #expect(abs(average - expected) < 0.00001, "\(name): \(average)")
            #expect(a["\(name)_count"] == .int(Int64(count)))
            let p50 = try #require(Self.double(a["\(name)_p50"])), p90 = try #require(Self.double(a["\(name)_p90"])),
                p99 = try #require(Self.double(a["\(name)_p99"]))
            #expect(p50 <= p90 && p90 <= p99, "\(name)")
        }
        // Metadata, snake_case; exit counters default to 0 when the OS left them out.
        #expect(a["metrickit.metadata.device_type"] == .string("iPhone16,1"))
        #expect(a["metrickit.metadata.platform_arch"] == .string("arm64e"))
        #expect(a["metrickit.metadata.pid"] == .int(-1))
        #expect(a["metrickit.metadata.is_test_flight_app"] == .bool(true))
        #expect(a["metrickit.metadata.bundle_identifier"] == .string("com.example.trailhead"))
        #expect(a["metrickit.app_exit.foreground.memory_resource_limit_exit_count"] == .int(2))
        #expect(a["metrickit.app_exit.foreground.bad_access_exit_count"] == .int(0))
        #expect(a["metrickit.app_exit.background.memory_pressure_exit_count"] == .int(14))
        #expect(a["metrickit.app_exit.background.bad_access_exit_count"] == .int(0))
        #expect(a.keys.allSatisfy { !$0.contains("-") }, "snake_case throughout")
        #expect(a["metrickit.disk_space_usage.binary_file_size"] == .double(98_304_000))
        #expect(a["metrickit.disk_space_usage.binary_file_count"] == .int(412))
    }

    @Test("signposts: MXSignpostMetric children over the payload window; event-only ones without interval data")
    func signposts() throws {
        let spans = try convert(Self.sample("metric-full.json"))
        let payload = spans[0]
        let signposts = spans.dropFirst()
        #expect(signposts.count == 3)
        #expect(
            signposts.allSatisfy { $0.name == "MXSignpostMetric" && $0.parentSpanID == payload.spanID && $0.traceID == payload.traceID })
        #expect(signposts.allSatisfy { $0.startTimeUnixNano == payload.startTimeUnixNano && $0.endTimeUnixNano == payload.endTimeUnixNano })
        let sync = try #require(signposts.first { Self.attributes($0)["signpost.name"] == .string("SyncTrails") })
        let a = Self.attributes(sync)
        #expect(a["signpost.category"] == .string("Sync") && a["signpost.count"] == .int(37))
        #expect(a["signpost.cpu_time"] == .double(8.411))
        #expect(a["signpost.memory_average"] == .double(18_220_000))
        #expect(a["signpost.logical_write_count"] == .double(3_390_000))
        #expect(a["signpost.duration_count"] == .int(37))
        #expect(signposts.contains { Self.attributes($0)["signpost.duration_average"] == nil }, "an event-only signpost has no durations")
    }

    @Test("metric-legacy-minimal.json: thousands separators, +0000 timestamps, missing sections, no-data average")
    func legacy() throws {
        let spans = try convert(Self.sample("metric-legacy-minimal.json"))
        #expect(spans.count == 1)
        let payload = spans[0]
        #expect(payload.startTimeUnixNano == 1_581_321_600_000_000_000)  // 2020-02-10 08:00:00 +0000
        let a = Self.attributes(payload)
        #expect(a["metrickit.memory.peak_memory_usage"] == .double(143_872_000))
        #expect(a["metrickit.cpu.cpu_time"] == .double(1096))
        #expect(a["metrickit.app_time.foreground_time"] == .double(2318))
        #expect(abs((Self.double(a["metrickit.app_launch.time_to_first_draw_average"]) ?? 0) - 0.78021) < 0.00001)
        #expect(a["metrickit.display.pixel_luminance_average"] == nil, "sampleCount 0 means no data")
        #expect(a["metrickit.cpu.instruction_count"] == nil && a["metrickit.gpu.time"] == nil)
        #expect(a["metrickit.includes_multiple_application_versions"] == .bool(false))
        #expect(a.keys.filter { $0.hasPrefix("metrickit.metadata.") }.count == 4)
    }

    @Test("measurement strings: units, grouping, localized units, unknown units kept raw")
    func measurements() {
        #expect(MetricKitMeasurement(parsing: "200,000 kB")?.value == 200_000_000)
        #expect(MetricKitMeasurement(parsing: "2,717秒") == MetricKitMeasurement(value: 2717, unit: .seconds, writtenUnitFactor: 1))
        #expect(MetricKitMeasurement(parsing: "820毫秒")?.value == 0.82)
        #expect(MetricKitMeasurement(parsing: "22,665千字节")?.value == 22_665_000)
        #expect(MetricKitMeasurement(parsing: "3 hr")?.value == 10_800)
        #expect(MetricKitMeasurement(parsing: "6 µs")?.value == 0.000006)
        #expect(MetricKitMeasurement(parsing: "16 kb")?.value == 2000)  // kilobits, not kilobytes
        #expect(MetricKitMeasurement(parsing: "1.5 sec")?.value == 1.5)
        #expect(MetricKitMeasurement(parsing: "12 furlongs") == nil)
        #expect(MetricKitMeasurement(parsing: "1,5 sec") == nil)  // a decimal comma is ambiguous
        #expect(MetricKitMeasurement(parsing: "sec") == nil)
    }

    @Test("timestamps with and without an offset; a configurable offset for zone-less ones")
    func timestamps() throws {
        // Unwrapped before comparing: with AddressSanitizer, Swift Testing's #expect on an Optional<UInt64>
        // reads past a stack slot (a toolchain issue, seen with Swift 6.3.1).
        func time(_ text: String, offset: Int = 0) throws -> UInt64 {
            try #require(MetricKitTimestamp.unixNano(text, assumedUTCOffsetSeconds: offset))
        }
        #expect(try time("2020-10-10 04:00:00 +0000") == 1_602_302_400_000_000_000)
        #expect(try time("2020-10-10 04:00:00 -0700") == 1_602_302_400_000_000_000 + 25_200_000_000_000)
        #expect(try time("2022-11-14 00:00:00") == 1_668_384_000_000_000_000)
        #expect(try time("2022-11-14 00:00:00", offset: 3600) == 1_668_380_400_000_000_000)
        #expect(MetricKitTimestamp.unixNano("yesterday") == nil)
        let json = Array(#"{"timeStampBegin": "2022-11-14 00:00:00", "timeStampEnd": "2022-11-14 23:59:00"}"#.utf8)
        let shifted = try MetricKitConverter(options: .init(assumedUTCOffsetSeconds: -8 * 3600), idGenerator: OTLPSequentialIDGenerator())
            .convertMetricPayload(json: json)
        #expect(shifted[0].startTimeUnixNano == 1_668_384_000_000_000_000 + 28_800_000_000_000)
    }

    @Test("histogram percentiles interpolate within buckets")
    func percentiles() {
        let histogram = MetricKitHistogram(
            buckets: [.init(start: 0, end: 10, count: 50), .init(start: 10, end: 20, count: 50)], unit: .seconds)
        #expect(histogram.average == 10)
        #expect(histogram.percentile(0.5) == 10)
        #expect(histogram.percentile(0.9) == 18)
        #expect(histogram.percentile(0.25) == 5)
    }

    @Test(
        "a payload that cannot be converted at all names the JSON path",
        arguments: [
            (#"{"timeStampBegin": "not a time"}"#, "$.timeStampBegin"),
            (#"[1, 2]"#, "$"),
            (#"{"appVersion": "1.0"}"#, "$"),
            (#"{"timeStampBegin": "2022-"#, "$"),
        ])
    func badInput(json: String, path: String) {
        #expect {
            try convert(Array(json.utf8))
        } throws: { error in
            (error as? MetricKitConversionError)?.path == path
        }
    }

    @Test("unknown sections and keys are ignored; an unknown unit is kept raw")
    func tolerant() throws {
        let spans = try convert(
            Array(
                #"{"timeStampBegin": "2022-11-14 00:00:00", "futureMetrics": {"x": 1}, "gpuMetrics": {"cumulativeGPUTime": "3 lightyears", "newKey": true}}"#
                    .utf8))
        let a = Self.attributes(spans[0])
        #expect(a["metrickit.gpu.time_raw"] == .string("3 lightyears"))
        #expect(a["metrickit.gpu.time"] == nil)
    }
}
