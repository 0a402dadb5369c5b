import Foundation
import Testing
@testable import OTLPWire

/// The reader and decoder options have one `default`, which their inits and `OTLPRawRecordReader` read; the
/// record size limit has one name.
@Suite("Reader and decoder option defaults")
struct OTLPOptionsDefaultsTests {
    @Test("an init without arguments equals the default, which holds the documented values")
    func defaults() {
        #expect(OTLPDecodingOptions() == .default)
        #expect(OTLPReaderOptions() == .default)
        #expect(OTLPReaderOptions.default.decoding == .default)
        let decoding = OTLPDecodingOptions.default
        #expect(decoding.maxRecordBytes == 8 << 20 && decoding.maxNestingDepth == 100)
        #expect(decoding.maxAttributesPerItem == 10_000 && decoding.maxDecodedBytes == 32 << 20)
        let reader = OTLPReaderOptions.default
        #expect(reader.framing == nil && reader.signal == nil && reader.maxLineBytes == 8 << 20)
        #expect(reader.maxDecompressedBytes == .max && reader.maxInflationRatio == 200 && reader.chunkSize == 256 * 1024)
    }

    @Test("one argument changes one limit; the others keep the default")
    func oneArgument() {
        let decoding = OTLPDecodingOptions(maxNestingDepth: 7)
        #expect(decoding.maxNestingDepth == 7)
        #expect(decoding.maxRecordBytes == OTLPDecodingOptions.default.maxRecordBytes)
        #expect(OTLPReaderOptions(chunkSize: 4096).maxLineBytes == OTLPReaderOptions.default.maxLineBytes)
    }

    @Test("a raw record reader's default limits are the options' defaults")
    func rawRecordReaderDefaults() {
        let reader = OTLPRawRecordReader(source: OTLPMemorySource([]), framing: .u32be)
        #expect(reader.maxRecordBytes == OTLPDecodingOptions.default.maxRecordBytes)
        #expect(reader.maxLineBytes == OTLPReaderOptions.default.maxLineBytes)
    }

    @Test("a record over maxRecordBytes is refused as record_too_large; options past its range name it")
    func recordLimit() throws {
        let message = OTLPEncoder().encode(SampleTelemetry.traces(1))
        let decoder = OTLPDecoder(options: OTLPDecodingOptions(maxRecordBytes: message.count - 1))
        #expect { try decoder.decodeTraces(message) } throws: { ($0 as! OTLPReadError).code == .recordTooLarge }
        #expect { try OTLPDecodingOptions(maxRecordBytes: 0).validate() } throws: {
            let error = $0 as! OTLPReadError
            return error.code == .invalidOptions && error.message.hasPrefix("maxRecordBytes is 0")
        }
    }
}
