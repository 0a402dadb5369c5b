public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Loopback ports for the tests' servers.
public enum OTLPFreePort {
    /// `count` distinct ports that were free on 127.0.0.1 a moment ago (bound to port 0, then released).
    public static func reserve(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            sockets.append(fd)
            var address = loopback(port: 0)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    /// A port on 127.0.0.1 where nothing listens (reserved, then released).
    public static func unused() throws -> Int { try reserve(1)[0] }

    /// Tries to connect to 127.0.0.1:`port` until it accepts (true), `process` exits, or 20 s pass (false).
    public static func waitUntilAccepting(port: Int, whileRunning process: Process) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 20)
        while Date() < deadline && process.isRunning {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = loopback(port: port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 { return true }
            usleep(20_000)  // a readiness poll of another process, not a timed assertion
        }
        return false
    }

    /// The address of 127.0.0.1:`port`.
    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
