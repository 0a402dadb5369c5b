import OTLPWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// OTLPWire as a yardstick peer: same arguments, timing and JSON result line as the reference peers.
///
/// usage: yardstick-peer --signal traces|logs --mode build+encode [--items N] [--reps R] [--dump FILE]
///
/// Untimed: the workload is generated into OTLPWire's model and split into batches of 512 (what a batch
/// processor hands an exporter). Timed, per batch: the request is built around the batch, encoded by
/// OTLPEncoder (protoc-c structs in an arena, packed by protobuf-c) and appended with its u32be prefix.
@main
struct YardstickPeer {
    struct Arguments {
        var signal = "traces"
        var mode = "build+encode"
        var items = 200_000
        var reps = 5
        var dump: String?
    }

    static func usage() -> Never {
        printError("usage: yardstick-peer --signal traces|logs --mode build+encode [--items N] [--reps 5] [--dump FILE]\n")
        exit(64)
    }

    static func parse() -> Arguments {
        var arguments = Arguments()
        var rest = CommandLine.arguments.dropFirst()
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { usage() }
            switch flag {
            case "--signal": arguments.signal = value
            case "--mode": arguments.mode = value
            case "--items": arguments.items = Int(value) ?? 0
            case "--reps": arguments.reps = Int(value) ?? 0
            case "--dump": arguments.dump = value
            default: usage()
            }
        }
        guard ["traces", "logs"].contains(arguments.signal), arguments.mode == "build+encode",
            arguments.items > 0, arguments.reps > 0
        else { usage() }
        return arguments
    }

    static func seconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    @inline(__always)
    static func appendFramed(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        let length = UInt32(bytes.count)
        out.append(UInt8(truncatingIfNeeded: length >> 24))
        out.append(UInt8(truncatingIfNeeded: length >> 16))
        out.append(UInt8(truncatingIfNeeded: length >> 8))
        out.append(UInt8(truncatingIfNeeded: length))
        out.append(contentsOf: bytes)
    }

    static func main() {
        let arguments = parse()
        let encoder = OTLPEncoder()
        let resource = WorkloadGenerator.resource
        let scope = WorkloadGenerator.scope
        var output: [UInt8] = []
        var times: [Double] = []
        let pass: (inout [UInt8]) -> Void
        if arguments.signal == "traces" {
            let batches = WorkloadGenerator.batches(WorkloadGenerator.spans(arguments.items))
            pass = { out in
                for batch in batches {
                    encoder.withEncoded(OTLPTracesData(resource: resource, scope: scope, items: batch)) { appendFramed($0, to: &out) }
                }
            }
        } else {
            let batches = WorkloadGenerator.batches(WorkloadGenerator.logRecords(arguments.items))
            pass = { out in
                for batch in batches {
                    encoder.withEncoded(OTLPLogsData(resource: resource, scope: scope, items: batch)) { appendFramed($0, to: &out) }
                }
            }
        }
        for repetition in -1..<arguments.reps {
            output.removeAll(keepingCapacity: true)
            let start = seconds()
            pass(&output)
            let elapsed = seconds() - start
            if repetition >= 0 { times.append(elapsed) }
        }
        printError("# seconds_all:" + times.map { " " + fixed($0, 6) }.joined() + "\n")
        let sorted = times.sorted()
        let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        if let path = arguments.dump {
            guard let file = fopen(path, "wb") else { perror(path); exit(1) }
            let written = output.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            if written != output.count { perror(path); exit(1) }
        }
        print(
            "{\"peer\": \"project\", \"signal\": \"\(arguments.signal)\", \"mode\": \"\(arguments.mode)\", "
                + "\"items\": \(arguments.items), \"bytes\": \(output.count), \"seconds_median\": \(fixed(median, 6)), "
                + "\"items_per_s\": \(fixed(Double(arguments.items) / median, 1)), "
                + "\"mb_per_s\": \(fixed(Double(output.count) / median / 1e6, 2)), \"sha256\": \"\(SHA256.hex(output))\"}")
    }

    static func fixed(_ value: Double, _ digits: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = buffer.withUnsafeMutableBufferPointer { pointer in
            withVaList([digits, value]) { vsnprintf(pointer.baseAddress, 64, "%.*f", $0) }
        }
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Writes to standard error (file descriptor 2) without touching the C `stderr` global.
func printError(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
