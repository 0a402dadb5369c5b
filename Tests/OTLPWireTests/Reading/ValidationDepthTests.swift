import Testing
@testable import OTLPWire
import OTLPTestSupport

/// Validation (``OTLPDecoder/check(_:as:)`` and ``OTLPRecordReader/validateNext()``) applies every rule the
/// full decode applies: the same inputs get the same verdict, error class, record and offset.
@Suite("Validation is as strict as decoding")
struct ValidationDepthTests {
    static let traceID = [UInt8](repeating: 0xAB, count: 16)
    static let spanID = [UInt8](repeating: 0xCD, count: 8)
    static func bytes(_ count: Int) -> [UInt8] { [UInt8](repeating: 0x11, count: count) }
    static func span(trace: [UInt8] = traceID, span: [UInt8] = spanID, extra: [UInt8] = []) -> [UInt8] {
        OTLPProtobufBytes.field(1, trace) + OTLPProtobufBytes.field(2, span) + OTLPProtobufBytes.field(3, Array("op".utf8)) + extra
    }
    static func logRecord(trace: [UInt8], span: [UInt8]) -> [UInt8] {
        OTLPProtobufBytes.field(3, Array("INFO".utf8)) + OTLPProtobufBytes.field(9, trace) + OTLPProtobufBytes.field(10, span)
    }

    /// Every ID field of both signals at a wrong length, with the name the error must give.
    static let badIDs: [(what: String, message: [UInt8], signal: OTLPSignal)] = [
        ("span trace_id is 15 bytes", Wire.traces([span(trace: bytes(15))]), .traces),
        ("span trace_id is 17 bytes", Wire.traces([span(trace: bytes(17))]), .traces),
        ("span span_id is 7 bytes", Wire.traces([span(span: bytes(7))]), .traces),
        ("span parent_span_id is 9 bytes", Wire.traces([span(extra: OTLPProtobufBytes.field(4, bytes(9)))]), .traces),
        (
            "span link trace_id is 15 bytes",
            Wire.traces([
                span(extra: OTLPProtobufBytes.field(13, OTLPProtobufBytes.field(1, bytes(15)) + OTLPProtobufBytes.field(2, spanID)))
            ]),
            .traces
        ),
        (
            "span link span_id is 3 bytes",
            Wire.traces([
                span(extra: OTLPProtobufBytes.field(13, OTLPProtobufBytes.field(1, traceID) + OTLPProtobufBytes.field(2, bytes(3))))
            ]),
            .traces
        ),
        ("log record trace_id is 15 bytes", Wire.logs([logRecord(trace: bytes(15), span: spanID)]), .logs),
        ("log record span_id is 3 bytes", Wire.logs([logRecord(trace: traceID, span: bytes(3))]), .logs),
    ]

    @Test(
        "a trace or span ID of the wrong length: check, decode and the reader's validation all refuse it, naming the field",
        arguments: 0..<badIDs.count)
    func idLengths(index: Int) {
        let (what, message, signal) = Self.badIDs[index]
        let decoder = OTLPDecoder()
        var checkError: OTLPReadError?
        var decodeError: OTLPReadError?
        message.withUnsafeBytes { buffer in
            do throws(OTLPReadError) { try decoder.check(buffer, as: signal) } catch { checkError = error }
            do throws(OTLPReadError) {
                if signal == .traces { _ = try decoder.decodeTraces(buffer) } else { _ = try decoder.decodeLogs(buffer) }
            } catch { decodeError = error }
        }
        #expect(checkError?.code == .malformedProtobuf)
        #expect(checkError?.message.contains(what) == true, "\(String(describing: checkError))")
        #expect(checkError == decodeError)
        let first = signal == .traces ? OTLPEncoder().encode(SampleTelemetry.traces(1)) : OTLPEncoder().encode(SampleTelemetry.logs(1))
        let file = StreamInputs.u32be([first, message])
        let (decoded, validated) = Self.verdicts(file, options: OTLPReaderOptions(signal: signal))
        #expect(validated.error?.code == .malformedProtobuf && validated.records == 1)
        #expect(decoded == validated)
    }

    @Test("the ID lengths that are right, and empty IDs, are accepted by both")
    func goodIDs() throws {
        let decoder = OTLPDecoder()
        for message in [
            Wire.traces([Self.span()]), Wire.traces([Self.span(trace: [], span: [])]), Wire.logs([Self.logRecord(trace: [], span: [])]),
            Wire.logs([Self.logRecord(trace: Self.traceID, span: Self.spanID)]),
        ] {
            let items = try message.withUnsafeBytes { buffer in
                Result { () throws(OTLPReadError) in try decoder.check(buffer, as: decoder.detectSignal(buffer) ?? .logs) }
            }.get()
            #expect(items == 1)
        }
    }

    struct Verdict: Equatable {
        var records = 0
        var items = 0
        var error: OTLPReadError?
    }

    /// The verdicts of reading `bytes` with ``OTLPRecordReader/next()`` and with ``OTLPRecordReader/validateNext()``.
    static func verdicts(_ bytes: [UInt8], options: OTLPReaderOptions = OTLPReaderOptions()) -> (print: Verdict, validate: Verdict) {
        var decoded = Verdict()
        do {
            let reader = try OTLPRecordReader(source: OTLPMemorySource(bytes), options: options)
            while let record = try reader.next() { decoded.records += 1; decoded.items += record.payload.itemCount }
        } catch { decoded.error = error }
        var validated = Verdict()
        do {
            let reader = try OTLPRecordReader(source: OTLPMemorySource(bytes), options: options)
            while let (_, items) = try reader.validateNext() { validated.records += 1; validated.items += items }
        } catch { validated.error = error }
        return (decoded, validated)
    }

    @Test(
        "every single-byte change of a small traces and a small logs file gets the same verdict from validation and decoding",
        arguments: ["traces", "logs", "jsonl"])
    func mutations(kind: String) {
        let file: [UInt8]
        let framing: OTLPFraming = kind == "traces" ? .u32be : kind == "logs" ? .varint : .jsonl
        switch kind {
        case "traces":
            file = StreamInputs.u32be([
                OTLPEncoder().encode(SampleTelemetry.traces(1)), OTLPEncoder().encode(SampleTelemetry.traces(1, offset: 1)),
            ])
        case "logs":
            file = StreamInputs.varint([
                OTLPEncoder().encode(SampleTelemetry.logs(2)), OTLPEncoder().encode(SampleTelemetry.logs(1, offset: 2)),
            ])
        default:
            file =
                OTLPJSONEncoder().encode(SampleTelemetry.logs(1)) + [0x0A] + OTLPJSONEncoder().encode(SampleTelemetry.logs(1, offset: 1))
                + [0x0A]
        }
        var differences = 0
        var failures = 0
        for index in file.indices {
            for change in [{ (b: UInt8) in b ^ 0xFF }, { _ in 0x00 }, { b in b &+ 1 }, { b in b ^ 0x08 }] {
                var mutated = file
                mutated[index] = change(file[index])
                guard mutated != file else { continue }
                let (decoded, validated) = Self.verdicts(mutated, options: OTLPReaderOptions(framing: framing, chunkSize: 4096))
                if decoded.error != nil { failures += 1 }
                if decoded != validated {
                    differences += 1
                    if differences <= 5 { Issue.record("byte \(index): decode \(decoded), validate \(validated)") }
                }
            }
        }
        #expect(differences == 0)
        #expect(failures > 0)  // the mutations do reach the checks
    }
}
