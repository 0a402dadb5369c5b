import COTLPShims
import Testing
@testable import OTLPWire

/// The encoder's proof of readability against the readers' own check: on many generated requests, with limits
/// placed at, just under and just over each request's own figures, the proof never says readable where the
/// check refuses, its decoded-memory estimate is never below the scan's (and above it only by the slabs of
/// messages whose field count it bounds), and for the exact limits (record size, attributes per item) the
/// verdicts are equal.
@Suite("OTLPReadabilityProof")
struct OTLPReadabilityProofTests {
    /// The same requests on every run.
    typealias Generator = SplitMix64

    /// Checks the proof of `data`'s encoding against the readers' check under limits around its own figures.
    func compare<Item: OTLPSignalItem>(_ data: OTLPSignalData<Item>, _ signal: OTLPSignal) {
        let generous = OTLPDecodingOptions(
            maxRecordBytes: OTLPDecodingOptions.maxRecordBytesRange.upperBound,
            maxNestingDepth: OTLPDecodingOptions.maxNestingDepthRange.upperBound,
            maxAttributesPerItem: OTLPDecodingOptions.maxAttributesPerItemRange.upperBound,
            maxDecodedBytes: OTLPDecodingOptions.maxDecodedBytesRange.upperBound)
        OTLPEncoder().withEncoded(data) { bytes, proof in
            guard let scan = OTLPDecoder(options: generous).scanEstimate(bytes, as: signal) else {
                Issue.record("the encoded request does not scan as \(signal)")
                return
            }
            #expect(proof.estimatedDecodedBytes >= scan.decodedBytes)
            #expect(proof.estimatedDecodedBytes - scan.decodedBytes <= 64 * proof.census.slab_fields)
            #expect(proof.nestingDepthBound >= scan.depth)
            #expect(proof.messageBytes == bytes.count)
            func verdicts(_ options: OTLPDecodingOptions) -> (proven: Bool, readable: Bool) {
                (proof.provesReadable(under: options), (try? OTLPDecoder(options: options).check(bytes, as: signal)) != nil)
            }
            #expect(verdicts(generous) == (true, true))
            for size in [bytes.count - 1, bytes.count, bytes.count + 1] where size >= 1 {
                var options = generous
                options.maxRecordBytes = size
                let (proven, readable) = verdicts(options)
                #expect(proven == readable, "maxRecordBytes \(size) for \(bytes.count) bytes")
            }
            for count in [proof.maxItemAttributes - 1, proof.maxItemAttributes, proof.maxItemAttributes + 1] where count >= 0 {
                var options = generous
                options.maxAttributesPerItem = count
                let (proven, readable) = verdicts(options)
                #expect(proven == readable, "maxAttributesPerItem \(count) for \(proof.maxItemAttributes)")
            }
            for depth in Set([scan.depth - 1, scan.depth, proof.nestingDepthBound - 1, proof.nestingDepthBound])
            where OTLPDecodingOptions.maxNestingDepthRange.contains(depth) {
                var options = generous
                options.maxNestingDepth = depth
                let (proven, readable) = verdicts(options)
                #expect(!proven || readable, "maxNestingDepth \(depth): proven but refused")
                #expect(proven == (depth >= proof.nestingDepthBound))
                #expect(readable == (depth >= scan.depth))
            }
            for limit in Set([scan.decodedBytes - 1, scan.decodedBytes, proof.estimatedDecodedBytes - 1, proof.estimatedDecodedBytes]) {
                var options = generous
                options.maxDecodedBytes = limit
                let (proven, readable) = verdicts(options)
                #expect(!proven || readable, "maxDecodedBytes \(limit): proven but refused")
                #expect(proven == (limit >= proof.estimatedDecodedBytes))
                #expect(readable == (limit >= scan.decodedBytes))
            }
        }
    }

    @Test("generated traces requests: the proof agrees with the readers' check at every limit", arguments: 0..<150)
    func traces(seed: UInt64) {
        var generator = Generator(state: seed)
        compare(generator.data { $0.span() }, .traces)
    }

    @Test("generated logs requests: the proof agrees with the readers' check at every limit", arguments: 0..<150)
    func logs(seed: UInt64) {
        var generator = Generator(state: seed &+ 1_000)
        compare(generator.data { $0.logRecord() }, .logs)
    }

    @Test("values nested near the readers' deepest allowed nesting", arguments: [1, 10, 30, 40])
    func deepValues(levels: Int) {
        var value = OTLPAttributeValue.string("leaf value over fifteen bytes")
        for level in 0..<levels { value = level % 2 == 0 ? .array([value, .int(1)]) : .keyValueList([OTLPAttribute("k", value)]) }
        let event = OTLPSpanEvent(name: "e", timeUnixNano: 1, attributes: [OTLPAttribute("deep", value)])
        let span = OTLPSpan(
            traceID: OTLPTraceID(high: 1, low: 2), spanID: OTLPSpanID(3), name: "s", startTimeUnixNano: 1, endTimeUnixNano: 2,
            events: [event])
        compare(OTLPTracesData(resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"), items: [span]), .traces)
        let record = OTLPLogRecord(timeUnixNano: 1, body: value, attributes: [OTLPAttribute("deep", value)])
        compare(OTLPLogsData(resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"), items: [record]), .logs)
    }

    @Test("the readers' default limits: a typical batch is proven, one over a limit is left to the check")
    func defaults() {
        var generator = Generator(state: 7)
        let spans = (0..<512).map { _ in generator.span() }
        let typical = OTLPTracesData(resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"), items: spans)
        OTLPEncoder().withEncoded(typical) { _, proof in #expect(proof.provesReadable(under: .default)) }
        let crowded = OTLPSpan(
            traceID: nil, spanID: nil, name: "s", startTimeUnixNano: 1, endTimeUnixNano: 2,
            attributes: (0...OTLPDecodingOptions.default.maxAttributesPerItem).map { OTLPAttribute("k\($0)", .int(1)) })
        let over = OTLPTracesData(resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"), items: [crowded])
        OTLPEncoder().withEncoded(over) { bytes, proof in
            #expect(!proof.provesReadable(under: .default))
            #expect(throws: OTLPReadError.self) { try OTLPDecoder(options: .default).check(bytes, as: .traces) }
        }
        // Metrics keep no census: never proven.
        let metrics = OTLPMetricsData(
            resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"), items: [OTLPMetric(name: "m")])
        OTLPEncoder().withEncoded(metrics) { _, proof in #expect(!proof.provesReadable(under: .default)) }
    }
}

extension SplitMix64 {

    /// Lengths around the model's inline-string limit (15) and the 8-byte alignment steps.
    fileprivate mutating func string() -> String {
        let length = [0, 1, 7, 8, 9, 15, 16, 17, 24, 40, 130][int(0...10)]
        return String(repeating: chance(20) ? "é" : "a", count: chance(20) ? length / 2 : length)
    }

    fileprivate mutating func value(levels: Int) -> OTLPAttributeValue {
        switch int(levels > 0 ? 0...8 : 0...6) {
        case 0: .string(string())
        case 1: .bool(chance(50))
        case 2: .int(Int64(bitPattern: next()))
        case 3: .double(Double(int(0...1000)) / 7)
        case 4: .bytes([UInt8](repeating: 7, count: [0, 3, 16, 20][int(0...3)]))
        case 5: .empty
        case 6: .string("")
        case 7: .array((0..<[0, 2, 17][int(0...2)]).map { _ in value(levels: levels - 1) })
        default: .keyValueList(attributes(count: [0, 2, 17][int(0...2)], levels: levels - 1))
        }
    }

    fileprivate mutating func attributes(count: Int, levels: Int = 1) -> [OTLPAttribute] {
        (0..<count).map { index in
            OTLPAttribute(chance(5) ? "" : "key\(index)", chance(5) ? nil : value(levels: levels))
        }
    }

    fileprivate mutating func attributeCount() -> Int { [0, 1, 3, 8, 16, 17, 30][int(0...6)] }

    fileprivate mutating func span() -> OTLPSpan {
        OTLPSpan(
            traceID: chance(90) ? OTLPTraceID(high: next(), low: next()) : nil, spanID: chance(90) ? OTLPSpanID(next()) : nil,
            parentSpanID: chance(50) ? OTLPSpanID(next()) : nil, name: string(), kind: OTLPSpanKind(rawValue: Int32(int(0...5))),
            startTimeUnixNano: chance(90) ? next() : 0, endTimeUnixNano: chance(90) ? next() : 0,
            attributes: attributes(count: attributeCount()),
            events: (0..<int(0...3)).map { _ in
                OTLPSpanEvent(name: string(), timeUnixNano: next(), attributes: attributes(count: attributeCount()))
            },
            links: (0..<int(0...2)).map { _ in
                OTLPSpanLink(
                    traceID: OTLPTraceID(high: next(), low: next()), spanID: OTLPSpanID(next()), traceState: string(),
                    attributes: attributes(count: attributeCount()), flags: UInt32(int(0...1)))
            },
            status: chance(50) ? OTLPSpanStatus(code: .error, message: string()) : nil, traceState: string(),
            flags: UInt32(int(0...1) * 0x100), droppedAttributesCount: UInt32(int(0...1)))
    }

    fileprivate mutating func logRecord() -> OTLPLogRecord {
        OTLPLogRecord(
            timeUnixNano: next(), observedTimeUnixNano: chance(50) ? next() : 0, severity: OTLPSeverity(rawValue: Int32(int(0...24))),
            severityText: string(), body: chance(80) ? value(levels: 1) : nil, attributes: attributes(count: attributeCount()),
            traceID: chance(50) ? OTLPTraceID(high: next(), low: next()) : nil, spanID: chance(50) ? OTLPSpanID(next()) : nil,
            flags: UInt32(int(0...1)), eventName: string(), droppedAttributesCount: UInt32(int(0...1)))
    }

    fileprivate mutating func resource() -> OTLPResource? {
        guard chance(90) else { return nil }
        return OTLPResource(
            attributes: attributes(count: attributeCount()), droppedAttributesCount: UInt32(int(0...1)),
            entityRefs: (0..<int(0...2)).map { _ in
                OTLPEntityRef(
                    schemaURL: string(), type: string(), idKeys: (0..<int(0...20)).map { _ in string() },
                    descriptionKeys: (0..<int(0...2)).map { _ in string() })
            })
    }

    fileprivate mutating func scope() -> OTLPInstrumentationScope? {
        guard chance(90) else { return nil }
        return OTLPInstrumentationScope(name: string(), version: string(), attributes: attributes(count: attributeCount()))
    }

    fileprivate mutating func data<Item>(_ item: (inout SplitMix64) -> Item) -> OTLPSignalData<Item> {
        // Few of each, or 17 resource groups, scope groups or items: both sides of the 16 fields that bring slabs.
        let shape = int(0...5)
        let (resources, scopes, items) = [(1, 1, 1), (2, 2, 3), (1, 0, 0), (17, 1, 1), (1, 17, 1), (1, 1, 17)][shape]
        return OTLPSignalData(
            resourceGroups: (0..<resources).map { _ in
                OTLPResourceGroup(
                    resource: resource(),
                    scopeGroups: (0..<scopes).map { _ in
                        OTLPScopeGroup(scope: scope(), items: (0..<items).map { _ in item(&self) }, schemaURL: string())
                    }, schemaURL: string())
            })
    }
}
