import Testing
@testable import OTLPWire

@Suite("OTLPDecoder")
struct OTLPDecoderTests {
    /// request { resource_spans { scope_spans { spans { trace_id: <5 bytes> } } } }
    static let shortTraceID: [UInt8] = [0x0A, 0x0B, 0x12, 0x09, 0x12, 0x07, 0x0A, 0x05, 1, 2, 3, 4, 5]

    @Test("a trace ID that is not 16 bytes is rejected (as the Collector does)")
    func wrongIDLength() {
        #expect {
            try OTLPDecoder().decodeTraces(Self.shortTraceID)
        } throws: { error in
            let error = error as! OTLPReadError
            return error.code == .malformedProtobuf && error.message.contains("5 bytes")
        }
    }

    @Test("a gzip member where a request should be is named as one (a gzip spool's record read as a plain file)")
    func gzipMemberNamed() throws {
        let member = try OTLPEncoder().encode(SampleTelemetry.traces(2)).withUnsafeBytes { try OTLPGzip.compress($0) }
        do {
            _ = try OTLPDecoder().decodeTraces(member)
            Issue.record("a gzip member decoded")
        } catch {
            #expect(error.code == .malformedProtobuf && error.message.contains("starts as a gzip member"), "\(error)")
        }
    }

    @Test("the size limit is checked before scanning")
    func sizeLimit() {
        let decoder = OTLPDecoder(options: OTLPDecodingOptions(maxRecordBytes: 8))
        #expect { try decoder.decodeTraces(Self.shortTraceID) } throws: { ($0 as! OTLPReadError).code == .recordTooLarge }
    }

    @Test("a lower nesting limit applies: 4 levels allow a span, 3 do not")
    func depthLimit() throws {
        let bytes = OTLPEncoder().encode(SampleTelemetry.traces(1))
        #expect { try OTLPDecoder(options: OTLPDecodingOptions(maxNestingDepth: 3)).decodeTraces(bytes) } throws: {
            ($0 as! OTLPReadError).code == .nestingTooDeep
        }
        let shallow = OTLPTracesData(
            resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
            items: [
                OTLPSpan(traceID: nil, spanID: nil, name: "x", startTimeUnixNano: 1, endTimeUnixNano: 2)
            ])
        #expect(
            try OTLPDecoder(options: OTLPDecodingOptions(maxNestingDepth: 4)).decodeTraces(OTLPEncoder().encode(shallow)).itemCount == 1)
    }

    @Test("strings with U+0000 and non-ASCII round-trip exactly")
    func nulStrings() throws {
        let name = "a\u{0}b\u{0}\u{0}é🚀\u{0}"
        let data = OTLPTracesData(
            resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "\u{0}"),
            items: [
                OTLPSpan(
                    traceID: nil, spanID: nil, name: name, startTimeUnixNano: 1, endTimeUnixNano: 2,
                    attributes: [OTLPAttribute("\u{0}k", .string("\u{0}"))])
            ])
        let decoded = try OTLPDecoder().decodeTraces(OTLPEncoder().encode(data))
        #expect(decoded == data)
        #expect(decoded.resourceGroups[0].scopeGroups[0].items[0].name.utf8.count == name.utf8.count)
    }

    @Test("signal detection: traces, logs, and an empty request says neither")
    func detection() {
        let traces = OTLPEncoder().encode(SampleTelemetry.traces(2))
        let logs = OTLPEncoder().encode(SampleTelemetry.logs(2))
        #expect(traces.withUnsafeBytes { OTLPDecoder().detectSignal($0) } == .traces)
        #expect(logs.withUnsafeBytes { OTLPDecoder().detectSignal($0) } == .logs)
        #expect([UInt8]().withUnsafeBytes { OTLPDecoder().detectSignal($0) } == nil)
        #expect { try OTLPDecoder().decodeTraces(logs) } throws: { ($0 as! OTLPReadError).code == .wrongKind }
    }
}

@Suite("OTLPJSONDecoder")
struct OTLPJSONDecoderTests {
    func traces(_ json: String) throws(OTLPReadError) -> OTLPTracesData {
        let bytes = Array(json.utf8)
        return try bytes.withUnsafeBytes { buffer in Result { () throws(OTLPReadError) in try OTLPJSONDecoder().decodeTraces(buffer) } }
            .get()
    }

    @Test("accepts snake_case names, numbers for 64-bit integers, enum names, special doubles")
    func lenient() throws {
        let data = try traces(
            """
            {"resource_spans":[{"scope_spans":[{"spans":[{"trace_id":"5B8EFFF798038103D269B633813FC60C","span_id":"eee19b7ec3c1b174",
            "name":"n","kind":"SPAN_KIND_SERVER","start_time_unix_nano":1700000000000000000,"endTimeUnixNano":"1700000000000000001",
            "attributes":[{"key":"nan","value":{"doubleValue":"NaN"}},{"key":"inf","value":{"doubleValue":"-Infinity"}},
            {"key":"i","value":{"intValue":-5}},{"key":"b","value":{"bytesValue":"AP8="}}],
            "status":{"code":"STATUS_CODE_ERROR"}}]}]}]}
            """)
        let span = data.resourceGroups[0].scopeGroups[0].items[0]
        #expect(span.traceID?.hex == "5b8efff798038103d269b633813fc60c")
        #expect(span.kind == .server)
        #expect(span.startTimeUnixNano == 1_700_000_000_000_000_000)
        #expect(span.status?.code == .error)
        if case .double(let nan)? = span.attributes[0].value { #expect(nan.isNaN) } else { Issue.record("NaN") }
        #expect(span.attributes[1].value == .double(-.infinity))
        #expect(span.attributes[2].value == .int(-5))
        #expect(span.attributes[3].value == .bytes([0, 255]))
    }

    @Test("errors name the JSON path or the byte offset")
    func errors() {
        #expect { try traces(#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"abc"}]}]}]}"#) } throws: {
            let error = $0 as! OTLPReadError
            return error.code == .malformedJSON && error.message.contains("$.resourceSpans[0].scopeSpans[0].spans[0].traceId")
        }
        #expect { try traces(#"{"resourceSpans":[}"#) } throws: {
            let error = $0 as! OTLPReadError
            return error.code == .malformedJSON && error.byteOffset == 18
        }
        let deep = String(repeating: "[", count: 100_000)
        #expect { try traces(deep) } throws: { ($0 as! OTLPReadError).code == .nestingTooDeep }
    }
}
