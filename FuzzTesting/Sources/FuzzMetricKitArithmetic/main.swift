import OTLPMetricKit
import OTLPWire

/// libFuzzer entry: well-formed MetricKit payloads whose every number comes from the input: histogram
/// bucket counts and bounds, cumulative measurements with units, timestamps, durations, frame addresses and
/// offsets, sample counts, exception codes, and the assumed UTC offset. Structure is fixed, so the fuzzer
/// spends its time on the converter's arithmetic, where every operation must be checked: a trap is a crash.
/// Whatever converts must encode and read back within the readers' default limits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetricKitArithmetic(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var numbers = NumberSource(UnsafeBufferPointer(start: start, count: count))
    let offset = numbers.integer()
    let converter = MetricKitConverter(options: .init(assumedUTCOffsetSeconds: Int(truncatingIfNeeded: offset)))
    let metric = """
        {"timeStampBegin":"\(numbers.timestamp())","timeStampEnd":"\(numbers.timestamp())",\
        "cpuMetrics":{"cumulativeCPUTime":"\(numbers.number()) sec","cumulativeCPUInstructions":"\(numbers.number()) kiloinstructions"},\
        "networkTransferMetrics":{"cumulativeWifiDownload":"\(numbers.number()) \(numbers.unit())"},\
        "applicationLaunchMetrics":{"histogrammedTimeToFirstDrawKey":{"histogramNumBuckets":\(numbers.number()),"histogramValue":{\
        "0":{"bucketCount":\(numbers.number()),"bucketStart":"\(numbers.number()) ms","bucketEnd":"\(numbers.number()) ms"},\
        "1":{"bucketCount":\(numbers.number()),"bucketStart":"\(numbers.number()) \(numbers.unit())","bucketEnd":"\(numbers.number()) ms"}}}},\
        "signpostMetrics":[{"signpostName":"s","signpostCategory":"c","totalCount":\(numbers.number()),\
        "signpostIntervalData":{"histogrammedSignpostDurations":{"histogramNumBuckets":1,"histogramValue":{"0":\
        {"bucketCount":\(numbers.number()),"bucketStart":"\(numbers.number()) ms","bucketEnd":"\(numbers.number()) ms"}}},\
        "signpostCumulativeCPUTime":"\(numbers.number()) ms","signpostAverageMemory":"\(numbers.number()) kB"}}],\
        "metaData":{"pid":\(numbers.number()),"appBuildVersion":"1","osVersion":"iPhone OS 26.1 (23B85)"}}
        """
    if case .metric(let conversion)? = try? converter.convertPayload(json: Array(metric.utf8)) {
        readBack(spans: conversion.spans, logs: [])
    }

    let frame = """
        {"binaryUUID":"E41D8A7C-0B59-3F16-9D2A-6C83F5E07B14","binaryName":"b","offsetIntoBinaryTextSegment":\(numbers.number()),\
        "address":\(numbers.number()),"sampleCount":\(numbers.number()),"subFrames":[{"binaryUUID":"C9F03B26-4A7E-3D81-B5E9-21D6A84C0F57",\
        "binaryName":"c","offsetIntoBinaryTextSegment":\(numbers.number()),"address":\(numbers.number()),"sampleCount":\(numbers.number())}]}
        """
    let diagnostic = """
        {"timeStampBegin":"\(numbers.timestamp())","timeStampEnd":"\(numbers.timestamp())","crashDiagnostics":[{"version":"1.0.0",\
        "callStackTree":{"callStackPerThread":true,"callStacks":[{"threadAttributed":true,"callStackRootFrames":[\(frame)]}]},\
        "diagnosticMetaData":{"pid":\(numbers.number()),"exceptionType":\(numbers.number()),"exceptionCode":\(numbers.number()),\
        "signal":\(numbers.number()),"signpostData":[{"name":"s","beginTimeStamp":"\(numbers.timestamp())",\
        "endTimeStamp":"\(numbers.timestamp())","duration":"\(numbers.number()) ms","isInterval":true}]}}],\
        "hangDiagnostics":[{"callStackTree":{"callStackPerThread":true,"callStacks":[{"callStackRootFrames":[\(frame)]}]},\
        "diagnosticMetaData":{"hangDuration":"\(numbers.number()) \(numbers.unit())"}}],\
        "cpuExceptionDiagnostics":[{"diagnosticMetaData":{"totalCPUTime":"\(numbers.number()) sec","totalSampledTime":"\(numbers.number()) sec"}}],\
        "diskWriteExceptionDiagnostics":[{"diagnosticMetaData":{"writesCaused":"\(numbers.number()) \(numbers.unit())"}}],\
        "appLaunchDiagnostics":[{"diagnosticMetaData":{"launchDuration":"\(numbers.number()) ms"}}]}
        """
    if case .diagnostic(let result)? = try? converter.convertPayload(json: Array(diagnostic.utf8)) {
        readBack(spans: [result.span], logs: result.logRecords)
    }
    return 0
}

/// Encodes what the converter made and reads it back with the readers' default limits: the converter must
/// never write what the readers refuse.
private func readBack(spans: [OTLPSpan], logs: [OTLPLogRecord]) {
    let encoder = OTLPEncoder()
    let decoder = OTLPDecoder(options: .default)
    let resource = OTLPResource()
    let scope = OTLPInstrumentationScope(name: "fuzz")
    let traces = encoder.encode(OTLPTracesData(resource: resource, scope: scope, items: spans))
    if (traces.withUnsafeBytes { try? decoder.decodeTraces($0) }) == nil { fatalError("converted spans do not read back") }
    let records = encoder.encode(OTLPLogsData(resource: resource, scope: scope, items: logs))
    if (records.withUnsafeBytes { try? decoder.decodeLogs($0) }) == nil { fatalError("converted log records do not read back") }
}

/// Numbers for the payload: the extremes of every width, exponents, fractions, negatives, and raw values.
struct NumberSource {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func integer() -> Int64 {
        (0..<8).reduce(0) { value, _ in value << 8 | Int64(byte()) }
    }

    mutating func number() -> String {
        switch byte() % 8 {
        case 0: return String(byte())
        case 1:
            return [
                "0", "-1", "9223372036854775807", "-9223372036854775808", "18446744073709551615", "1e308", "-1e308",
                "1.5", "-0", "9.3e18", "1.85e19", "4.9e-324", "1e-7", "99999999999999999999999",
            ][Int(byte() % 14)]
        case 2: return String(integer())
        case 3: return String(UInt64(bitPattern: integer()))
        case 4:
            let value = Double(bitPattern: UInt64(bitPattern: integer()))
            return value.isFinite ? "\(value)" : "1e309"
        default: return String(Int64(Int8(bitPattern: byte())))
        }
    }

    mutating func unit() -> String {
        ["ms", "sec", "min", "hr", "kB", "MB", "GB", "TB", "byte", "bars", "µs", "ns", "", "kiloinstructions"][Int(byte() % 14)]
    }

    mutating func timestamp() -> String {
        switch byte() % 4 {
        case 0: return "2025-06-03 09:14:00"
        case 1: return ["0001-01-01 00:00:00", "9999-12-31 23:59:59", "1970-01-01 00:00:00", "2025-02-30 25:61:61"][Int(byte() % 4)]
        default:
            let year = 1 + Int(UInt16(byte()) << 8 | UInt16(byte())) % 9999
            let fields = [Int(1 + byte() % 12), Int(1 + byte() % 28), Int(byte() % 24), Int(byte() % 60), Int(byte() % 60)]
            let two = fields.map { $0 < 10 ? "0\($0)" : "\($0)" }
            let four = String(repeating: "0", count: 4 - String(year).count) + String(year)
            return "\(four)-\(two[0])-\(two[1]) \(two[2]):\(two[3]):\(two[4])"
        }
    }
}
