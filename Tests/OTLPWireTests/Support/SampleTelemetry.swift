@testable import OTLPWire

/// Small, varied telemetry for writer and reader tests: every AnyValue kind, U+0000 in strings, events,
/// links, status, several resources and scopes.
enum SampleTelemetry {
    static let resource = OTLPResource(attributes: [
        OTLPAttribute("service.name", "sample-app"), OTLPAttribute("service.version", "1.2.3"),
    ])
    static let otherResource = OTLPResource(attributes: [OTLPAttribute("service.name", "other")], droppedAttributesCount: 2)
    static let scope = OTLPInstrumentationScope(name: "tests", version: "0.1")
    static let traceID = OTLPTraceID(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_0D0E_0F10)

    static func span(_ index: Int) -> OTLPSpan {
        OTLPSpan(
            traceID: traceID, spanID: OTLPSpanID(UInt64(index + 1)),
            parentSpanID: index == 0 ? nil : OTLPSpanID(1),
            name: "span-\(index) with \u{0}nul and ünïcödé 🚀",
            kind: OTLPSpanKind(rawValue: Int32(index % 6)),
            startTimeUnixNano: 1_700_000_000_000_000_000 + UInt64(index) * 1_000,
            endTimeUnixNano: 1_700_000_000_000_000_000 + UInt64(index) * 1_000 + 500,
            attributes: [
                OTLPAttribute("s", .string("")), OTLPAttribute("b", false), OTLPAttribute("i", .int(Int64.min)),
                OTLPAttribute("d", .double(-0.0)), OTLPAttribute("bytes", .bytes([0, 255, 1])),
                OTLPAttribute("arr", [1, "two", [3.5]]),
                OTLPAttribute("kv", .keyValueList([OTLPAttribute("nested", .keyValueList([OTLPAttribute("x", nil)]))])),
                OTLPAttribute("empty", .empty), OTLPAttribute("", "empty key"),
            ],
            events: [OTLPSpanEvent(name: "tap", timeUnixNano: 1_700_000_000_000_000_100, attributes: [OTLPAttribute("n", 1)])],
            links: [OTLPSpanLink(traceID: traceID, spanID: OTLPSpanID(99), traceState: "a=b", flags: 0x301)],
            status: index % 2 == 0 ? OTLPSpanStatus(code: .error, message: "failed") : OTLPSpanStatus(code: .unset),
            traceState: "k=v", flags: 1, droppedAttributesCount: UInt32(index % 3))
    }

    static func traces(_ count: Int, offset: Int = 0) -> OTLPTracesData {
        var data = OTLPTracesData()
        for index in 0..<count {
            data.append(span(offset + index), resource: index % 3 == 2 ? otherResource : resource, scope: scope)
        }
        return data
    }

    static func logRecord(_ index: Int) -> OTLPLogRecord {
        OTLPLogRecord(
            timeUnixNano: 1_700_000_000_000_000_000 + UInt64(index), observedTimeUnixNano: 1_700_000_000_000_000_001 + UInt64(index),
            severity: OTLPSeverity(rawValue: Int32(index % 25)), severityText: "sev\(index)",
            body: index % 4 == 0
                ? nil : index % 4 == 1 ? .string("message \(index)\u{0}") : .keyValueList([OTLPAttribute("k", .double(.infinity))]),
            attributes: [OTLPAttribute("log.seq", .int(Int64(index)))],
            traceID: index % 2 == 0 ? traceID : nil, spanID: index % 2 == 0 ? OTLPSpanID(7) : nil,
            flags: 1, eventName: index % 5 == 0 ? "session.start" : "")
    }

    static func logs(_ count: Int, offset: Int = 0) -> OTLPLogsData {
        OTLPLogsData(resource: resource, scope: scope, items: (0..<count).map { logRecord(offset + $0) })
    }
}
