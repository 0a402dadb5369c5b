public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 that answers every request `200` with an empty body as soon as the
/// request's body has arrived, keeps the connection alive, and closes it right after every `closeEvery`-th
/// answer without announcing it (no `Connection: close`), as a collector behind a proxy or at its idle
/// timeout does; or, with `resetsEveryConnection`, resets each connection as soon as it is accepted (a
/// collector restarting behind a proxy). `answer` replaces the whole answer with other bytes (a server that
/// does not speak HTTP). It answers within microseconds (the scripted Python collector
/// needs milliseconds), which is what races a client's own bookkeeping of the connection. Stopped by
/// ``stop()`` (or when released).
public final class OTLPAbruptCloseServer: @unchecked Sendable {
    /// The port on 127.0.0.1.
    public let port: Int
    /// Every how many answers (over all connections) a connection is closed.
    public let closeEvery: Int
    /// Whether every connection is reset as soon as it is accepted.
    public let resetsEveryConnection: Bool
    /// The bytes of every answer.
    public let answer: [UInt8]

    private let listener: Int32
    private let state = NSLock()
    private var answerCount = 0
    private var closedCount = 0
    private var acceptedCount = 0
    private var isStopping = false
    private var connections: Set<Int32> = []
    private let finished = DispatchGroup()

    /// Starts listening on a free port.
    public init(
        closeEvery: Int, resetsEveryConnection: Bool = false,
        answer: [UInt8] = Array("HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n".utf8)
    ) throws {
        precondition(closeEvery > 0)
        self.closeEvery = closeEvery
        self.resetsEveryConnection = resetsEveryConnection
        self.answer = answer
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socket, 128) == 0 else {
            let code = errno
            close(socket)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        listener = socket
        port = Int(UInt16(bigEndian: address.sin_port))
        finished.enter()
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "OTLPAbruptCloseServer"
        thread.start()
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT`.
    public var endpoint: String { "http://127.0.0.1:\(port)" }
    /// Requests answered so far.
    public var answered: Int { state.withLock { answerCount } }
    /// Connections closed after an answer so far.
    public var closedAfterAnswer: Int { state.withLock { closedCount } }
    /// Connections accepted so far.
    public var connectionsAccepted: Int { state.withLock { acceptedCount } }

    /// Stops accepting, closes every open connection and waits for the server's threads to end.
    public func stop() {
        let open: Set<Int32>? = state.withLock {
            guard !isStopping else { return nil }
            isStopping = true
            return connections
        }
        guard let open else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        for connection in open { shutdown(connection, Int32(SHUT_RDWR)) }
        finished.wait()
        close(listener)
    }

    private func acceptLoop() {
        defer { finished.leave() }
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return  // stopped
            }
            let accepted: Bool = state.withLock {
                guard !isStopping else { return false }
                acceptedCount += 1
                if !resetsEveryConnection { connections.insert(connection) }
                return true
            }
            guard accepted else {
                close(connection)
                return
            }
            if resetsEveryConnection {
                // A zero linger time makes close() send RST instead of FIN.
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                close(connection)
                continue
            }
            var one: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            finished.enter()
            let thread = Thread { [self] in
                serve(connection)
                state.withLock { _ = connections.remove(connection) }
                close(connection)
                finished.leave()
            }
            thread.start()
        }
    }

    /// Answers the requests of one connection until the client or the server closes it.
    private func serve(_ connection: Int32) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            // The head, then as many body bytes as its Content-Length says.
            var headEnd: Int?
            var bodyLength = 0
            while true {
                if headEnd == nil, let end = Self.endOfHead(buffer) {
                    headEnd = end
                    bodyLength = Self.contentLength(buffer[..<end])
                }
                if let headEnd, buffer.count >= headEnd + bodyLength { break }
                let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                buffer += chunk[..<count]
            }
            buffer.removeFirst(headEnd! + bodyLength)
            let written = answer.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            guard written == answer.count else { return }
            let closes: Bool = state.withLock {
                answerCount += 1
                guard answerCount % closeEvery == 0 else { return false }
                closedCount += 1
                return true
            }
            if closes { return }
        }
    }

    /// The offset just past `\r\n\r\n`, if the head is complete.
    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// The head's `Content-Length`, or 0.
    private static func contentLength(_ head: ArraySlice<UInt8>) -> Int {
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                return Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        return 0
    }
}
