import Logging
import Tracing

/// The yardstick workload (../shared/yardstick/WORKLOAD.md) as an application would produce it: the same
/// span names, kinds, timestamps, 8 attributes, one event and OK status per span, and the same log bodies,
/// severities and 6 attributes per record, drawn from the same xorshift64 sequence. Generated before the
/// clock starts; ``emitSpans(_:tracer:)`` and ``emitLogRecords(_:logger:)`` then send it through the
/// swift-distributed-tracing and swift-log APIs, which both SDKs under test implement. Trace and span IDs
/// are the SDK's own (the API has no way to give them); every eighth span is a root, the next seven its
/// children.
struct Workload {
    /// One span's content.
    struct Span {
        var name: String
        var kind: SpanKind
        var start: Instant
        var end: Instant
        var strings: [String]  // app.screen.name, http.url, user.session.id, net.peer.name
        var statusCode: Int64
        var memoryDelta: Int64
        var sampleRatio: Double
        var isMainThread: Bool
        var eventName: String
        var eventTime: Instant
        var eventMessage: String
        var eventSequence: Int64
    }

    /// One log record's content.
    struct LogRecord {
        var level: Logger.Level
        var body: String
        var metadata: Logger.Metadata
    }

    /// A fixed point in time for the Tracing API: the workload's own timestamps.
    struct Instant: TracerInstant {
        var nanosecondsSinceEpoch: UInt64

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch }
    }

    static let baseNanos: UInt64 = 1_700_000_000_000_000_000
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_".utf8)
    static let spanNames = [
        "AppStart", "HomeScreen.body", "NetworkRequest", "ImageDecode", "DatabaseQuery", "ViewDidAppear", "JSONParse", "CacheLookup",
    ]
    static let eventNames = ["tap", "network.response", "frame.drop", "log"]
    static let spanKinds: [SpanKind] = [.internal, .server, .client, .producer, .consumer]
    static let levels: [Logger.Level] = [.debug, .info, .warning, .error]
    /// The label of the workload's loggers: empty, because OTLPWire's handler exports a logger's label as
    /// `log.logger`, which the workload's metadata already holds (swift-otel's does not export the label);
    /// so both SDKs send the same 6 attributes plus the `code.*` ones.
    static let loggerLabel = ""

    /// Marsaglia's xorshift64 with shifts 13, 7, 17, started at 42.
    struct Random {
        var state: UInt64 = 42

        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }

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

    let spans: [Span]
    let logRecords: [LogRecord]

    /// `spanCount` spans and `logRecordCount` log records, each signal from its own generator at 42.
    init(spanCount: Int, logRecordCount: Int) {
        var random = Random()
        var spans: [Span] = []
        spans.reserveCapacity(spanCount)
        for index in 0..<spanCount {
            _ = (random.next(), random.next(), random.next())  // trace and span IDs: the SDK makes its own
            if index % 8 != 0 { _ = random.next() }  // parent span ID: the SDK takes the root's
            let name = Self.spanNames[Int(random.next() % UInt64(Self.spanNames.count))]
            let start = Self.baseNanos + UInt64(index) * 1_000_000 + random.next() % 1_000_000
            let end = start + 1_000 + random.next() % 1_000_000_000
            let strings = (0..<4).map { _ in random.string(8, 40) }
            let statusCode = Int64(random.next() % 600)
            let memoryDelta = Int64(random.next() % 2_000_001) - 1_000_000
            let sampleRatio = random.unitDouble()
            let isMainThread = random.next() & 1 == 1
            let eventName = Self.eventNames[Int(random.next() % UInt64(Self.eventNames.count))]
            let eventTime = start + random.next() % (end - start)
            let eventMessage = random.string(8, 40)
            let eventSequence = Int64(random.next() % 1000)
            spans.append(
                Span(
                    name: name, kind: Self.spanKinds[index % 5], start: Instant(nanosecondsSinceEpoch: start),
                    end: Instant(nanosecondsSinceEpoch: end), strings: strings, statusCode: statusCode, memoryDelta: memoryDelta,
                    sampleRatio: sampleRatio, isMainThread: isMainThread, eventName: eventName,
                    eventTime: Instant(nanosecondsSinceEpoch: eventTime), eventMessage: eventMessage, eventSequence: eventSequence))
        }
        random = Random()
        var records: [LogRecord] = []
        records.reserveCapacity(logRecordCount)
        for _ in 0..<logRecordCount {
            _ = (random.next(), random.next())  // time and observed time: the SDK's clock
            let level = Self.levels[Int(random.next() % UInt64(Self.levels.count))]
            let body = random.string(40, 200)
            let metadata: Logger.Metadata = [
                "log.logger": .string(random.string(8, 40)),
                "thread.name": .string(random.string(8, 40)),
                "code.function": .string(random.string(8, 40)),
                "log.seq": .stringConvertible(Int64(random.next() % 1_000_000)),
                "duration.ratio": .stringConvertible(random.unitDouble()),
                "is.main.thread": .stringConvertible(random.next() & 1 == 1),
            ]
            _ = (random.next(), random.next(), random.next())  // trace and span IDs of the record
            records.append(LogRecord(level: level, body: body, metadata: metadata))
        }
        self.spans = spans
        self.logRecords = records
    }

    /// Starts and ends every span through `tracer`, as instrumented code would.
    func emitSpans<T: Tracer>(_ tracer: T) {
        var rootContext = ServiceContext.topLevel
        for (index, item) in spans.enumerated() {
            let span = tracer.startSpan(item.name, context: index % 8 == 0 ? .topLevel : rootContext, ofKind: item.kind, at: item.start)
            span.attributes["app.screen.name"] = item.strings[0]
            span.attributes["http.url"] = item.strings[1]
            span.attributes["user.session.id"] = item.strings[2]
            span.attributes["net.peer.name"] = item.strings[3]
            span.attributes["http.status_code"] = item.statusCode
            span.attributes["memory.delta"] = item.memoryDelta
            span.attributes["sample.ratio"] = item.sampleRatio
            span.attributes["is.main.thread"] = item.isMainThread
            span.addEvent(
                SpanEvent(
                    name: item.eventName, at: item.eventTime,
                    attributes: ["event.message": .string(item.eventMessage), "event.seq": .int64(item.eventSequence)]))
            span.setStatus(SpanStatus(code: .ok))
            if index % 8 == 0 { rootContext = span.context }
            span.end(at: item.end)
        }
    }

    /// Logs every record through `logger`, as application code would.
    func emitLogRecords(_ logger: Logger) {
        for record in logRecords {
            logger.log(level: record.level, "\(record.body)", metadata: record.metadata)
        }
    }
}
