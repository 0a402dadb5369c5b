public import OTLPWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds the resource that describes this process, with OpenTelemetry semantic-convention names.
public enum OTLPResourceDetector {
    /// The SDK's own name, reported as `telemetry.sdk.name`.
    package static let sdkName = "otlpwire"
    /// The SDK's version, reported as `telemetry.sdk.version`.
    package static let sdkVersion = "0.1.0"

    /// Detects `service.name` (given, else `unknown_service:<executable>` as the specification says),
    /// `service.version` (if given), `host.name`, `os.type`, `os.description`, `process.pid`,
    /// `process.executable.name` and `telemetry.sdk.*`. `extra` attributes come last and win over detected
    /// ones with the same key.
    public static func detect(serviceName: String? = nil, serviceVersion: String? = nil, extra: [OTLPAttribute] = []) -> OTLPResource {
        let executable = executableName()
        var attributes: [OTLPAttribute] = [
            OTLPAttribute("service.name", .string(serviceName ?? "unknown_service:\(executable)"))
        ]
        if let serviceVersion { attributes.append(OTLPAttribute("service.version", .string(serviceVersion))) }
        var name = utsname()
        uname(&name)
        let system = field(&name.sysname)
        attributes += [
            OTLPAttribute("host.name", .string(hostName())),
            OTLPAttribute("os.type", .string(system.lowercased())),
            OTLPAttribute("os.description", .string("\(system) \(field(&name.release)) \(field(&name.machine))")),
            OTLPAttribute("process.pid", .int(Int64(getpid()))),
            OTLPAttribute("process.executable.name", .string(executable)),
            OTLPAttribute("telemetry.sdk.name", .string(sdkName)),
            OTLPAttribute("telemetry.sdk.language", "swift"),
            OTLPAttribute("telemetry.sdk.version", .string(sdkVersion)),
        ]
        for attribute in extra {
            attributes.removeAll { $0.key == attribute.key }
            attributes.append(attribute)
        }
        return OTLPResource(attributes: attributes)
    }

    static func executableName() -> String {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 {
            let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return String(path.split(separator: "/").last ?? Substring(path))
        }
        #endif
        return CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? "unknown"
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func field<T>(_ value: inout T) -> String {
        withUnsafeBytes(of: &value) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
