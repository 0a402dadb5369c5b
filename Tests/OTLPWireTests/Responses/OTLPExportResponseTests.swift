import Foundation
import Testing
import OTLPWire

/// The collector's answer to an export (`Export*ServiceResponse`): protobuf and OTLP JSON both ways, and the
/// reference implementation's bytes.
@Suite("OTLP export responses")
struct OTLPExportResponseTests {
    static let samples: [OTLPExportResponse] = [
        OTLPExportResponse(),
        OTLPExportResponse(rejectedItems: 3, errorMessage: "3 spans had no name"),
        OTLPExportResponse(rejectedItems: 0, errorMessage: "warning: deprecated attribute names"),
        OTLPExportResponse(rejectedItems: 12),
        OTLPExportResponse(rejectedItems: .max, errorMessage: "héllo \"wörld\" \\ \n\t\u{0} 🚀"),
        OTLPExportResponse(rejectedItems: .min, errorMessage: "negative, as sent"),
        OTLPExportResponse(rejectedItems: -1),
    ]

    @Test("protobuf round trip for every signal", arguments: OTLPSignal.allCases)
    func protobufRoundTrip(signal: OTLPSignal) throws {
        for sample in Self.samples {
            #expect(try OTLPExportResponse(protobuf: sample.encoded(for: signal), for: signal) == sample)
        }
    }

    @Test("JSON round trip for every signal", arguments: OTLPSignal.allCases)
    func jsonRoundTrip(signal: OTLPSignal) throws {
        for sample in Self.samples {
            #expect(try OTLPExportResponse(json: sample.jsonEncoded(for: signal), for: signal) == sample)
        }
    }

    @Test("a full success is an empty protobuf body and {} in JSON; both, and whitespace, decode as one")
    func fullSuccess() throws {
        for signal in OTLPSignal.allCases {
            #expect(OTLPExportResponse().encoded(for: signal) == [])
            #expect(String(decoding: OTLPExportResponse().jsonEncoded(for: signal), as: UTF8.self) == "{}")
            #expect(try OTLPExportResponse(protobuf: [], for: signal).isFullSuccess)
            for json in ["", " \n\t\r", "{}", #"{"partialSuccess":null}"#, #"{"partialSuccess":{}}"#] {
                #expect(try OTLPExportResponse(json: Array(json.utf8), for: signal) == OTLPExportResponse(), "\(json)")
            }
        }
        #expect(!OTLPExportResponse(rejectedItems: 0, errorMessage: "warning").isFullSuccess)
    }

    @Test("JSON as the OTLP JSON encoding writes it: the count a string, lowerCamelCase names")
    func jsonForm() {
        let response = OTLPExportResponse(rejectedItems: 3, errorMessage: "x")
        #expect(
            String(decoding: response.jsonEncoded(for: .traces), as: UTF8.self)
                == #"{"partialSuccess":{"rejectedSpans":"3","errorMessage":"x"}}"#)
        #expect(
            String(decoding: response.jsonEncoded(for: .logs), as: UTF8.self)
                == #"{"partialSuccess":{"rejectedLogRecords":"3","errorMessage":"x"}}"#)
        #expect(
            String(decoding: response.jsonEncoded(for: .metrics), as: UTF8.self)
                == #"{"partialSuccess":{"rejectedDataPoints":"3","errorMessage":"x"}}"#)
    }

    @Test("JSON a reader must accept: counts as numbers, strings or exponents, snake_case, unknown fields, null")
    func jsonAccepted() throws {
        let cases: [(String, OTLPSignal, OTLPExportResponse)] = [
            (#"{"partialSuccess":{"rejectedSpans":3}}"#, .traces, .init(rejectedItems: 3)),
            (#"{"partialSuccess":{"rejectedSpans":"-9223372036854775808"}}"#, .traces, .init(rejectedItems: .min)),
            (#"{"partialSuccess":{"rejectedSpans":3e2,"errorMessage":"e"}}"#, .traces, .init(rejectedItems: 300, errorMessage: "e")),
            (#"{"partial_success":{"rejected_log_records":"7","error_message":"m"}}"#, .logs, .init(rejectedItems: 7, errorMessage: "m")),
            (#"{"partialSuccess":{"rejectedLogRecords":5}}"#, .traces, .init()),  // the other signal's count is unknown here
            (#"{"extra":[1,{"a":null}],"partialSuccess":{"rejectedSpans":null,"errorMessage":null,"more":true}}"#, .traces, .init()),
            (#" {"partialSuccess" : {"errorMessage":"\u00e9\n"}} "#, .traces, .init(errorMessage: "é\n")),
        ]
        for (json, signal, expected) in cases {
            #expect(try OTLPExportResponse(json: Array(json.utf8), for: signal) == expected, "\(json)")
        }
    }

    @Test("JSON that is not a response is malformed_json, naming the field")
    func jsonRefused() {
        let cases: [(String, String)] = [
            ("[]", "$ is not an object"),
            ("null", "$ is not an object"),
            (#"{"partialSuccess":3}"#, "$.partialSuccess is not an object"),
            (#"{"partialSuccess":{"rejectedSpans":"abc"}}"#, "$.partialSuccess.rejectedSpans"),
            (#"{"partialSuccess":{"rejectedSpans":"9223372036854775808"}}"#, "out of range"),
            (#"{"partialSuccess":{"rejectedSpans":1.5}}"#, "not an integer"),
            (#"{"partialSuccess":{"errorMessage":5}}"#, "$.partialSuccess.errorMessage is not a string"),
            (#"{"partialSuccess":{},"partialSuccess":{}}"#, "occurs more than once"),
            (#"{"partialSuccess":"#, "unexpected end"),
            ("{} {}", "after the JSON value"),
            ("\u{FEFF}{}", ""),
        ]
        for (json, fragment) in cases {
            do {
                _ = try OTLPExportResponse(json: Array(json.utf8), for: .traces)
                Issue.record("accepted \(json)")
            } catch {
                #expect(error.code == .malformedJSON, "\(json): \(error)")
                #expect(error.message.hasPrefix("ExportTraceServiceResponse JSON: "), "\(error)")
                #expect(fragment.isEmpty || error.message.contains(fragment), "\(json): \(error)")
            }
        }
    }

    @Test("a partial_success sent twice is merged as protobuf defines (protobuf-c alone would lose the first count)")
    func repeatedPartialSuccessMerged() throws {
        // partial_success {rejected_spans: 3}, then partial_success {error_message: "x"}, an unknown field between.
        let body: [UInt8] = [0x0A, 0x02, 0x08, 0x03, 0x28, 0x01, 0x0A, 0x03, 0x12, 0x01, 0x78]
        #expect(try OTLPExportResponse(protobuf: body, for: .traces) == OTLPExportResponse(rejectedItems: 3, errorMessage: "x"))
        #expect(try OTLPExportResponse(protobuf: body, for: .logs) == OTLPExportResponse(rejectedItems: 3, errorMessage: "x"))
        // A later count wins over an earlier one.
        let twice: [UInt8] = [0x0A, 0x02, 0x08, 0x03, 0x0A, 0x02, 0x08, 0x05]
        #expect(try OTLPExportResponse(protobuf: twice, for: .traces).rejectedItems == 5)
        let reference = try ReferenceResponses.decodeProtobuf([("traces", body), ("traces", twice)])
        #expect(reference == ["3 eA==", "5 "])
    }

    @Test("bodies made by the reference implementation decode to its values; ours are byte-identical and read back by it")
    func reference() throws {
        let script =
            ReferenceResponses.prelude + """
                PS = {"traces": trace_service_pb2.ExportTracePartialSuccess, "logs": logs_service_pb2.ExportLogsPartialSuccess,
                      "metrics": metrics_service_pb2.ExportMetricsPartialSuccess}
                for line in sys.stdin.read().split("\\n"):
                    kind, rejected, message, ours_pb, ours_json = line.split(" ")
                    message = base64.b64decode(message).decode("utf-8")
                    m = MESSAGES[kind]()
                    field = {"traces": "rejected_spans", "logs": "rejected_log_records", "metrics": "rejected_data_points"}[kind]
                    if int(rejected) != 0 or message:
                        m.partial_success.CopyFrom(PS[kind](**{field: int(rejected), "error_message": message}))
                    theirs_pb = base64.b64encode(m.SerializeToString()).decode("ascii")
                    theirs_json = base64.b64encode(json_format.MessageToJson(m, indent=None).encode("utf-8")).decode("ascii")
                    back_pb = MESSAGES[kind](); back_pb.ParseFromString(base64.b64decode(ours_pb))
                    back_json = json_format.Parse(base64.b64decode(ours_json), MESSAGES[kind]())
                    print(theirs_pb, theirs_json, values(kind, back_pb).replace(" ", "/"), values(kind, back_json).replace(" ", "/"))
                """
        var input: [String] = []
        var expected: [(OTLPSignal, OTLPExportResponse)] = []
        for signal in OTLPSignal.allCases {
            for sample in Self.samples {
                let ours = [sample.encoded(for: signal), sample.jsonEncoded(for: signal)].map { Data($0).base64EncodedString() }
                input.append(
                    "\(signal) \(sample.rejectedItems) \(Data(sample.errorMessage.utf8).base64EncodedString()) \(ours[0]) \(ours[1])")
                expected.append((signal, sample))
            }
        }
        let lines = try ReferenceResponses.run(script, input: input)
        try #require(lines.count == expected.count)
        for (line, (signal, sample)) in zip(lines, expected) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            try #require(fields.count == 4, "\(line)")
            let theirProtobuf = try #require(Data(base64Encoded: fields[0])).map { $0 }
            let theirJSON = try #require(Data(base64Encoded: fields[1])).map { $0 }
            #expect(try OTLPExportResponse(protobuf: theirProtobuf, for: signal) == sample)
            #expect(try OTLPExportResponse(json: theirJSON, for: signal) == sample, "\(String(decoding: theirJSON, as: UTF8.self))")
            #expect(sample.encoded(for: signal) == theirProtobuf)
            let described = ReferenceResponses.describe(sample).replacingOccurrences(of: " ", with: "/")
            #expect(fields[2] == described)
            #expect(fields[3] == described)
        }
    }
}
