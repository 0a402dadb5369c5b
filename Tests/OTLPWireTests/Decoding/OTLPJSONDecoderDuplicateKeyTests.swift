import OTLPWire
import Testing

@Suite("OTLPJSONDecoder duplicate keys")
struct OTLPJSONDecoderDuplicateKeyTests {
    static func decodeTraces(_ json: String) throws(OTLPReadError) -> OTLPTracesData {
        let bytes = Array(json.utf8)
        return try bytes.withUnsafeBytes { buffer in Result { () throws(OTLPReadError) in try OTLPJSONDecoder().decodeTraces(buffer) } }
            .get()
    }

    @Test(
        "regression: a key given twice in one object is malformed_json naming it (one of its values was dropped silently)",
        arguments: [
            #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"a"}]}]}],"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"b"}]}]}]}"#,
            #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"a","name":"b"}]}]}]}"#,
            #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"k","value":{"stringValue":"x"},"key":"j"}]}]}]}]}"#,
        ])
    func duplicateKeys(json: String) {
        #expect {
            try Self.decodeTraces(json)
        } throws: { error in
            let error = error as! OTLPReadError
            return error.code == .malformedJSON && error.message.contains("occurs more than once")
        }
    }

    @Test("the same member under its camelCase and snake_case names is not a duplicate key")
    func distinctSpellings() throws {
        let data = try Self.decodeTraces(
            #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"a","startTimeUnixNano":"1"}],"schemaUrl":"u"}]}]}"#)
        #expect(data.itemCount == 1)
    }

    /// Regression: an AnyValue with two members kept the last silently; the reference decoder refuses it.
    @Test("an AnyValue with two members of its oneof is malformed_json naming both; a null member counts as absent")
    func anyValueWithTwoMembers() throws {
        #expect {
            try Self.decodeTraces(
                #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"k","value":{"stringValue":"x","intValue":"1"}}]}]}]}]}"#
            )
        } throws: { error in
            let error = error as! OTLPReadError
            return error.code == .malformedJSON
                && error.message.contains("spans[0].attributes[0].value: stringValue and intValue are both set")
        }
        let data = try Self.decodeTraces(
            #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"k","value":{"stringValue":null,"intValue":"1"}}]}]}]}]}"#)
        #expect(data.resourceGroups[0].scopeGroups[0].items[0].attributes == [OTLPAttribute("k", 1)])
    }
}
