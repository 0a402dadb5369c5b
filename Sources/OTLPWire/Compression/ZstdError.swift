internal import CZstd

/// The cause of an error from libzstd: the function that failed and the error code it returned
/// (`ZSTD_error_corruption_detected`, …) with libzstd's name for it. Every libzstd result passes through
/// ``check(_:_:)``, the one place its error convention (a `size_t` that `ZSTD_isError` flags) is read.
struct ZstdError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The libzstd function that failed (`ZSTD_decompressStream`, `ZSTD_compress2`).
    var function: String
    /// The `ZSTD_ErrorCode` it reported.
    var errorCode: UInt32
    /// libzstd's name of the error (`ZSTD_getErrorName`).
    var errorName: String

    /// What a libzstd error means for reading: the data is damaged, a limit refused it, or libzstd failed.
    enum Kind {
        /// The bytes do not start a zstd frame (a wrong magic number).
        case notAFrame
        /// The frame's data or its checksum is wrong.
        case corrupt
        /// The frame needs more memory (window) than the reader allows.
        case tooLarge
        /// Not a fault in the data (memory, a misused context).
        case failure
    }

    /// `result` when libzstd reports success; otherwise the error for `function`.
    static func check(_ result: Int, _ function: String) -> Result<Int, ZstdError> {
        guard ZSTD_isError(result) != 0 else { return .success(result) }
        let code = ZSTD_getErrorCode(result)
        return .failure(ZstdError(function: function, errorCode: code.rawValue, errorName: String(cString: ZSTD_getErrorName(result))))
    }

    var kind: Kind {
        switch ZSTD_ErrorCode(rawValue: errorCode) {
        case ZSTD_error_prefix_unknown: .notAFrame
        case ZSTD_error_frameParameter_windowTooLarge: .tooLarge
        // Streaming decompression sizes its output itself: a frame that still finds it too small contradicts
        // its own header (a damaged content size), not the caller.
        case ZSTD_error_dstSize_tooSmall where function == "ZSTD_decompressStream": .corrupt
        // What the caller or the machine caused; every other code comes from the data (corruption, checksum,
        // an entropy table or a header field out of range, a dictionary the frame names).
        case ZSTD_error_GENERIC, ZSTD_error_memory_allocation, ZSTD_error_workSpace_tooSmall, ZSTD_error_stage_wrong,
            ZSTD_error_init_missing, ZSTD_error_parameter_unsupported, ZSTD_error_parameter_outOfBound,
            ZSTD_error_parameter_combination_unsupported, ZSTD_error_dstSize_tooSmall, ZSTD_error_dstBuffer_null,
            ZSTD_error_srcBuffer_wrong, ZSTD_error_dstBuffer_wrong:
            .failure
        default: .corrupt
        }
    }

    /// `libzstd ZSTD_decompressStream failed: Data corruption detected (code 20)`.
    var description: String { "libzstd \(function) failed: \(errorName) (code \(errorCode))" }
}
