import Foundation
import Testing
import OTLPWire

/// The error body of a 4xx/5xx OTLP/HTTP response (`google.rpc.Status`): protobuf and JSON both ways, and
/// the reference implementation's bytes.
@Suite("google.rpc.Status bodies")
struct OTLPRPCStatusTests {
    static let samples: [OTLPRPCStatus] = [
        OTLPRPCStatus(code: 0),
        OTLPRPCStatus(code: 3, message: "request body is not a valid ExportTraceServiceRequest"),
        OTLPRPCStatus(
            code: 8, message: "too many requests",
            detailTypeURLs: ["type.googleapis.com/google.rpc.RetryInfo", "type.googleapis.com/google.rpc.ErrorInfo"]),
        OTLPRPCStatus(code: .max, message: "héllo \"wörld\" \\ \n\t\u{0} 🚀", detailTypeURLs: [""]),
        OTLPRPCStatus(code: .min, detailTypeURLs: ["type.googleapis.com/google.rpc.BadRequest"]),
        OTLPRPCStatus(code: -1),
    ]

    @Test("protobuf and JSON round trips")
    func roundTrips() throws {
        for sample in Self.samples {
            #expect(try OTLPRPCStatus(protobuf: sample.encoded()) == sample)
            #expect(try OTLPRPCStatus(json: sample.jsonEncoded()) == sample, "\(String(decoding: sample.jsonEncoded(), as: UTF8.self))")
        }
    }

    @Test("JSON in protobuf's mapping: defaults left out, each detail by its @type")
    func jsonForm() {
        #expect(String(decoding: OTLPRPCStatus(code: 0).jsonEncoded(), as: UTF8.self) == "{}")
        let status = OTLPRPCStatus(code: 3, message: "bad", detailTypeURLs: ["type.googleapis.com/google.rpc.ErrorInfo", ""])
        #expect(
            String(decoding: status.jsonEncoded(), as: UTF8.self)
                == #"{"code":3,"message":"bad","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo"},{}]}"#)
    }

    @Test("empty bodies, codes as strings, snake_case, detail fields and unknown fields")
    func jsonAccepted() throws {
        let cases: [(String, OTLPRPCStatus)] = [
            ("", OTLPRPCStatus(code: 0)),
            ("{}", OTLPRPCStatus(code: 0)),
            (#"{"code":"14","message":"unavailable"}"#, OTLPRPCStatus(code: 14, message: "unavailable")),
            (#"{"code":-2147483648}"#, OTLPRPCStatus(code: .min)),
            (#"{"code":null,"message":null,"details":null}"#, OTLPRPCStatus(code: 0)),
            (
                #"{"details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"a","description":"b"}]},{}],"other":{"x":[[]]}}"#,
                OTLPRPCStatus(code: 0, detailTypeURLs: ["type.googleapis.com/google.rpc.BadRequest", ""])
            ),
        ]
        for (json, expected) in cases {
            #expect(try OTLPRPCStatus(json: Array(json.utf8)) == expected, "\(json)")
        }
    }

    @Test("JSON that is not a Status is malformed_json, naming the field")
    func jsonRefused() {
        let cases: [(String, String)] = [
            ("[]", "$ is not an object"),
            (#"{"code":2147483648}"#, "$.code"),
            (#"{"code":1.5}"#, "not an integer"),
            (#"{"code":true}"#, "$.code is not a signed 32-bit integer"),
            (#"{"message":[]}"#, "$.message is not a string"),
            (#"{"details":{}}"#, "$.details is not an array"),
            (#"{"details":["x"]}"#, "$.details[0] is not an object"),
            (#"{"details":[{"@type":1}]}"#, "$.details[0].@type is not a string"),
            (#"{"code":1,"code":2}"#, "occurs more than once"),
            (#"{"message":"\ud800"}"#, ""),
        ]
        for (json, fragment) in cases {
            do {
                _ = try OTLPRPCStatus(json: Array(json.utf8))
                Issue.record("accepted \(json)")
            } catch {
                #expect(error.code == .malformedJSON, "\(json): \(error)")
                #expect(error.message.hasPrefix("google.rpc.Status JSON: "), "\(error)")
                #expect(fragment.isEmpty || error.message.contains(fragment), "\(json): \(error)")
            }
        }
    }

    @Test("bodies made by the reference implementation (with real detail messages) decode to its values; it reads ours back")
    func reference() throws {
        let script =
            ReferenceResponses.prelude + """
                from google.rpc import error_details_pb2
                DETAILS = {
                    "type.googleapis.com/google.rpc.RetryInfo": lambda: error_details_pb2.RetryInfo(retry_delay={"seconds": 2}),
                    "type.googleapis.com/google.rpc.ErrorInfo": lambda: error_details_pb2.ErrorInfo(reason="QUOTA", domain="otlp"),
                    "type.googleapis.com/google.rpc.BadRequest": lambda: error_details_pb2.BadRequest(
                        field_violations=[error_details_pb2.BadRequest.FieldViolation(field="spans", description="empty")]),
                }
                for line in sys.stdin.read().split("\\n"):
                    fields = line.split(" ")
                    ours_pb, ours_json, code = fields[0], fields[1], int(fields[2])
                    message = base64.b64decode(fields[3]).decode("utf-8")
                    m = status_pb2.Status(code=code, message=message)
                    for url in fields[4:]:
                        m.details.add().Pack(DETAILS[base64.b64decode(url).decode("utf-8")]())
                    theirs_pb = base64.b64encode(m.SerializeToString()).decode("ascii")
                    theirs_json = base64.b64encode(json_format.MessageToJson(m, indent=None).encode("utf-8")).decode("ascii")
                    back_pb = status_pb2.Status(); back_pb.ParseFromString(base64.b64decode(ours_pb))
                    back_json = json_format.Parse(base64.b64decode(ours_json), status_pb2.Status())
                    print(theirs_pb, theirs_json, values("status", back_pb).replace(" ", "/"), values("status", back_json).replace(" ", "/"))
                """
        // Detail types the reference can pack (and parse back from JSON): the ones in google/rpc/error_details.proto.
        let samples = Self.samples.filter { !$0.detailTypeURLs.contains("") }
        let input = samples.map { sample in
            ([sample.encoded(), sample.jsonEncoded()].map { Data($0).base64EncodedString() } + [String(sample.code)]
                + ([sample.message] + sample.detailTypeURLs).map { Data($0.utf8).base64EncodedString() }).joined(separator: " ")
        }
        let lines = try ReferenceResponses.run(script, input: input)
        try #require(lines.count == samples.count)
        for (line, sample) in zip(lines, samples) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            try #require(fields.count == 4, "\(line)")
            let theirProtobuf = try #require(Data(base64Encoded: fields[0])).map { $0 }
            let theirJSON = try #require(Data(base64Encoded: fields[1])).map { $0 }
            #expect(try OTLPRPCStatus(protobuf: theirProtobuf) == sample)
            #expect(try OTLPRPCStatus(json: theirJSON) == sample, "\(String(decoding: theirJSON, as: UTF8.self))")
            let described = ReferenceResponses.describe(sample).replacingOccurrences(of: " ", with: "/")
            #expect(fields[2] == described)
            #expect(fields[3] == described)
        }
    }
}
