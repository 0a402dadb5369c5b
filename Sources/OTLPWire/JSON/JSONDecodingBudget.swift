/// The memory one JSON request may take while it is decoded: the JSON tree (charged by the parser), then
/// every model array and byte value as it is built. Past the limit, decoding stops with `record_too_large`.
final class JSONDecodingBudget {
    private(set) var used: Int
    let limit: Int

    init(used: Int, limit: Int) {
        self.used = used
        self.limit = limit
    }

    /// Adds `bytes` for the value at `path`; throws once the total is over the limit.
    func charge(_ bytes: Int, _ path: String) throws(OTLPReadError) {
        let (total, overflow) = used.addingReportingOverflow(bytes)
        used = overflow ? .max : total
        guard used <= limit else {
            throw OTLPReadError(
                .recordTooLarge, "\(path): decoding this JSON request would take more than \(limit) bytes of memory (maxDecodedBytes)")
        }
    }
}
