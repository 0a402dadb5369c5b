#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// What one signal's run delivered, and what it cost: printed as one JSON line for run.sh.
struct DeliveryResult: Encodable {
    var mode: String
    var signal: String
    /// Items handed to the SDK.
    var items: Int
    /// Items the SDK reports exported (the collector answered 2xx for their batch).
    var delivered: Int
    /// Items the SDK reports dropped (queue full, export failed), or not accounted for.
    var dropped: Int
    /// From the first item handed to the SDK to the end of its shutdown (everything sent).
    var wallSeconds: Double
    /// User + system CPU time of the whole process over the same interval (every thread: the caller, the
    /// SDK's workers, the HTTP client's event loops).
    var cpuSeconds: Double
    /// Request bodies as encoded (protobuf, before gzip), where the SDK counts them (OTLPWire's bytes
    /// counter); 0 if it does not.
    var encodedBytes: Int

    /// Process CPU time (user + system) so far, in seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Runs `body` and returns its wall and process CPU seconds.
    static func measure(_ body: () async throws -> Void) async rethrows -> (wallSeconds: Double, cpuSeconds: Double) {
        let cpu = processCPUSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (wall, processCPUSeconds() - cpu)
    }

    /// Runs `body` and returns its wall and process CPU seconds.
    static func measureSync(_ body: () -> Void) -> (wallSeconds: Double, cpuSeconds: Double) {
        let cpu = processCPUSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (wall, processCPUSeconds() - cpu)
    }

    /// The result as one JSON line on standard output.
    func print() {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(self)) ?? Data()
        Swift.print(String(decoding: data, as: UTF8.self))
    }
}
