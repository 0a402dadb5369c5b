import Foundation
import OTLPWire

/// Reads the `--config` file through OTLPWire's file source (errors carry the path and the system's
/// reason), up to a size no configuration needs.
enum ConfigurationFile {
    /// Largest configuration file read: 1 MiB.
    static let maxBytes = 1 << 20

    static func read(_ path: String) throws(DemoFailure) -> Data {
        do {
            let source = try OTLPFileSource(path: path)
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while bytes.count <= maxBytes {
                let count = try chunk.withUnsafeMutableBytes { buffer in
                    Result { () throws(OTLPReadError) in try source.read(into: buffer) }
                }.get()
                if count == 0 { return Data(bytes) }
                bytes.append(contentsOf: chunk[..<count])
            }
            throw DemoFailure("--config \(path): larger than \(maxBytes) bytes; not a configuration file", status: .dataError)
        } catch let error as OTLPReadError {
            throw DemoFailure("--config: \(error.message)", status: .ioError)
        } catch let failure as DemoFailure {
            throw failure
        } catch {
            throw DemoFailure("--config \(path): \(error)", status: .ioError)
        }
    }
}
