extension OTLPRPCStatus {
    /// Decodes a JSON body in memory (the public entry takes any collection of bytes).
    package init(json body: UnsafeRawBufferPointer) throws(OTLPReadError) {
        let name = Self.messageName
        try ResponseBody.checkSize(body.count, name)
        guard let root = try ResponseBody.jsonObject(body, name) else {
            self.init(code: 0)
            return
        }
        do {
            self.init(
                code: try root.member("code", "code").map { (path, value) throws(OTLPReadError) -> Int32 in
                    try JSONObject.integer(value, path, "a signed 32-bit integer")
                } ?? 0,
                message: try root.string("message", "message"),
                detailTypeURLs: try root.array("details", "details") { (detail) throws(OTLPReadError) in
                    try detail.string("@type", "@type")
                })
        } catch {
            throw OTLPReadError(error.code, "\(name) JSON: \(error.message)", offsetIn: .record)
        }
    }

    /// Decodes a JSON body (`Content-Type: application/json`): a `google.rpc.Status` in protobuf's JSON
    /// mapping, `{"code":3,"message":"…","details":[{"@type":"…", …}]}`.
    ///
    /// lowerCamelCase or snake_case names; `code` as a number or a string (exactly, in exponent form too);
    /// `null` for an absent field; unknown fields ignored. Of each detail only `@type` is read (its other
    /// members are the detail message's fields). An empty body (or only whitespace) and `{}` are a status
    /// with code 0 and no message.
    ///
    /// - Throws: ``OTLPReadError`` with code ``OTLPReadError/Code/recordTooLarge`` for a body over
    ///   4 MiB, ``OTLPReadError/Code/nestingTooDeep`` past 100 levels, and
    ///   ``OTLPReadError/Code/malformedJSON`` for anything else that is not a `Status` (not JSON, a key given
    ///   twice, a `code` that is not a 32-bit integer, a `message` or `@type` that is not a string, a detail
    ///   that is not an object).
    public init(json body: some Collection<UInt8>) throws(OTLPReadError) {
        self = try ByteCollection.withBytes(body) { (buffer) throws(OTLPReadError) in try OTLPRPCStatus(json: buffer) }
    }

    /// The JSON body of this status in protobuf's JSON mapping, with the fields that are not zero or empty;
    /// each detail is `{"@type":"…"}` (`{}` for an empty type URL).
    public func jsonEncoded() -> [UInt8] {
        var output = JSONOutput()
        output.beginObject()
        if code != 0 {
            output.key("code")
            output.raw(String(code))
        }
        if !message.isEmpty {
            output.key("message")
            output.string(message)
        }
        if !detailTypeURLs.isEmpty {
            output.key("details")
            output.beginArray()
            for typeURL in detailTypeURLs {
                output.beginObject()
                if !typeURL.isEmpty {
                    output.key("@type")
                    output.string(typeURL)
                }
                output.endObject()
            }
            output.endArray()
        }
        output.endObject()
        return output.bytes
    }
}
