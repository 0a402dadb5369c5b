internal import COTLPShims

/// What the encoder knows, once a traces or logs request is built from the model, about whether readers with
/// given limits would read it back: proven readable without reading the bytes again, or not proven (then
/// the bytes must be checked as readers check them, ``OTLPDecoder/check(_:as:)``).
///
/// Each limit the readers' check applies is covered by what the builder counted:
/// - record size: the encoded size itself;
/// - nesting depth: a bound from the deepest arrays and key-value lists (the deepest value of a plain item sits
///   6 message levels below the request, a span event's or link's attribute value; each array adds 2 levels,
///   each key-value list 3);
/// - attributes per item: the most on one span, event, link, log record, resource or scope;
/// - decoded memory: the scan's own estimate worked out from the census (`COTLPShims_estimate_census`: the same
///   per-message costs and model costs as the scan, with the field count of many-field messages bounded from
///   above), so it is never below what the scan computes;
/// - UTF-8 (model strings are Swift strings), ID lengths (the model's IDs have theirs), unknown fields, wire
///   types and repeated singular fields (the encoder writes none): true of everything the builder builds.
///
/// Metrics requests are never proven (their builder keeps no census). Tests compare the proof's verdict with the
/// readers' check on generated requests near every limit.
package struct OTLPReadabilityProof {
    let kind: OTLPRequestKind
    let census: COTLPShims_Census
    /// The most arrays and key-value lists nested in one value.
    let maxValueNesting: Int
    /// The most attributes on one item (span, event, link, log record, resource or scope).
    let maxItemAttributes: Int
    /// The encoded message's size in bytes.
    let messageBytes: Int

    /// Message levels below the request of the deepest value of a plain request: a span event's or link's
    /// attribute value (request, resource group, scope group, span, event, key-value, value).
    static let plainValueDepth = 6
    /// Message levels one key-value list adds (list, key-value, value); an array adds 2 (array, value).
    static let levelsPerNestedValue = 3

    /// An upper bound of the deepest message level of the request (the request is level 0).
    var nestingDepthBound: Int { Self.plainValueDepth + Self.levelsPerNestedValue * maxValueNesting }

    /// The readers' decoded-memory estimate (protobuf-c's structs and the Swift model), from the census;
    /// `Int.max` for metrics.
    var estimatedDecodedBytes: Int {
        guard kind != .metrics else { return .max }
        return withUnsafePointer(to: census) { census in
            withUnsafePointer(to: OTLPDecoder.modelCosts) { costs in
                let estimate = COTLPShims_estimate_census(census, kind.shimsKind, costs)
                return estimate > Int.max ? .max : Int(estimate)
            }
        }
    }

    /// `true` when readers with `options` read the message back (their check would pass); `false` when that
    /// is not proven here (the check decides).
    package func provesReadable(under options: OTLPDecodingOptions) -> Bool {
        guard kind != .metrics, (try? options.validate()) != nil else { return false }
        return messageBytes <= options.maxRecordBytes
            && nestingDepthBound <= options.maxNestingDepth
            && maxItemAttributes <= options.maxAttributesPerItem
            && estimatedDecodedBytes <= options.maxDecodedBytes
    }
}
