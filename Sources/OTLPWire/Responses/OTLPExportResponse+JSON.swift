extension OTLPExportResponse {
    /// Decodes a JSON body in memory (the public entry takes any collection of bytes).
    package init(json body: UnsafeRawBufferPointer, for signal: OTLPSignal) throws(OTLPReadError) {
        let message = Self.messageName(signal)
        try ResponseBody.checkSize(body.count, message)
        guard let root = try ResponseBody.jsonObject(body, message) else {
            self.init()
            return
        }
        do {
            guard let (path, value) = root.member("partialSuccess", "partial_success") else {
                self.init()
                return
            }
            let partial = try JSONObject(value, path: path, budget: root.budget)
            let (camel, snake) = Self.rejectedKeys(signal)
            let (camelName, snakeName) = ("\(camel)", "\(snake)")
            self.init(
                rejectedItems: try partial.member(camelName, snakeName).map { (path, value) throws(OTLPReadError) in
                    try JSONObject.int64(value, path)
                } ?? 0,
                errorMessage: try partial.string("errorMessage", "error_message"))
        } catch {
            throw OTLPReadError(error.code, "\(message) JSON: \(error.message)", offsetIn: .record)
        }
    }

    /// The partial success's count of rejected items, in JSON (lowerCamelCase and snake_case) for `signal`.
    private static func rejectedKeys(_ signal: OTLPSignal) -> (camel: StaticString, snake: StaticString) {
        switch signal {
        case .traces: ("rejectedSpans", "rejected_spans")
        case .logs: ("rejectedLogRecords", "rejected_log_records")
        case .metrics: ("rejectedDataPoints", "rejected_data_points")
        }
    }

    /// Decodes a JSON body (`Content-Type: application/json`), the OTLP JSON form of the response to a
    /// request of `signal`: `{"partialSuccess":{"rejectedSpans":"3","errorMessage":"…"}}` (logs:
    /// `rejectedLogRecords`, metrics: `rejectedDataPoints`).
    ///
    /// As the OTLP JSON encoding allows: lowerCamelCase or snake_case names, the count as a string or a
    /// number (exactly, in exponent form too), `null` for an absent field; unknown fields are ignored. An
    /// empty body (or only whitespace) and `{}` are a full success.
    ///
    /// - Throws: ``OTLPReadError`` with code ``OTLPReadError/Code/recordTooLarge`` for a body over
    ///   4 MiB, ``OTLPReadError/Code/nestingTooDeep`` past 100 levels, and
    ///   ``OTLPReadError/Code/malformedJSON`` for anything else that is not such a response (not JSON, a key
    ///   given twice, a count that is not a 64-bit integer, a message that is not a string).
    public init(json body: some Collection<UInt8>, for signal: OTLPSignal) throws(OTLPReadError) {
        self = try ByteCollection.withBytes(body) { (buffer) throws(OTLPReadError) in try OTLPExportResponse(json: buffer, for: signal) }
    }

    /// The OTLP JSON body of this response to a request of `signal`: `{}` for a full success, otherwise
    /// `{"partialSuccess":{…}}` with the fields that are not zero or empty (the count as a string, as
    /// protobuf's JSON mapping writes 64-bit integers).
    public func jsonEncoded(for signal: OTLPSignal) -> [UInt8] {
        var output = JSONOutput()
        output.beginObject()
        if !isFullSuccess {
            output.key("partialSuccess")
            output.beginObject()
            if rejectedItems != 0 {
                output.key(Self.rejectedKeys(signal).camel)
                output.quotedRaw(String(rejectedItems))
            }
            if !errorMessage.isEmpty {
                output.key("errorMessage")
                output.string(errorMessage)
            }
            output.endObject()
        }
        output.endObject()
        return output.bytes
    }
}
