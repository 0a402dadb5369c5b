import Foundation
import OTLPTestSupport
import Testing
@testable import OTLPWire

/// Integers and doubles in OTLP JSON: exact integers in range only (any exponent or fraction form), every
/// other number `malformed_json` naming the field; never a trap, never a value rounded through a `Double`.
@Suite("OTLP JSON numbers")
struct OTLPJSONNumberTests {
    static func spanJSON(_ members: String) -> String {
        #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"# + members + "}]}]}]}"
    }

    static func decodeTraces(_ json: String) throws(OTLPReadError) -> OTLPTracesData {
        let bytes = Array(json.utf8)
        return try bytes.withUnsafeBytes { buffer in Result { () throws(OTLPReadError) in try OTLPJSONDecoder().decodeTraces(buffer) } }
            .get()
    }

    static func decodeLogs(_ json: String) throws(OTLPReadError) -> OTLPLogsData {
        let bytes = Array(json.utf8)
        return try bytes.withUnsafeBytes { buffer in Result { () throws(OTLPReadError) in try OTLPJSONDecoder().decodeLogs(buffer) } }.get()
    }

    static func startTime(_ literal: String) throws(OTLPReadError) -> UInt64 {
        try decodeTraces(spanJSON(#""startTimeUnixNano":"# + literal)).resourceGroups[0].scopeGroups[0].items[0].startTimeUnixNano
    }

    /// A fixed64 time: every exact integer form, read without rounding.
    static let acceptedTimes: [(String, UInt64)] = [
        ("1e3", 1000), ("1E3", 1000), ("1e+3", 1000), ("1.5e1", 15), (#""1e3""#, 1000), (#""1.5e1""#, 15), ("1.0", 1),
        ("-0", 0), (#""-0""#, 0), ("-0.0e5", 0), ("0e999999999999999999", 0), ("1000e-3", 1), ("12.500e1", 125),
        ("18446744073709551615", .max), (#""18446744073709551615""#, .max), ("1.8446744073709551615e19", .max),
        ("1.700000000000000001e18", 1_700_000_000_000_000_001), (#""1.700000000000000001e18""#, 1_700_000_000_000_000_001),
        (#""+5""#, 5), (#""007""#, 7), ("123456789000000000e-8", 1_234_567_890), ("0.00000000000000000001e20", 1),
    ]

    @Test("exact integers in any JSON number form are read exactly", arguments: acceptedTimes)
    func acceptsExactIntegers(literal: String, expected: UInt64) throws {
        #expect(try Self.startTime(literal) == expected)
    }

    /// Out of range, not an integer, or not a number: `malformed_json` naming the field.
    static let rejectedTimes = [
        "1.85e19", "-1e19", #""-9.3e18""#, "1.5", "1e-400", "18446744073709551616", #""18446744073709551616""#,
        "1.8446744073709551616e19", "1e999999999999999999999", "1e19999999999", "-1", #""-1""#, "1.0000000000000000000001",
        #""0x10""#, #"" 5""#, #""5 ""#, #""""#, #""1e""#, #""1.""#, #"".5""#, #""inf""#, #""NaN""#, "true", "[1]", "{}",
        String(repeating: "9", count: 10_000), "1" + String(repeating: "0", count: 500) + "e-480",
        "1" + String(repeating: "0", count: 500) + "e-501",
    ]

    @Test("out of range, fractional or non-numeric 64-bit times are malformed_json naming the field", arguments: rejectedTimes)
    func rejectsOthers(literal: String) {
        #expect {
            try Self.startTime(literal)
        } throws: { error in
            let error = error as! OTLPReadError
            return error.code == .malformedJSON && error.message.contains("$.resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano")
        }
    }

    @Test("error messages say what is wrong and keep hostile texts short")
    func messages() {
        func message(_ literal: String) -> String {
            do { _ = try Self.startTime(literal); return "accepted" } catch { return error.message }
        }
        #expect(message("1.85e19").contains("out of range for an unsigned 64-bit integer"))
        #expect(message("1.5").contains("is not an integer"))
        #expect(message(#""0x10""#).contains("is not an unsigned 64-bit integer"))
        #expect(message(String(repeating: "9", count: 10_000)).utf8.count < 200)
    }

    /// Every integer field of the trace and log models, at every width and signedness: the largest value
    /// is accepted in exponent form where exact, one past it is refused by name.
    static let integerFields: [(member: String, path: String, max: String, pastMax: String)] = {
        let span = "$.resourceSpans[0].scopeSpans[0].spans[0]"
        var fields: [(String, String, String, String)] = []
        for name in ["startTimeUnixNano", "endTimeUnixNano"] {
            fields.append((#""\#(name)":"#, "\(span).\(name)", "1.8446744073709551615e19", "1.85e19"))
        }
        for name in ["flags", "droppedAttributesCount", "droppedEventsCount", "droppedLinksCount"] {
            fields.append((#""\#(name)":"#, "\(span).\(name)", "4.294967295e9", "4.294967296e9"))
        }
        fields.append((#""kind":"#, "\(span).kind", "2.147483647e9", "2.147483648e9"))
        fields.append((#""status":{"code":"#, "\(span).status.code", "2.147483647e9", "-2.147483649e9"))
        fields.append((#""events":[{"timeUnixNano":"#, "\(span).events[0].timeUnixNano", "1.8446744073709551615e19", "-1e19"))
        fields.append((#""events":[{"droppedAttributesCount":"#, "\(span).events[0].droppedAttributesCount", "4294967295", "-1"))
        fields.append((#""links":[{"flags":"#, "\(span).links[0].flags", "4294967295", "1e10"))
        fields.append((#""links":[{"droppedAttributesCount":"#, "\(span).links[0].droppedAttributesCount", "4294967295", "4294967296"))
        fields.append(
            (
                #""attributes":[{"key":"k","value":{"intValue":"#, "\(span).attributes[0].value.intValue", "9.223372036854775807e18",
                "9.223372036854775808e18"
            ))
        fields.append(
            (
                #""attributes":[{"key":"k","value":{"intValue":"#, "\(span).attributes[0].value.intValue", "-9.223372036854775808e18",
                "-9.3e18"
            ))
        fields.append(
            (
                #""attributes":[{"key":"k","value":{"arrayValue":{"values":[{"intValue":"#,
                "\(span).attributes[0].value.arrayValue.values[0].intValue", "-9223372036854775808", #""-9223372036854775809""#
            ))
        return fields
    }()

    /// Closes the brackets a field's member text opened.
    static func closing(_ member: String) -> String {
        String(member.reversed().compactMap { $0 == "{" ? "}" : $0 == "[" ? "]" : nil })
    }

    @Test(
        "every integer field of a span: the limit in exponent form accepted, past it malformed_json naming the field",
        arguments: 0..<integerFields.count)
    func spanIntegerFields(index: Int) throws {
        let field = Self.integerFields[index]
        _ = try Self.decodeTraces(Self.spanJSON(field.member + field.max + Self.closing(field.member)))
        #expect {
            try Self.decodeTraces(Self.spanJSON(field.member + field.pastMax + Self.closing(field.member)))
        } throws: { error in
            let error = error as! OTLPReadError
            return error.code == .malformedJSON && error.message.contains(field.path + ": ") && error.message.contains("out of range")
        }
    }

    @Test(
        "every integer field of the log model, of resources and scopes",
        arguments: [
            (#""timeUnixNano":"#, "1.85e19"), (#""observedTimeUnixNano":"#, "-1e19"), (#""severityNumber":"#, "2147483648"),
            (#""flags":"#, "4294967296"), (#""droppedAttributesCount":"#, "1.5"), (#""body":{"intValue":"#, #""-9.3e18""#),
        ])
    func logIntegerFields(member: String, literal: String) {
        let json = #"{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"# + member + literal + Self.closing(member) + "}]}]}]}"
        #expect { try Self.decodeLogs(json) } throws: { error in
            let error = error as! OTLPReadError
            return error.code == .malformedJSON && error.message.contains("$.resourceLogs[0].scopeLogs[0].logRecords[0].")
        }
        let resource =
            #"{"resourceLogs":[{"resource":{"droppedAttributesCount":1e10},"scopeLogs":[{"scope":{"droppedAttributesCount":1}}]}]}"#
        #expect { try Self.decodeLogs(resource) } throws: {
            ($0 as! OTLPReadError).message.contains("$.resourceLogs[0].resource.droppedAttributesCount")
        }
        let scope = #"{"resourceLogs":[{"scopeLogs":[{"scope":{"droppedAttributesCount":"-3"}}]}]}"#
        #expect { try Self.decodeLogs(scope) } throws: {
            ($0 as! OTLPReadError).message.contains("$.resourceLogs[0].scopeLogs[0].scope.droppedAttributesCount")
        }
    }

    @Test("enums: names, integers in exponent form, and 32-bit range")
    func enums() throws {
        let span = try Self.decodeTraces(Self.spanJSON(#""kind":3e0,"status":{"code":"2"}"#)).resourceGroups[0].scopeGroups[0].items[0]
        #expect(span.kind == .client && span.status?.code == .error)
        let log = try Self.decodeLogs(#"{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityNumber":1.7e1}]}]}]}"#)
        #expect(log.resourceGroups[0].scopeGroups[0].items[0].severity.rawValue == 17)
        #expect { try Self.decodeTraces(Self.spanJSON(#""kind":"SPAN_KIND_NOPE""#)) } throws: {
            ($0 as! OTLPReadError).code == .malformedJSON
        }
    }

    @Test("doubles: overflow is malformed_json, underflow is zero, -0 keeps its sign, only JSON number texts")
    func doubles() throws {
        func double(_ literal: String) throws(OTLPReadError) -> Double? {
            let data = try Self.decodeTraces(Self.spanJSON(#""attributes":[{"key":"d","value":{"doubleValue":"# + literal + "}}]"))
            if case .double(let value)? = data.resourceGroups[0].scopeGroups[0].items[0].attributes[0].value { return value }
            return nil
        }
        #expect(try double("-0")?.sign == .minus)
        #expect(try double(#""-0""#)?.sign == .minus)
        #expect(try double("1e-400") == 0)
        #expect(try double("1.5e300") == 1.5e300)
        #expect(try double(#""2.5""#) == 2.5)
        #expect(try double(#""Infinity""#) == .infinity)
        for literal in [
            "1e400", "-1e400", #""1e400""#, "1e99999999999999999999999", #""0x10""#, #""inf""#, #""nan""#, #"" 1""#, #""1_0""#, "true",
        ] {
            #expect(throws: OTLPReadError.self, "\(literal)") { try double(literal) }
            do { _ = try double(literal) } catch {
                #expect(error.code == .malformedJSON && error.message.contains("doubleValue"), "\(literal)")
            }
        }
    }

    @Test("JSONNumber: every integer width, exactly at the limits")
    func widths() throws {
        #expect(try JSONNumber("-128", quoted: false).integer(as: Int8.self) == -128)
        #expect(throws: JSONNumber.Failure.outOfRange) { try JSONNumber("-129", quoted: false).integer(as: Int8.self) }
        #expect(try JSONNumber("-9223372036854775808", quoted: false).integer(as: Int64.self) == .min)
        #expect(throws: JSONNumber.Failure.outOfRange) { try JSONNumber("9223372036854775808", quoted: false).integer(as: Int64.self) }
        #expect(try JSONNumber("4.294967295e9", quoted: false).integer(as: UInt32.self) == .max)
        #expect(throws: JSONNumber.Failure.outOfRange) { try JSONNumber("-1", quoted: false).integer(as: UInt32.self) }
        #expect(try JSONNumber("-0e-99999", quoted: false).integer(as: UInt8.self) == 0)
        #expect(throws: JSONNumber.Failure.notAnInteger) { try JSONNumber("1e-1", quoted: false).integer(as: Int64.self) }
        #expect(throws: JSONNumber.Failure.notANumber) { try JSONNumber("01", quoted: false).integer(as: Int64.self) }
        #expect(throws: JSONNumber.Failure.notANumber) { try JSONNumber("+1", quoted: false).integer(as: Int64.self) }
    }

    /// The reference (`google.protobuf.json_format`, which reads JSON numbers as Python floats) agrees on
    /// every case here. It differs, by rounding through a double, where this reader is exact:
    /// `1.700000000000000001e18` (the reference gives ...000) and `1e-400` (the reference gives 0).
    static let referenceCases = [
        "1e3", "1.5e1", #""1e3""#, #""1.5e1""#, "1.0", "-0", #""+5""#, #""007""#, "18446744073709551615", "1.85e19", "-1e19",
        #""-9.3e18""#, "1.5", "18446744073709551616", "1e400", #""0x10""#, #"" 5""#, "-1",
    ]

    @Test("accepts and refuses the same integer texts as the reference protobuf JSON reader")
    func matchesReference() throws {
        let script = """
            import json, sys
            from google.protobuf import json_format
            from opentelemetry.proto.trace.v1.trace_pb2 import Span
            for literal in json.loads(sys.stdin.read()):
                try:
                    print(json_format.Parse('{"startTimeUnixNano": %s}' % literal, Span()).start_time_unix_nano)
                except Exception:
                    print("error")
            """
        let input = try JSONSerialization.data(withJSONObject: Self.referenceCases)
        let result = try OTLPProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script], stdin: input)
        try #require(result.status == 0, "\(result.errors)")
        let reference = result.output.split(separator: "\n").map(String.init)
        try #require(reference.count == Self.referenceCases.count)
        for (literal, expected) in zip(Self.referenceCases, reference) {
            let ours: String
            do { ours = String(try Self.startTime(literal)) } catch { ours = "error" }
            #expect(ours == expected, "\(literal)")
        }
    }
}
