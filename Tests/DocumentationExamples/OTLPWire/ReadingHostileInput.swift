// OTLPWire.docc/ReadingHostileInput.md.
import OTLPWire

func readUntrustedUpload(_ bytes: [UInt8], name: String) -> Result<Int, OTLPReadError> {
    // Tighter than the defaults: records of 1 MiB at most, 1,000 attributes per item, 64 MiB once inflated.
    let options = OTLPReaderOptions(
        decoding: OTLPDecodingOptions(maxRecordBytes: 1 << 20, maxAttributesPerItem: 1_000),
        maxDecompressedBytes: 64 << 20)
    do throws(OTLPReadError) {
        let reader = try OTLPRecordReader(source: OTLPMemorySource(bytes), name: name, options: options)
        var items = 0
        while let record = try reader.next() { items += record.payload.itemCount }
        return .success(items)
    } catch {
        return .failure(error)
    }
}

func explain(_ error: OTLPReadError) -> String {
    switch error.code {
    case .recordTooLarge, .gzipTooLarge, .tooManyAttributes, .nestingTooDeep:
        return "over a limit: \(error)"
    case .truncatedLengthPrefix, .truncatedRecord, .gzipTruncated:
        return "cut short (still being written?): \(error)"
    case .invalidOptions:
        return "options out of range: \(error.message)"
    default:  // later versions may add codes
        return "damaged: \(error)"
    }
}

func readCollectorAnswer(status: Int, body: [UInt8]) -> String {
    guard (200..<300).contains(status) else {
        let rpcStatus = try? OTLPRPCStatus(protobuf: body)  // google.rpc.Status, the body of a refusal
        return "refused (\(status)): \(rpcStatus?.message ?? "not an OTLP answer")"
    }
    guard let response = try? OTLPExportResponse(protobuf: body, for: .traces) else { return "accepted; the answer is unreadable" }
    return response.isFullSuccess ? "accepted" : "\(response.rejectedItems) rejected: \(response.errorMessage)"
}
