import COTLPShims
import Foundation
import Testing
@testable import OTLPWire
import OTLPTestSupport

/// Every limit has a documented range: each works at its maximum (and minimum), one past is refused as
/// `invalid_options` by readers and decoders; no value can overflow a size computation or the stack.
@Suite("Decoding limits and their ranges")
struct DecodingLimitTests {
    static let sample = OTLPEncoder().encode(SampleTelemetry.traces(3))
    static let framedSample = HostileInputTests.framed(sample)

    /// Reads `bytes` with `options`; the outcome of the whole read.
    static func read(_ bytes: [UInt8], _ options: OTLPReaderOptions) -> HostileInputTests.Outcome {
        var outcome = HostileInputTests.Outcome()
        do {
            let reader = try OTLPRecordReader(source: OTLPMemorySource(bytes), options: options)
            while try reader.next() != nil { outcome.records += 1 }
        } catch {
            outcome.error = error
        }
        return outcome
    }

    /// Options with one limit set through `change`.
    static func options(_ change: (inout OTLPReaderOptions) -> Void) -> OTLPReaderOptions {
        var options = OTLPReaderOptions(framing: .u32be, signal: .traces)
        change(&options)
        return options
    }

    typealias Setter = @Sendable (inout OTLPReaderOptions, Int) -> Void

    static let limits: [(String, ClosedRange<Int>, Setter)] = [
        ("maxRecordBytes", OTLPDecodingOptions.maxRecordBytesRange, { $0.decoding.maxRecordBytes = $1 }),
        ("maxNestingDepth", OTLPDecodingOptions.maxNestingDepthRange, { $0.decoding.maxNestingDepth = $1 }),
        ("maxAttributesPerItem", OTLPDecodingOptions.maxAttributesPerItemRange, { $0.decoding.maxAttributesPerItem = $1 }),
        ("maxDecodedBytes", OTLPDecodingOptions.maxDecodedBytesRange, { $0.decoding.maxDecodedBytes = $1 }),
        ("maxLineBytes", OTLPReaderOptions.maxLineBytesRange, { $0.maxLineBytes = $1 }),
        ("maxDecompressedBytes", OTLPReaderOptions.maxDecompressedBytesRange, { $0.maxDecompressedBytes = $1 }),
        ("maxInflationRatio", OTLPReaderOptions.maxInflationRatioRange, { $0.maxInflationRatio = $1 }),
        ("chunkSize", OTLPReaderOptions.chunkSizeRange, { $0.chunkSize = $1 }),
    ]

    @Test("each limit at its maximum reads a file; one past the maximum or below the minimum is invalid_options, naming it")
    func ranges() {
        for (name, range, set) in Self.limits {
            let atMaximum = Self.read(Self.framedSample, Self.options { set(&$0, range.upperBound) })
            #expect(
                atMaximum.error == nil && atMaximum.records == 1, "\(name) = \(range.upperBound): \(String(describing: atMaximum.error))")
            if range.upperBound < Int.max {
                let past = Self.read(Self.framedSample, Self.options { set(&$0, range.upperBound + 1) })
                #expect(past.error?.code == .invalidOptions && past.records == 0, "\(name) = \(range.upperBound + 1)")
                #expect(past.error?.message.contains(name) == true && past.error?.message.contains("\(range.upperBound)") == true)
            }
            for value in [range.lowerBound - 1, Int.min] {
                #expect(Self.read(Self.framedSample, Self.options { set(&$0, value) }).error?.code == .invalidOptions, "\(name) = \(value)")
            }
        }
    }

    @Test("the single-message decoders refuse invalid options too, protobuf and JSON")
    func decoders() throws {
        for depth in [Int.max, 251, 0, -1] {
            let options = OTLPDecodingOptions(maxNestingDepth: depth)
            #expect(throws: OTLPReadError.self) { try OTLPDecoder(options: options).decodeTraces(Self.sample) }
            let json = OTLPJSONEncoder().encode(SampleTelemetry.traces(1))
            do {
                _ = try json.withUnsafeBytes { buffer in try OTLPJSONDecoder(options: options).decodeTraces(buffer) }
                Issue.record("maxNestingDepth \(depth) was accepted")
            } catch let error as OTLPReadError {
                #expect(error.code == .invalidOptions)
            }
        }
        // Signal detection does not throw: it clamps to the range and still answers.
        #expect(
            Self.sample.withUnsafeBytes { OTLPDecoder(options: OTLPDecodingOptions(maxNestingDepth: .max)).detectSignal($0) } == .traces)
    }

    @Test("huge length prefixes with the largest record limit are record_too_large, never an overflow")
    func hugePrefixes() {
        let largest = Self.options { $0.decoding.maxRecordBytes = OTLPDecodingOptions.maxRecordBytesRange.upperBound }
        // A 10-byte varint declaring 2^63 - 1 bytes, and one with the sign bit of a 64-bit length set.
        let maxVarint: [UInt8] = Array(repeating: 0xFF, count: 8) + [0x7F]
        let signVarint: [UInt8] = Array(repeating: 0xFF, count: 9) + [0x01]
        for prefix in [maxVarint, signVarint] {
            var varint = largest
            varint.framing = .varint
            let outcome = Self.read(
                [UInt8(Self.sample.count & 0x7F) | 0x80, UInt8(Self.sample.count >> 7)] + Self.sample + prefix + [0, 0], varint)
            #expect(outcome.records == 1 && outcome.error?.code == .recordTooLarge && outcome.error?.recordIndex == 1)
            // Framing detection sees the same bytes first: a negative or huge length is no record, not a trap.
            var detected = largest
            detected.framing = nil
            #expect(Self.read(prefix + Self.sample, detected).error != nil)
        }
        let u32 = Self.read(Self.framedSample + [0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3], largest)
        #expect(u32.records == 1 && u32.error?.code == .recordTooLarge)
        // OTLPRawRecordReader clamps what it is given: Int.max cannot overflow a length computation.
        let records = OTLPRawRecordReader(
            source: OTLPMemorySource(signVarint + [1, 2]), framing: .varint, maxRecordBytes: .max, maxLineBytes: .max, chunkSize: .max)
        #expect(records.maxRecordBytes == OTLPDecodingOptions.maxRecordBytesRange.upperBound)
        #expect(throws: OTLPReadError.self) { try records.next() }
    }

    /// A span whose one attribute nests `arrays` array values (its innermost value is at level 5 + 2 × arrays).
    static func deep(_ arrays: Int) -> OTLPTracesData { HostileInputTests.deep(arrays) }

    /// Runs `body` on a thread with a 512 KiB stack (a common secondary-thread size) and waits for it. Under a
    /// sanitizer (make sanitize) frames are several times larger and carry redzones, so the stack is 8 times
    /// as large there: the bound is what normal builds are held to.
    static func onSmallStack(_ body: @escaping @Sendable () -> Void) {
        let environment = ProcessInfo.processInfo.environment
        let sanitized = environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.stackSize = 512 * 1024 * (sanitized ? 8 : 1)
        thread.start()
        done.wait()
    }

    @Test("the deepest nesting allowed (128) decodes (protobuf and JSON) and encodes within a 512 KiB thread stack")
    func deepestNestingOnSmallStack() {
        let maxDepth = OTLPDecodingOptions.maxNestingDepthRange.upperBound
        let arrays = (maxDepth - 5) / 2  // innermost value at level 127
        let data = Self.deep(arrays)
        let protobuf = OTLPEncoder().encode(data)
        let json = OTLPJSONEncoder().encode(data)
        let options = OTLPDecodingOptions(maxNestingDepth: maxDepth)
        nonisolated(unsafe) var outcome: [String] = []
        Self.onSmallStack {
            do {
                let decoded = try OTLPDecoder(options: options).decodeTraces(protobuf)
                let again = try json.withUnsafeBytes { try OTLPJSONDecoder(options: options).decodeTraces($0) }
                if decoded != data { outcome.append("protobuf decode differs") }
                if again != data { outcome.append("JSON decode differs") }
                if OTLPJSONEncoder().encode(decoded) != json { outcome.append("JSON encode differs") }
                if OTLPEncoder().encode(again) != protobuf { outcome.append("protobuf encode differs") }
                _ = try OTLPDecoder(options: OTLPDecodingOptions(maxNestingDepth: maxDepth - 2)).decodeTraces(protobuf)
                outcome.append("one level less was accepted")
            } catch {
                outcome.append((error as? OTLPReadError)?.code == .nestingTooDeep ? "refused below" : "\(error)")
            }
        }
        #expect(outcome == ["refused below"])
    }

    /// `levels` nested AnyValue kvlists in a span attribute, as raw protobuf.
    static func deepKVList(_ levels: Int) -> [UInt8] {
        var value: [UInt8] = []
        for _ in 0..<levels { value = OTLPProtobufBytes.field(6, OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, value))) }  // AnyValue{kvlist{values: KeyValue{value}}}
        return OTLPProtobufBytes.field(
            1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(9, OTLPProtobufBytes.field(2, value)))))
    }

    @Test("the C pre-scan with extreme limits: no overflow of its stack size, a hard depth cap, saturating sizes")
    func preScanExtremes() {
        let deep = Self.deepKVList(5_000)  // 15,000 levels: past the scanner's own cap of 10,000
        let inputs: [[UInt8]] = [Self.sample, deep, Self.deepKVList(40), [], [0x0A], Array(repeating: 0x0A, count: 4096)]
        let extremes: [Int] = [0, 1, Int(COTLPSHIMS_MAX_DEPTH), Int.max - 1, Int.max]
        for input in inputs {
            for value in extremes {
                var limits = COTLPShims_ScanLimits(max_depth: value, max_attributes: value, max_unpacked_bytes: value, model_costs: nil)
                var result = COTLPShims_ScanResult()
                input.withUnsafeBufferPointer { COTLPShims_scan($0.baseAddress, $0.count, Int32(COTLPSHIMS_KIND_TRACES), &limits, &result) }
                if input == deep && value > Int(COTLPSHIMS_MAX_DEPTH) { #expect(Int(result.status) == COTLPSHIMS_SCAN_TOO_DEEP) }
                if input == Self.sample && value == Int.max { #expect(Int(result.status) == COTLPSHIMS_SCAN_OK) }
            }
        }
        // Costs that would overflow a size_t saturate: the limit still holds.
        var costs = OTLPDecoder.modelCosts
        costs.span = .max
        costs.heap_string_overhead = .max
        withUnsafePointer(to: costs) { costs in
            var limits = COTLPShims_ScanLimits(max_depth: 100, max_attributes: .max, max_unpacked_bytes: .max - 1, model_costs: costs)
            var result = COTLPShims_ScanResult()
            Self.sample.withUnsafeBufferPointer {
                COTLPShims_scan($0.baseAddress, $0.count, Int32(COTLPSHIMS_KIND_TRACES), &limits, &result)
            }
            #expect(Int(result.status) == COTLPSHIMS_SCAN_TOO_LARGE)
        }
        // The merge never writes past the room it is given, and refuses nesting past its recursion cap.
        let doubled = Self.sample + Self.sample
        for capacity in [0, 1, 10, doubled.count / 2] {
            var out = [UInt8](repeating: 0, count: max(capacity, 1))
            let written = doubled.withUnsafeBufferPointer { input in
                COTLPShims_merge(input.baseAddress, input.count, Int32(COTLPSHIMS_KIND_TRACES), &out, capacity)
            }
            #expect(written == -1 || written <= capacity)
        }
        let tooDeep = Self.deepKVList(100)  // 305 levels
        var out = [UInt8](repeating: 0, count: tooDeep.count)
        #expect(
            tooDeep.withUnsafeBufferPointer { COTLPShims_merge($0.baseAddress, $0.count, Int32(COTLPSHIMS_KIND_TRACES), &out, out.count) }
                == -1)
    }

    @Test("JSON integers written as doubles outside the 64-bit ranges are malformed_json, not a trap")
    func integralDoublesOutOfRange() throws {
        for text in ["-1e19", "1.85e19", "-9.3e18", "1e300", "-1e300"] {
            let span = #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":"# + text + "}]}]}]}"
            let body = #"{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"intValue":"# + text + "}}]}]}]}"
            for (json, signal) in [(span, OTLPSignal.traces), (body, .logs)] {
                var options = OTLPReaderOptions(framing: .jsonl, signal: signal)
                options.decoding = .default
                let outcome = Self.read(Array((json + "\n").utf8), options)
                #expect(outcome.error?.code == .malformedJSON, "\(text): \(String(describing: outcome.error))")
            }
        }
        let ok = #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":1.8e19}]}]}]}"#
        let data = try Array(ok.utf8).withUnsafeBytes { try OTLPJSONDecoder().decodeTraces($0) }
        #expect(data.resourceGroups[0].scopeGroups[0].items[0].startTimeUnixNano == 18_000_000_000_000_000_000)
    }
}
