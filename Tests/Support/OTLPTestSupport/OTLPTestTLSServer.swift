import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Python's `http.server` behind `ssl` on a loopback port: answers every POST with an empty OTLP success
/// and prints `received PATH BYTES` for each; with `requireClientCertificate`, only clients with a
/// certificate the CA signed get through the handshake.
public final class OTLPTestTLSServer: @unchecked Sendable {
    private let process = Process()
    public private(set) var port = 0
    private let output = Pipe()
    private let condition = NSCondition()
    private var lines: [String] = []
    private var partial = Data()
    private var taken = 0

    public init(_ certificates: OTLPTestCertificates, requireClientCertificate: Bool = false) throws {
        let script = """
            import http.server, ssl, sys
            class Handler(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1"
                def do_POST(self):
                    length = int(self.headers.get("Content-Length", "0"))
                    self.rfile.read(length)
                    self.send_response(200)
                    self.send_header("Content-Type", "application/x-protobuf")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    print("received", self.path, length, flush=True)
                def log_message(self, *arguments):
                    pass
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
            if sys.argv[4] == "1":
                context.verify_mode = ssl.CERT_REQUIRED
                context.load_verify_locations(sys.argv[3])
            server.socket = context.wrap_socket(server.socket, server_side=True)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c", script, certificates.serverCertificate, certificates.serverKey, certificates.ca,
            requireClientCertificate ? "1" : "0",
        ]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.append(handle.availableData) }
        try process.run()
        // The first line is the port, written once the server is bound.
        guard let first = nextLine(), let port = Int(first) else {
            stop()
            throw OTLPTestTLSError("the TLS server did not say its port")
        }
        self.port = port
    }

    private func append(_ data: Data) {
        condition.lock()
        defer { condition.unlock() }
        partial += data
        while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: partial[partial.startIndex..<newline], as: UTF8.self))
            partial = Data(partial[partial.index(after: newline)...])
        }
        condition.broadcast()
    }

    /// The next line the server printed, or `nil` when none comes within 30 s (a regression fails, never hangs).
    public func nextLine() -> String? {
        let deadline = Date().addingTimeInterval(30)
        condition.lock()
        defer { condition.unlock() }
        while taken == lines.count {
            if !condition.wait(until: deadline) { return nil }
        }
        taken += 1
        return lines[taken - 1]
    }

    public func stop() {
        output.fileHandleForReading.readabilityHandler = nil
        // SIGKILL: the server needs no clean exit, and a signal the test process blocks cannot keep it alive.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
