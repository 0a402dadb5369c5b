import COTLPShims
import Testing
@testable import OTLPWire

/// The pre-scan takes common fields (scalars, strings, IDs, repeated messages, attributes of the common shape)
/// in one step each and leaves everything else to the long way, field by field: both must give the same
/// verdict, offsets, counts and estimates for every input, damaged or not, under any limits.
@Suite("Pre-scan shortcuts")
struct PreScanShortcutTests {
    /// Requests whose spans and log records hold every attribute shape the shortcut takes and some it leaves.
    static let requests: [[UInt8]] = {
        var traces = SampleTelemetry.traces(6)
        var logs = SampleTelemetry.logs(6)
        let common: [OTLPAttribute] = [
            OTLPAttribute("http.url", "https://example.com/a/long/path/past/fifteen/bytes"), OTLPAttribute("short", "s"),
            OTLPAttribute("http.status_code", 200), OTLPAttribute("memory.delta", .int(-1_000_000)),
            OTLPAttribute("sample.ratio", .double(0.25)), OTLPAttribute("is.main.thread", true),
            OTLPAttribute("ünïcödé.kéy", "välüe 🚀"), OTLPAttribute(String(repeating: "k", count: 200), "v"),
        ]
        traces.append(
            OTLPSpan(
                traceID: SampleTelemetry.traceID, spanID: OTLPSpanID(5), name: "common", startTimeUnixNano: 1, endTimeUnixNano: 2,
                attributes: common, events: [OTLPSpanEvent(name: "e", timeUnixNano: 1, attributes: common)]),
            resource: SampleTelemetry.resource, scope: SampleTelemetry.scope)
        logs.append(
            OTLPLogRecord(timeUnixNano: 1, body: .string("body"), attributes: common), resource: SampleTelemetry.resource,
            scope: SampleTelemetry.scope)
        return [OTLPEncoder().encode(traces), OTLPEncoder().encode(logs)]
    }()

    /// Both scans of `bytes`; a description of the first difference, `nil` when they agree.
    static func difference(_ bytes: [UInt8], kind: Int32, limits: COTLPShims_ScanLimits) -> String? {
        var limits = limits
        var quick = COTLPShims_ScanResult()
        var longWay = COTLPShims_ScanResult()
        bytes.withUnsafeBufferPointer {
            COTLPShims_scan($0.baseAddress, $0.count, kind, &limits, &quick)
            COTLPShims_scan_long_way($0.baseAddress, $0.count, kind, &limits, &longWay)
        }
        let fields: [(String, Int, Int)] = [
            ("status", Int(quick.status), Int(longWay.status)), ("error_offset", quick.error_offset, longWay.error_offset),
            ("unknown_fields", quick.unknown_fields, longWay.unknown_fields), ("items", quick.items, longWay.items),
            ("max_depth_seen", quick.max_depth_seen, longWay.max_depth_seen),
            ("error_length", quick.error_length, longWay.error_length),
            ("unpacked_bytes", quick.unpacked_bytes, longWay.unpacked_bytes), ("model_bytes", quick.model_bytes, longWay.model_bytes),
            ("needs_merge", Int(quick.needs_merge), Int(longWay.needs_merge)),
            ("error_message", quick.error_message.map { Int(bitPattern: $0) } ?? 0, longWay.error_message.map { Int(bitPattern: $0) } ?? 0),
        ]
        return fields.first { $0.1 != $0.2 }.map { "\($0.0): \($0.1) with shortcuts, \($0.2) the long way" }
    }

    @Test("whole requests, as every signal, under the default limits: the same result both ways")
    func wholeRequests() {
        withUnsafePointer(to: OTLPDecoder.modelCosts) { costs in
            let limits = COTLPShims_ScanLimits(max_depth: 128, max_attributes: 128, max_unpacked_bytes: 64 << 20, model_costs: costs)
            for request in Self.requests {
                for kind in [COTLPSHIMS_KIND_TRACES, COTLPSHIMS_KIND_LOGS, COTLPSHIMS_KIND_METRICS] {
                    #expect(Self.difference(request, kind: Int32(kind), limits: limits) == nil)
                }
            }
        }
    }

    @Test("damaged requests and their pieces, under random limits: the same verdict, offset, counts and estimates")
    func damagedRequests() {
        var random = SplitMix64(state: 26)
        let bytesToSet: [UInt8] = [0x00, 0x0A, 0x10, 0x12, 0x18, 0x1A, 0x21, 0x22, 0x7F, 0x80, 0xC3, 0xFF]
        var differences = 0
        withUnsafePointer(to: OTLPDecoder.modelCosts) { costs in
            for _ in 0..<20_000 where differences < 5 {
                let request = Self.requests[random.below(Self.requests.count)]
                var bytes = random.chance(50) ? request : Array(request.prefix(1 + random.below(request.count)))
                for _ in 0..<random.below(4) {
                    let at = random.below(bytes.count)
                    switch random.below(3) {
                    case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                    case 1: bytes[at] ^= 1 << UInt8(random.below(8))
                    default: bytes[at] = bytesToSet[random.below(bytesToSet.count)]
                    }
                }
                let limits = COTLPShims_ScanLimits(
                    max_depth: random.chance(30) ? 128 : random.int(1...12),
                    max_attributes: random.chance(50) ? .max : random.below(12),
                    max_unpacked_bytes: random.chance(50) ? .max : random.below(bytes.count * 40 + 1),
                    model_costs: random.chance(70) ? costs : nil)
                let kind = Int32(random.below(3))
                if let difference = Self.difference(bytes, kind: kind, limits: limits) {
                    differences += 1
                    Issue.record("kind \(kind), \(bytes.count) bytes: \(difference)")
                }
            }
        }
    }
}
