internal import CZlib

/// The cause of an error from zlib: the function that failed and the code it returned (`Z_DATA_ERROR`,
/// `Z_MEM_ERROR`, …), with zlib's own message where it gave one. Errors are classified by the return code and
/// the stream's state, never by the message.
struct ZlibError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The zlib function that failed (`inflate`, `deflateInit2`).
    var function: String
    /// What it returned.
    var returnCode: Int32
    /// zlib's message (`stream.msg`), when it set one.
    var zlibMessage: String?

    init(_ function: String, returnCode: Int32, zlibMessage: String? = nil) {
        self.function = function
        self.returnCode = returnCode
        self.zlibMessage = zlibMessage
    }

    /// The name of a zlib return code (`Z_DATA_ERROR`), or the number for one zlib does not define.
    static func name(_ returnCode: Int32) -> String {
        switch returnCode {
        case Z_OK: "Z_OK"
        case Z_STREAM_END: "Z_STREAM_END"
        case Z_NEED_DICT: "Z_NEED_DICT"
        case Z_ERRNO: "Z_ERRNO"
        case Z_STREAM_ERROR: "Z_STREAM_ERROR"
        case Z_DATA_ERROR: "Z_DATA_ERROR"
        case Z_MEM_ERROR: "Z_MEM_ERROR"
        case Z_BUF_ERROR: "Z_BUF_ERROR"
        case Z_VERSION_ERROR: "Z_VERSION_ERROR"
        default: "\(returnCode)"
        }
    }

    /// `zlib inflate returned Z_DATA_ERROR (-3): invalid block type`.
    var description: String {
        "zlib \(function) returned \(Self.name(returnCode)) (\(returnCode))" + (zlibMessage.map { ": \($0)" } ?? "")
    }
}
