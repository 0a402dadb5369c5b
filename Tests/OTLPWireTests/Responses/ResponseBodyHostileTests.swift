import Foundation
import Testing
import OTLPWire

/// Response bodies come from the network: every decoder gives a value or an `OTLPReadError` on any bytes,
/// within its size and memory limits, and agrees with the reference decoder wherever both read a body.
@Suite("Hostile response bodies")
struct ResponseBodyHostileTests {
    /// The decoders under test, by the reference script's kind name.
    enum Kind: String, CaseIterable {
        case traces, logs, status

        /// Our reading of `body` in the reference script's form, or the error.
        func decodeProtobuf(_ body: [UInt8]) -> Result<String, OTLPReadError> {
            Result { () throws(OTLPReadError) in
                switch self {
                case .traces: ReferenceResponses.describe(try OTLPExportResponse(protobuf: body, for: .traces))
                case .logs: ReferenceResponses.describe(try OTLPExportResponse(protobuf: body, for: .logs))
                case .status: ReferenceResponses.describe(try OTLPRPCStatus(protobuf: body))
                }
            }
        }

        func decodeJSON(_ body: [UInt8]) -> Result<String, OTLPReadError> {
            Result { () throws(OTLPReadError) in
                switch self {
                case .traces: ReferenceResponses.describe(try OTLPExportResponse(json: body, for: .traces))
                case .logs: ReferenceResponses.describe(try OTLPExportResponse(json: body, for: .logs))
                case .status: ReferenceResponses.describe(try OTLPRPCStatus(json: body))
                }
            }
        }

        /// Valid bodies to mutate: protobuf and JSON.
        var seeds: [(protobuf: [UInt8], json: [UInt8])] {
            switch self {
            case .traces, .logs:
                let signal: OTLPSignal = self == .traces ? .traces : .logs
                return [
                    OTLPExportResponse(rejectedItems: 3, errorMessage: "3 spans had no name"),
                    OTLPExportResponse(rejectedItems: -300_000_000_000, errorMessage: "é🚀"),
                    OTLPExportResponse(rejectedItems: 0, errorMessage: "warning"),
                ].map { ($0.encoded(for: signal), $0.jsonEncoded(for: signal)) }
            case .status:
                return [
                    OTLPRPCStatus(code: 3, message: "bad request", detailTypeURLs: ["type.googleapis.com/google.rpc.BadRequest"]),
                    OTLPRPCStatus(code: 14, message: "é", detailTypeURLs: ["a", "type.googleapis.com/google.rpc.RetryInfo", ""]),
                ].map { ($0.encoded(), $0.jsonEncoded()) }
            }
        }
    }

    @Test("a body over 4 MiB is record_too_large before it is read; one of exactly 4 MiB decodes")
    func bodySize() throws {
        #expect(OTLPExportResponse.maxBodyBytes == 4 * 1024 * 1024)
        #expect(OTLPRPCStatus.maxBodyBytes == OTLPExportResponse.maxBodyBytes)
        let over = [UInt8](repeating: 0x20, count: OTLPExportResponse.maxBodyBytes + 1)
        for kind in Kind.allCases {
            for result in [kind.decodeProtobuf(over), kind.decodeJSON(over)] {
                #expect(throws: OTLPReadError.self) { try result.get() }
                if case .failure(let error) = result {
                    #expect(error.code == .recordTooLarge)
                    #expect(error.message.contains("over the limit of 4194304 bytes"), "\(error)")
                }
            }
        }
        // A Status whose message fills the limit: tag, a 4-byte length, the text.
        let length = OTLPRPCStatus.maxBodyBytes - 5
        let message = String(repeating: "a", count: length)
        let body = OTLPRPCStatus(code: 0, message: message).encoded()
        #expect(body.count == OTLPRPCStatus.maxBodyBytes)
        #expect(try OTLPRPCStatus(protobuf: body).message.utf8.count == length)
    }

    @Test("4 MiB of empty details would unpack to ~30 times that: refused by the memory limit, not allocated")
    func unpackMemoryLimit() throws {
        let body = [UInt8]((0..<(OTLPRPCStatus.maxBodyBytes / 2)).flatMap { _ in [0x1A, 0x00] as [UInt8] })
        #expect {
            try OTLPRPCStatus(protobuf: body)
        } throws: { error in
            (error as? OTLPReadError)?.code == .recordTooLarge
                && (error as? OTLPReadError)?.message == "decoding this google.rpc.Status would take more than 33554432 bytes of memory"
        }
        // 100,000 of them are fine.
        #expect(try OTLPRPCStatus(protobuf: Array(body.prefix(200_000))).detailTypeURLs.count == 100_000)
    }

    @Test("JSON nested 100,000 levels deep is nesting_too_deep; 4 MiB of empty details is refused by the memory limit")
    func jsonLimits() throws {
        let deep = Array(#"{"details":"#.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        #expect(Kind.status.decodeJSON(deep).failureCode == .nestingTooDeep)
        func details(_ count: Int) -> [UInt8] {
            Array(#"{"details":[{}"#.utf8)
                + [UInt8](repeating: 0, count: 3 * (count - 1)).enumerated().map { index, _ in
                    Array(",{}".utf8)[index % 3]
                } + Array("]}".utf8)
        }
        let wide = details((OTLPRPCStatus.maxBodyBytes - 16) / 3)
        #expect(wide.count <= OTLPRPCStatus.maxBodyBytes)
        // 1.4 million empty objects: a JSON tree of more than 32 MiB.
        #expect(Kind.status.decodeJSON(wide).failureCode == .recordTooLarge)
        #expect(try OTLPRPCStatus(json: details(100_000)).detailTypeURLs.count == 100_000)
    }

    @Test(
        "wrong wire types, groups, field 0, overlong varints, truncation and bad UTF-8 are malformed_protobuf",
        arguments: [
            (Kind.traces, [0x08, 0x05] as [UInt8], "field 1 as a varint"),
            (.traces, [0x0A, 0x02, 0x0A, 0x00], "rejected_spans as bytes"),
            (.logs, [0x0A, 0x02, 0x15, 0x00], "rejected_log_records as fixed32, cut"),
            (.traces, [0x0B, 0x0C], "a group"),
            (.traces, [0x0A, 0x02, 0x0B, 0x0C], "a group inside partial_success"),
            (.traces, [0x02, 0x00], "field number 0"),
            (.traces, [0x0E], "wire type 6"),
            (.status, [0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01], "an 11-byte varint"),
            (.status, [0x0A, 0x01, 0x41], "code as bytes"),
            (.status, [0x1A, 0x02, 0x08, 0x01], "type_url as a varint"),
            (.status, [0x12, 0x05, 0x41], "message cut short"),
            (.status, [0x1A, 0x80], "length cut short"),
            (.traces, [0x0A, 0x03, 0x12, 0x01, 0xFF], "error_message not UTF-8"),
            (.status, [0x12, 0x02, 0xC0, 0x80], "message an overlong encoding"),
            (.status, [0x1A, 0x05, 0x0A, 0x03, 0xED, 0xA0, 0x80], "type_url a surrogate"),
        ])
    func malformed(kind: Kind, body: [UInt8], what: String) {
        #expect(kind.decodeProtobuf(body).failureCode == .malformedProtobuf, "\(what)")
    }

    @Test("3,000 random mutations of protobuf bodies: never a trap, and the reference decoder agrees wherever it reads one")
    func mutatedProtobufMatchesReference() throws {
        var random = MergeSemanticsTests.Random(state: 0xB0D1E5)
        var cases: [(kind: Kind, body: [UInt8])] = []
        for round in 0..<3_000 {
            let kind = Kind.allCases[round % 3]
            let seeds = kind.seeds
            cases.append((kind, Self.mutate(seeds[random.below(seeds.count)].protobuf, &random)))
        }
        // Every prefix of each seed too (truncation).
        for kind in Kind.allCases {
            for seed in kind.seeds { for end in 0..<seed.protobuf.count { cases.append((kind, Array(seed.protobuf[..<end]))) } }
        }
        let reference = try Self.referenceReadings(cases)
        try #require(reference.count == cases.count)
        var (agreed, refusedByBoth, refusedOnlyByUs) = (0, 0, 0)
        for ((kind, body), theirs) in zip(cases, reference) {
            let hex = body.map { String($0, radix: 16) }.joined(separator: " ")
            switch (kind.decodeProtobuf(body), theirs) {
            case (.success(let ours), .some(let theirs)):
                #expect(ours == theirs.values, "\(kind) \(hex)")
                agreed += 1
            case (.success(let ours), .none):
                Issue.record("\(kind) \(hex): we read \(ours), the reference refuses it")
            case (.failure, .none):
                refusedByBoth += 1
            case (.failure(let error), .some(let theirs)):
                // protobuf-c refuses a known field with another wire type, and groups; the reference reads both as
                // unknown fields. Nothing else may be refused.
                #expect(error.code == .malformedProtobuf, "\(kind) \(hex): \(error)")
                #expect(theirs.hadUnknownFields, "\(kind) \(hex): we refuse what the reference reads: \(error)")
                refusedOnlyByUs += 1
            }
        }
        #expect(agreed > 150 && refusedByBoth > 1_000, "agreed \(agreed), refused by both \(refusedByBoth), only by us \(refusedOnlyByUs)")
    }

    @Test("3,000 random mutations of JSON bodies: a value or a JSON error, never a trap")
    func mutatedJSON() {
        var random = MergeSemanticsTests.Random(state: 0x150B)
        var (decoded, refused) = (0, 0)
        for round in 0..<3_000 {
            let kind = Kind.allCases[round % 3]
            let seeds = kind.seeds
            switch kind.decodeJSON(Self.mutate(seeds[random.below(seeds.count)].json, &random)) {
            case .success: decoded += 1
            case .failure(let error):
                #expect([.malformedJSON, .nestingTooDeep].contains(error.code), "\(error)")
                refused += 1
            }
        }
        #expect(decoded > 100 && refused > 1_000, "decoded \(decoded), refused \(refused)")
    }

    /// One to three random edits: a byte replaced, inserted or removed, a cut, a slice repeated, or bytes that
    /// matter to protobuf or JSON put in.
    static func mutate(_ seed: [UInt8], _ random: inout MergeSemanticsTests.Random) -> [UInt8] {
        var bytes = seed
        let interesting: [[UInt8]] = [
            [0x0A], [0x08], [0x12], [0x1A], [0x80], [0xFF], [0x0B], [0x0C], [0x00], [0xFF, 0xFF, 0xFF, 0xFF, 0x0F],
            Array(#"""#.utf8), Array("{".utf8), Array("}".utf8), Array("[".utf8), Array(":".utf8), Array(",".utf8),
            Array("null".utf8), Array(#""a""#.utf8), Array("\\u".utf8), Array("1e999".utf8), [0xC3], [0xED, 0xA0, 0x80],
        ]
        for _ in 0...random.below(3) {
            let at = random.below(bytes.count + 1)
            switch random.below(6) {
            case 0 where !bytes.isEmpty: bytes[min(at, bytes.count - 1)] = UInt8(random.below(256))
            case 1: bytes.insert(UInt8(random.below(256)), at: at)
            case 2 where at < bytes.count: bytes.remove(at: at)
            case 3: bytes = Array(bytes[..<at])
            case 4 where at < bytes.count:
                let end = min(bytes.count, at + 1 + random.below(8))
                bytes.insert(contentsOf: bytes[at..<end], at: random.below(bytes.count + 1))
            default: bytes.insert(contentsOf: interesting[random.below(interesting.count)], at: at)
            }
        }
        return bytes
    }

    /// The reference decoder's reading of each body: its values (``ReferenceResponses/describe(_:)``' form) and
    /// whether it skipped unknown fields, or `nil` when it refuses the body.
    static func referenceReadings(_ cases: [(kind: Kind, body: [UInt8])]) throws -> [(values: String, hadUnknownFields: Bool)?] {
        let script =
            ReferenceResponses.prelude + """
                for line in sys.stdin.read().split("\\n"):
                    kind, data = line.split(" ", 1)
                    try:
                        m = MESSAGES[kind]()
                        m.ParseFromString(base64.b64decode(data))
                        before = m.SerializeToString()
                        m.DiscardUnknownFields()
                        print("u" if m.SerializeToString() != before else "k", values(kind, m))
                    except Exception:
                        print("error")
                """
        let lines = try ReferenceResponses.run(script, input: cases.map { "\($0.kind.rawValue) \(Data($0.body).base64EncodedString())" })
        return lines.map { line in
            line == "error" ? nil : (String(line.dropFirst(2)), line.hasPrefix("u"))
        }
    }
}

extension Result where Failure == OTLPReadError {
    /// The error's code, or `nil` on success.
    var failureCode: OTLPReadError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
