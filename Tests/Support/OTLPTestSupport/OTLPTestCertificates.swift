public import Foundation

/// A certificate authority, a server certificate it signed for 127.0.0.1 and localhost, and a client
/// certificate it signed, in a temporary folder.
public struct OTLPTestCertificates: Sendable {
    public let folder: URL
    public var ca: String { folder.appendingPathComponent("ca.pem").path }
    public var serverCertificate: String { folder.appendingPathComponent("server.pem").path }
    public var serverKey: String { folder.appendingPathComponent("server.key").path }
    public var clientCertificate: String { folder.appendingPathComponent("client.pem").path }
    public var clientKey: String { folder.appendingPathComponent("client.key").path }
    /// A CA the server's certificate does not come from.
    public var otherCA: String { folder.appendingPathComponent("other-ca.pem").path }

    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = """
            set -e
            cd "\(folder.path)"
            for ca in ca other-ca; do
              openssl req -x509 -newkey rsa:2048 -nodes -keyout $ca.key -out $ca.pem -days 2 -subj "/CN=OTLPWire test $ca" \
                -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
            done
            printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nbasicConstraints=CA:FALSE\\nkeyUsage=digitalSignature,keyEncipherment\\nextendedKeyUsage=serverAuth\\n' > server.ext
            printf 'basicConstraints=CA:FALSE\\nkeyUsage=digitalSignature,keyEncipherment\\nextendedKeyUsage=clientAuth\\n' > client.ext
            for who in server client; do
              openssl req -newkey rsa:2048 -nodes -keyout $who.key -out $who.csr -subj "/CN=$who" 2>/dev/null
              openssl x509 -req -in $who.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out $who.pem -days 2 -extfile $who.ext 2>/dev/null
            done
            """
        let result = try OTLPProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script])
        guard result.status == 0 else { throw OTLPTestTLSError("openssl failed: \(result.errors)") }
    }

    public func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// A failure of the test TLS setup (openssl, the server).
public struct OTLPTestTLSError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
