import OTLPWire

/// The yardstick workload (../shared/yardstick/WORKLOAD.md), generated straight into OTLPWire's model:
/// the model is the "source model" of the contract. Written for this project from the workload's
/// definition; the sha256 of the framed output is what proves it matches the other peers.
enum WorkloadGenerator {
    static let batchSize = 512
    static let baseNanos: UInt64 = 1_700_000_000_000_000_000
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_".utf8)
    static let spanNames = [
        "AppStart", "HomeScreen.body", "NetworkRequest", "ImageDecode", "DatabaseQuery", "ViewDidAppear", "JSONParse", "CacheLookup",
    ]
    static let eventNames = ["tap", "network.response", "frame.drop", "log"]
    static let severities: [(OTLPSeverity, String)] = [(.debug, "DEBUG"), (.info, "INFO"), (.warn, "WARN"), (.error, "ERROR")]

    static let resource = OTLPResource(attributes: [
        OTLPAttribute("service.name", "yardstick-app"), OTLPAttribute("service.version", "1.0.0"),
        OTLPAttribute("os.name", "iOS"), OTLPAttribute("os.version", "17.4.1"),
        OTLPAttribute("device.model.identifier", "iPhone15,2"),
    ])
    static let scope = OTLPInstrumentationScope(name: "bench", version: "1.0.0")

    /// Marsaglia's xorshift64 with shifts 13, 7, 17, started at 42.
    struct Random {
        var state: UInt64 = 42

        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }

        /// IDs take one draw per 8 bytes, each draw's bytes low byte first.
        mutating func traceID() -> OTLPTraceID {
            let first = next(), second = next()
            return OTLPTraceID(high: first.byteSwapped, low: second.byteSwapped)
        }

        mutating func spanID() -> OTLPSpanID { OTLPSpanID(next().byteSwapped) }

        mutating func string(_ low: Int, _ high: Int) -> String {
            let count = low + Int(next() % UInt64(high - low + 1))
            var bytes = [UInt8](repeating: 0, count: count)
            var draw: UInt64 = 0
            for index in 0..<count {
                if index % 10 == 0 { draw = next() }
                bytes[index] = alphabet[Int(draw & 63)]
                draw >>= 6
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        mutating func unitDouble() -> Double { Double(next() >> 11) * 0x1p-53 }
    }

    static func spans(_ count: Int) -> [OTLPSpan] {
        var random = Random()
        var spans: [OTLPSpan] = []
        spans.reserveCapacity(count)
        for index in 0..<count {
            let traceID = random.traceID()
            let spanID = random.spanID()
            let parent: OTLPSpanID? = index % 8 == 0 ? nil : random.spanID()
            let name = spanNames[Int(random.next() % UInt64(spanNames.count))]
            let start = baseNanos + UInt64(index) * 1_000_000 + random.next() % 1_000_000
            let end = start + 1_000 + random.next() % 1_000_000_000
            let attributes = [
                OTLPAttribute("app.screen.name", .string(random.string(8, 40))),
                OTLPAttribute("http.url", .string(random.string(8, 40))),
                OTLPAttribute("user.session.id", .string(random.string(8, 40))),
                OTLPAttribute("net.peer.name", .string(random.string(8, 40))),
                OTLPAttribute("http.status_code", .int(Int64(random.next() % 600))),
                OTLPAttribute("memory.delta", .int(Int64(random.next() % 2_000_001) - 1_000_000)),
                OTLPAttribute("sample.ratio", .double(random.unitDouble())),
                OTLPAttribute("is.main.thread", .bool(random.next() & 1 == 1)),
            ]
            let eventName = eventNames[Int(random.next() % UInt64(eventNames.count))]
            let eventTime = start + random.next() % (end - start)
            let event = OTLPSpanEvent(
                name: eventName, timeUnixNano: eventTime,
                attributes: [
                    OTLPAttribute("event.message", .string(random.string(8, 40))),
                    OTLPAttribute("event.seq", .int(Int64(random.next() % 1000))),
                ])
            spans.append(
                OTLPSpan(
                    traceID: traceID, spanID: spanID, parentSpanID: parent, name: name,
                    kind: OTLPSpanKind(rawValue: Int32(1 + index % 5)), startTimeUnixNano: start, endTimeUnixNano: end,
                    attributes: attributes, events: [event], status: OTLPSpanStatus(code: .ok)))
        }
        return spans
    }

    static func logRecords(_ count: Int) -> [OTLPLogRecord] {
        var random = Random()
        var records: [OTLPLogRecord] = []
        records.reserveCapacity(count)
        for index in 0..<count {
            let time = baseNanos + UInt64(index) * 1_000_000 + random.next() % 1_000_000
            let observed = time + random.next() % 1_000_000
            let (severity, severityText) = severities[Int(random.next() % UInt64(severities.count))]
            let body = random.string(40, 200)
            let attributes = [
                OTLPAttribute("log.logger", .string(random.string(8, 40))),
                OTLPAttribute("thread.name", .string(random.string(8, 40))),
                OTLPAttribute("code.function", .string(random.string(8, 40))),
                OTLPAttribute("log.seq", .int(Int64(random.next() % 1_000_000))),
                OTLPAttribute("duration.ratio", .double(random.unitDouble())),
                OTLPAttribute("is.main.thread", .bool(random.next() & 1 == 1)),
            ]
            let traceID = random.traceID()
            let spanID = random.spanID()
            records.append(
                OTLPLogRecord(
                    timeUnixNano: time, observedTimeUnixNano: observed, severity: severity, severityText: severityText,
                    body: .string(body), attributes: attributes, traceID: traceID, spanID: spanID))
        }
        return records
    }

    /// Items in batches of 512, the last one holding the rest (what a batch processor hands an exporter).
    static func batches<T>(_ items: [T]) -> [[T]] {
        stride(from: 0, to: items.count, by: batchSize).map { Array(items[$0..<min($0 + batchSize, items.count)]) }
    }
}
