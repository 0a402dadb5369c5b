#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import OTLPWire
import OTLPTestSupport

/// Ways to hand bytes to a reader the way standard input does, and a reader's whole outcome.
enum StreamInputs {
    /// Hands out at most `step` bytes per read, as a pipe fed by a slow writer does.
    final class TrickleSource: OTLPByteSource {
        private let bytes: [UInt8]
        private let step: Int
        private var position = 0

        init(_ bytes: [UInt8], step: Int = 1) {
            self.bytes = bytes
            self.step = step
        }

        func read(into buffer: UnsafeMutableRawBufferPointer) throws(OTLPReadError) -> Int {
            let count = min(step, buffer.count, bytes.count - position)
            guard count > 0 else { return 0 }
            bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: count) }
            position += count
            return count
        }
    }

    /// A real pipe holding `bytes` (at most the pipe's buffer, 64 KiB) with its writing end closed, read
    /// through ``OTLPFileSource`` as standard input is. The caller closes the returned descriptor.
    static func pipe(_ bytes: [UInt8]) -> (source: OTLPFileSource, descriptor: Int32) {
        precondition(bytes.count <= 60_000, "a pipe buffer holds 64 KiB")
        var ends: [Int32] = [0, 0]
        #if canImport(Glibc)
        precondition(Glibc.pipe(&ends) == 0)
        #else
        precondition(Darwin.pipe(&ends) == 0)
        #endif
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress! + written, bytes.count - written) }
            precondition(count > 0)
            written += count
        }
        close(ends[1])
        return (OTLPFileSource(descriptor: ends[0]), ends[0])
    }

    /// Everything a reader delivers, and the error it ends with.
    struct Outcome {
        var records: [OTLPRecord] = []
        var error: OTLPReadError?
        var framing: OTLPFraming?
        var signal: OTLPSignal?
        var items: Int { records.reduce(0) { $0 + $1.payload.itemCount } }
        var signals: [OTLPSignal] { records.map(\.payload.signal) }
    }

    /// Reads `source` to its end with ``OTLPRecordReader/next()``.
    static func read(_ source: any OTLPByteSource, name: String? = nil, options: OTLPReaderOptions = OTLPReaderOptions()) -> Outcome {
        var outcome = Outcome()
        do {
            let reader = try OTLPRecordReader(source: source, name: name, options: options)
            outcome.framing = reader.framing
            defer { outcome.signal = reader.signal }
            while let record = try reader.next() { outcome.records.append(record) }
        } catch {
            outcome.error = error
        }
        return outcome
    }

    /// Reads `bytes` from memory.
    static func read(_ bytes: [UInt8], name: String? = nil, options: OTLPReaderOptions = OTLPReaderOptions()) -> Outcome {
        read(OTLPMemorySource(bytes), name: name, options: options)
    }

    /// u32be framing of `messages`.
    static func u32be(_ messages: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for message in messages { _ = OTLPLengthPrefix.encode(message.count, framing: .u32be, into: &out); out += message }
        return out
    }

    /// varint framing of `messages`.
    static func varint(_ messages: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for message in messages { _ = OTLPLengthPrefix.encode(message.count, framing: .varint, into: &out); out += message }
        return out
    }
}

/// Hand-made protobuf for inputs the encoder would never write (IDs of the wrong length, ...).
enum Wire {
    /// An `ExportTraceServiceRequest` with one resource and one scope holding `spans` (span message bodies).
    static func traces(_ spans: [[UInt8]]) -> [UInt8] {
        OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, spans.flatMap { OTLPProtobufBytes.field(2, $0) }))
    }

    /// An `ExportLogsServiceRequest` with one resource and one scope holding `records` (log record bodies).
    static func logs(_ records: [[UInt8]]) -> [UInt8] {
        OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, records.flatMap { OTLPProtobufBytes.field(2, $0) }))
    }

    /// A request (either signal) holding one resource with one attribute and nothing else.
    static let resourceOnly: [UInt8] = OTLPProtobufBytes.field(
        1,
        OTLPProtobufBytes.field(
            1,
            OTLPProtobufBytes.field(
                1,
                OTLPProtobufBytes.field(1, Array("service.name".utf8))
                    + OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(1, Array("x".utf8))))))
}
