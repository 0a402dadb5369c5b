import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
package import OTLPTelemetry
package import OTLPWire

/// Posts OTLP/HTTP requests of one signal to one collector endpoint, with the specification's retry rules.
///
/// A body is an encoded `Export*ServiceRequest` (protobuf or OTLP JSON, as the endpoint's protocol says),
/// gzipped here when the endpoint asks for compression. Each ``send(_:)`` tries until the collector answers
/// 2xx, answers a status that is not retried, or the endpoint's timeout (for all attempts together) runs
/// out: 429, 502, 503, 504 and connection failures are tried again after the backoff of ``retryPolicy`` or
/// the wait the server's `Retry-After` asks for; a wait that would end past the timeout is not started.
///
/// The sender owns its HTTP client; `https://` uses the system's trust roots, or the endpoint's TLS files (a
/// private CA, a client certificate and key: ``OTLPExporterConfiguration/TLSFiles``), loaded once here. A file
/// that cannot be loaded fails every request with a message naming it. Call ``shutdown()`` when done.
package final class OTLPHTTPSender: Sendable {
    /// What became of one request. Three classes, each with one meaning for what the caller holds:
    /// - ``accepted(rejectedItems:message:)``: the collector has it (a partial success names the items it
    ///   refused);
    /// - ``rejected(statusCode:message:)`` and ``tooLarge(message:)``: the collector refused this request for
    ///   its content or size; sending it again unchanged gets the same answer;
    /// - ``failed(reason:)``: not delivered, and nothing says the request is at fault (the collector is
    ///   unreachable, overloaded past the timeout, or answers as no OTLP endpoint would: 401, 403, 404, a
    ///   redirect, a 5xx, a page that is not OTLP). Keep the request and try later.
    package enum Outcome: Sendable, Equatable {
        /// The collector answered 2xx. With a partial success, `rejectedItems` of the request's items were
        /// refused and `message` says why (both are zero and empty on full success).
        case accepted(rejectedItems: Int64, message: String)
        /// The collector refused the request's content: HTTP 400 with an OTLP `google.rpc.Status`, whose
        /// message `message` is (as sent: escape it before printing).
        case rejected(statusCode: Int, message: String)
        /// HTTP 413: the request is too large for the collector; its halves may pass. `message` is the
        /// answer's status message or text.
        case tooLarge(message: String)
        /// Not delivered, and not for the request's content: `reason` says what the collector answered or why
        /// it could not be reached (retryable answers are retried within the timeout first).
        case failed(reason: String)
    }

    /// An outcome and how many attempts it took.
    package struct Result: Sendable, Equatable {
        /// What became of the request.
        package var outcome: Outcome
        /// Requests made: 1, or more after retryable failures.
        package var attempts: Int
    }

    /// The signal of the requests sent.
    package let signal: OTLPSignal
    /// Where, how and for how long requests are sent.
    package let endpoint: OTLPExporterConfiguration.Resolved
    /// Waits between attempts.
    package let retryPolicy: OTLPHTTPRetryPolicy
    /// The most bytes of a collector's answer read: longer answers count as unreadable (the request's
    /// outcome still follows the status).
    package static let maxResponseBytes = 4 << 20
    /// Headers the sender sets itself (or the HTTP client does); the configuration's headers of these names
    /// are not sent.
    package static let ownHeaderNames: Set<String> = [
        "content-type", "content-encoding", "content-length", "transfer-encoding", "user-agent", "host", "connection",
    ]
    /// `User-Agent` of every request: the library and its version.
    package static let userAgent = "OTLPWire/\(OTLPResourceDetector.sdkVersion) (Swift; OTLP/HTTP exporter)"

    /// The most connections the sender keeps to its collector (one per request sent at the same time).
    static let maxConnections = 8

    private let client: HTTPClient
    /// Why the endpoint's TLS files cannot be used (every request fails with it), or `nil`.
    private let tlsProblem: String?
    private let headers: HTTPHeaders
    /// The configured header values, and their words of 4 characters or more, longest first.
    private let secrets: [String]
    /// Set by ``stopRetrying(afterSeconds:)``: no wait between attempts ends past it.
    private let retryDeadline: LockedDeadline
    /// The clock of the timeout, the waits between attempts and shutdown's deadline. A request's own deadline
    /// on its connection is the time left on this clock, in real time.
    private let clock: any OTLPWaitableClock

    /// - Parameters:
    ///   - signal: traces (`/v1/traces` under a base endpoint), logs (`/v1/logs`) or metrics (`/v1/metrics`).
    ///   - endpoint: the resolved `otlp` settings of that signal (`OTLPExporterConfiguration.resolved(for:)`).
    ///   - retryPolicy: waits between attempts; default ``OTLPHTTPRetryPolicy/default``.
    ///   - clock: the clock the timeout, the waits between attempts and shutdown's deadline follow (default:
    ///     the system's monotonic clock; a test's manual clock moves them without waiting).
    package init(
        signal: OTLPSignal, endpoint: OTLPExporterConfiguration.Resolved, retryPolicy: OTLPHTTPRetryPolicy = .default,
        clock: any OTLPWaitableClock = OTLPSystemMonotonicClock()
    ) {
        self.clock = clock
        retryDeadline = LockedDeadline(clock: clock)
        self.signal = signal
        self.endpoint = endpoint
        self.retryPolicy = retryPolicy
        var headers = HTTPHeaders()
        for (name, value) in endpoint.headers.sorted(by: { $0.key < $1.key }) where !Self.ownHeaderNames.contains(name.lowercased()) {
            headers.replaceOrAdd(name: name, value: value)
        }
        headers.replaceOrAdd(name: "Content-Type", value: endpoint.protocol == .httpJSON ? "application/json" : "application/x-protobuf")
        if endpoint.compression == .gzip { headers.replaceOrAdd(name: "Content-Encoding", value: "gzip") }
        headers.replaceOrAdd(name: "User-Agent", value: Self.userAgent)
        self.headers = headers
        var secrets = Set<String>()
        for value in endpoint.headers.values {
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if trimmed.count >= 4 { secrets.insert(trimmed) }
            for word in trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }) where word.count >= 4 {
                secrets.insert(String(word))
            }
        }
        self.secrets = secrets.sorted { $0.count > $1.count }
        var configuration = HTTPClient.Configuration()
        configuration.decompression = .disabled
        // A redirect is an answer, not followed: 301/302/303 would turn the POST into a GET without a body,
        // reported as delivered. A 3xx is not retried (the request is dropped and the status reported).
        configuration.redirectConfiguration = .disallow
        // A failed connection ends the attempt (the pool would otherwise keep reconnecting until the
        // deadline), so that the retry policy, its counting and `Retry-After` decide what happens next.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.maxConnections
        do {
            configuration.tlsConfiguration = try Self.tlsConfiguration(endpoint)
            tlsProblem = nil
        } catch {
            tlsProblem = error.message
        }
        // One event loop for the client's requests and their connections. With several, a request could run on
        // one loop and reuse a connection of another; the end of its body is then confirmed across loops, and a
        // collector closing the connection right after its answer (a proxy, a restart) made AsyncHTTPClient
        // 1.37's pool release a connection it had already removed, and stop the process. One sender sends one
        // request at a time, so one loop costs nothing; senders spread over the shared loops.
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup.next(), configuration: configuration)
    }

    deinit {
        try? client.syncShutdown()
    }

    /// A TLS file that cannot be used, named with the setting that gave it.
    struct TLSFileError: Error {
        var message: String
    }

    /// The client TLS configuration of `files`: its CA certificates as the only trust roots, its client
    /// certificate chain and key; `nil` (the defaults: the system's trust roots) when no file is set.
    static func tlsConfiguration(_ endpoint: OTLPExporterConfiguration.Resolved) throws(TLSFileError) -> TLSConfiguration? {
        let files = endpoint.tls
        guard !files.isEmpty else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        // The settings that gave a file: the signal's own when it set that file, else the base ones.
        func settings(_ key: String, _ variable: String, _ fromSignal: String?) -> String {
            guard fromSignal != nil, let signal = endpoint.tlsSignal else { return "OTEL_EXPORTER_OTLP_\(variable), otlp.tls.\(key)" }
            return "OTEL_EXPORTER_OTLP_\(signal.rawValue.uppercased())_\(variable), otlp.\(signal).tls.\(key)"
        }
        func load<Value>(_ file: String, _ settings: String, _ body: (String) throws -> Value) throws(TLSFileError) -> Value {
            do {
                return try body(file)
            } catch {
                // NIOSSL's error text may hold the TLS library's internals: its case name and the file say enough.
                let cause = String(describing: error).prefix { $0 != "(" }
                throw TLSFileError(message: "cannot load the TLS file \(file) (\(settings)): \(cause); nothing is sent")
            }
        }
        let fromSignal = endpoint.tlsFromSignal
        if let file = files.certificate {
            let named = settings("certificate", "CERTIFICATE", fromSignal.certificate)
            let roots = try load(file, named) { try NIOSSLCertificate.fromPEMFile($0) }
            guard !roots.isEmpty else {
                throw TLSFileError(message: "\(file) (\(named)) holds no PEM certificate; nothing is sent")
            }
            tls.trustRoots = .certificates(roots)
        }
        if let file = files.clientCertificate {
            let named = settings("clientCertificate", "CLIENT_CERTIFICATE", fromSignal.clientCertificate)
            tls.certificateChain = try load(file, named) { try NIOSSLCertificate.fromPEMFile($0) }.map {
                .certificate($0)
            }
        }
        if let file = files.clientKey {
            let named = settings("clientKey", "CLIENT_KEY", fromSignal.clientKey)
            tls.privateKey = .privateKey(try load(file, named) { try NIOSSLPrivateKey(file: $0, format: .pem) })
        }
        return tls
    }

    /// Sends `body` (an encoded request, not yet compressed), retrying as the specification says; returns
    /// when the request was answered for good or the timeout ran out. Blocks the calling thread (an
    /// exporter's worker, a command-line tool): never call it from an async context.
    package func send(_ body: [UInt8]) -> Result {
        guard endpoint.compression == .gzip else { return send(payload: ByteBuffer(bytes: body)) }
        do {
            return send(
                payload: ByteBuffer(
                    bytes: try body.withUnsafeBytes { bytes in try OTLPGzip.compress(bytes, level: Int32(endpoint.gzipLevel)) }))
        } catch {
            return Result(outcome: .failed(reason: "gzip compression failed: \(error)"), attempts: 0)
        }
    }

    /// Sends `body`, an encoded request compressed already (a gzip member, as a gzip spool stores it), as
    /// ``send(_:)`` does. Only for an endpoint whose compression is gzip.
    package func send(gzipped body: [UInt8]) -> Result {
        precondition(endpoint.compression == .gzip, "a gzipped body for an endpoint without gzip compression")
        return send(payload: ByteBuffer(bytes: body))
    }

    /// Sends the request body as it goes on the wire; what the collector said comes back without the
    /// configured header values (a collector may echo a token in its error text).
    private func send(payload: ByteBuffer) -> Result {
        if let tlsProblem { return Result(outcome: .failed(reason: tlsProblem), attempts: 0) }
        var result = sendAttempts(payload)
        result.outcome = result.outcome.mapText(redactingSecrets)
        return result
    }

    /// `text` with every configured header value, and every word of one that could be a credential on its
    /// own (the token of `Bearer TOKEN`), replaced by `<redacted>`.
    func redactingSecrets(_ text: String) -> String {
        var text = text
        for secret in secrets where text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: "<redacted>")
        }
        return text
    }

    /// Sends the request body, retrying as the policy says.
    private func sendAttempts(_ payload: ByteBuffer) -> Result {
        let now = clock.nowMonotonicNano()
        var deadline = now + OTLPSystemMonotonicClock.nanos(seconds: endpoint.timeoutSeconds)
        if let stop = retryDeadline.value {
            // Shutting down: nothing is sent past the deadline (regression: each batch left got an attempt of
            // a second, so a collector that never answers held shutdown up for a second per batch).
            guard now < stop else {
                return Result(outcome: .failed(reason: Self.notSentAtShutdown), attempts: 0)
            }
            deadline = min(deadline, stop)
        }
        var attempts = 0
        /// Attempts sent again at once because their connection had been closed (not counted for the backoff).
        var immediateRetries = 0
        var retriesAfterPossibleSend = 0
        while true {
            attempts += 1
            let reason: String
            var requestedWait: Double?
            switch attempt(payload, deadline: deadline) {
            case .answered(let status, let headers, let answer, let bodyTooLong):
                let contentType = headers.first(name: "content-type") ?? ""
                if (200..<300).contains(status) {
                    // An HTML page is what a proxy, a login page or a web server at the wrong URL answers, never
                    // an OTLP collector: not delivered (regression: counted as accepted).
                    if Self.mediaType(of: contentType) == "text/html", let answer, answer.readableBytes > 0 {
                        return Result(
                            outcome: .failed(
                                reason:
                                    "HTTP \(status) with an HTML page, not an OTLP answer: is this an OTLP/HTTP endpoint (not a proxy's or login page)?"
                            ), attempts: attempts)
                    }
                    return Result(
                        outcome: Self.accepted(answer, contentType: contentType, signal: signal, bodyTooLong: bodyTooLong),
                        attempts: attempts)
                }
                let (message, isOTLPStatus) = Self.statusMessage(answer, contentType: contentType)
                if status == 400 && isOTLPStatus {
                    return Result(outcome: .rejected(statusCode: status, message: message), attempts: attempts)
                }
                if status == 413 {
                    return Result(outcome: .tooLarge(message: message), attempts: attempts)
                }
                guard OTLPHTTPRetryPolicy.isRetryable(statusCode: status) else {
                    return Result(
                        outcome: .failed(
                            reason: Self.describeAnswer(status: status, headers: headers, message: message, isOTLPStatus: isOTLPStatus)),
                        attempts: attempts)
                }
                reason = "HTTP \(status)\(message.isEmpty ? "" : ": \(message)")"
                requestedWait = headers.first(name: "retry-after").flatMap { OTLPHTTPRetryPolicy.retryAfterSeconds($0, now: Date()) }
            case .invalidEndpoint(let error):
                return Result(outcome: .failed(reason: "invalid endpoint \(endpoint.redactedURL): \(error)"), attempts: attempts)
            case .failed(let error):
                if let error = error as? HTTPClientError, error == .alreadyShutdown {
                    return Result(outcome: .failed(reason: "the sender was shut down"), attempts: attempts)
                }
                // A kept-alive connection the collector closed just before this request went out (after an
                // answer, at its idle timeout, through a proxy) is tried again at once on another one, not
                // after a backoff, and the backoff that follows starts as if it had not happened:
                // - closed before the request went out (nothing sent; the pool has dropped that connection
                //   now): once per connection the pool may hold;
                // - closed or reset while it went out (the collector may have read it): once per send, so
                //   that a collector that drops every connection meets the backoff after one quick retry,
                //   and one that reads requests then drops them gets at most one extra copy.
                if clock.nowMonotonicNano() < deadline, let closed = Self.closedConnection(error) {
                    if closed == .beforeSending && immediateRetries < Self.maxConnections {
                        immediateRetries += 1
                        continue
                    }
                    if closed == .whileSending && retriesAfterPossibleSend == 0 {
                        retriesAfterPossibleSend += 1
                        immediateRetries += 1
                        continue
                    }
                }
                reason = Self.describe(error, shutdownDeadline: endsAtShutdown(deadline)) + Self.tlsHint(error, url: endpoint.url)
                // A failed TLS handshake (an untrusted certificate, no TLS there) fails again the same way until
                // the configuration changes: retrying only delays the report (it was tried 3 times).
                if Self.isTLSHandshakeFailure(error) {
                    return Result(outcome: .failed(reason: "\(reason); not retried"), attempts: attempts)
                }
                // Nothing listens there: during shutdown that does not change before the deadline (regression:
                // a short tool took 10-15 s to exit, retrying a refused connection batch after batch).
                if retryDeadline.value != nil, Self.isConnectionRefused(error) {
                    return Result(
                        outcome: .failed(reason: "\(reason); not tried again during shutdown"), attempts: attempts)
                }
            }
            // A `Retry-After` asks for at least its wait; the backoff still grows, so `Retry-After: 0` or a
            // date in the past cannot make a storm of requests.
            let backoff = retryPolicy.backoffSeconds(afterAttempt: attempts - immediateRetries, random: Double.random(in: 0...1))
            let wait = max(requestedWait ?? 0, backoff)
            let stop = retryDeadline.value.map { min($0, deadline) } ?? deadline
            let remaining = clock.secondsLeft(untilMonotonicNano: stop)
            // A wait cut short by shutdown ends the retries too.
            guard wait < remaining, retryDeadline.wait(seconds: wait) else {
                let waitNote = requestedWait.map { String(format: " (the server asked to wait %.0f s)", $0) } ?? ""
                let limit =
                    endsAtShutdown(deadline)
                    ? "before the shutdown deadline" : "within the \(Self.seconds(endpoint.timeoutSeconds)) s timeout"
                return Result(
                    outcome: .failed(
                        reason: "\(reason); gave up after \(attempts) \(attempts == 1 ? "attempt" : "attempts") \(limit)\(waitNote)"),
                    attempts: attempts)
            }
        }
    }

    /// Whether `error` is a TLS handshake that failed (as opposed to a connection lost during one).
    static func isTLSHandshakeFailure(_ error: any Error) -> Bool {
        if case .handshakeFailed = error as? NIOSSLError { return true }
        return false
    }

    /// Why a send made after shutdown's deadline was not made.
    package static let notSentAtShutdown = "not sent: the shutdown deadline had passed"

    /// Whether shutdown's deadline (``stopRetrying(afterSeconds:)``) has passed: sends fail at once, unsent.
    package var isPastShutdownDeadline: Bool {
        retryDeadline.value.map { clock.nowMonotonicNano() >= $0 } ?? false
    }

    /// Whether `error` says nothing accepts connections at the endpoint (`ECONNREFUSED`), directly or for
    /// every address tried.
    static func isConnectionRefused(_ error: any Error) -> Bool {
        if let code = errnoCode(of: error) { return code == ECONNREFUSED }
        if let error = error as? NIOConnectionError {
            return !error.connectionErrors.isEmpty && error.connectionErrors.allSatisfy { isConnectionRefused($0.error) }
        }
        return false
    }

    /// Whether a send whose own deadline is `deadline` ends at shutdown's deadline rather than at its timeout.
    private func endsAtShutdown(_ deadline: UInt64) -> Bool {
        retryDeadline.value.map { $0 <= deadline } == true
    }

    /// When an attempt found its connection closed by the collector, before any answer.
    enum ClosedConnection {
        /// The pool had not seen the close yet: the request was not sent.
        case beforeSending
        /// The close came while the request went out, or it reached a socket the collector had closed (reset
        /// by peer, broken pipe): the collector may have read it.
        case whileSending
    }

    /// Whether, and when, `error` says the attempt found its connection closed by the collector.
    static func closedConnection(_ error: any Error) -> ClosedConnection? {
        if let error = error as? ChannelError, error == .ioOnClosedChannel { return .beforeSending }
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return .whileSending }
        if let error = error as? IOError, error.errnoCode == ECONNRESET || error.errnoCode == EPIPE { return .whileSending }
        return nil
    }

    /// How one attempt ended.
    private enum Attempt {
        case answered(status: Int, headers: HTTPHeaders, body: ByteBuffer?, bodyTooLong: Bool)
        case invalidEndpoint(HTTPClientError)
        case failed(any Error)
    }

    /// One request, made on the HTTP client's event loops while this thread waits (never on Swift
    /// concurrency's threads, so a caller on one of them cannot starve it).
    private func attempt(_ payload: ByteBuffer, deadline: UInt64) -> Attempt {
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: endpoint.url.absoluteString, method: .POST, headers: headers, body: .byteBuffer(payload))
        } catch let error as HTTPClientError {
            return .invalidEndpoint(error)
        } catch {
            return .failed(error)
        }
        let task = client.execute(
            request: request, delegate: CappedResponse(maxBodyBytes: Self.maxResponseBytes), deadline: realDeadline(deadline))
        // Shutdown's deadline also ends a request in flight (a collector that never answers).
        let observer = retryDeadline.observe { [self] stop in
            task.eventLoop.scheduleTask(deadline: realDeadline(stop)) { task.cancel() }
        }
        defer { retryDeadline.removeObserver(observer) }
        do {
            let answer = try task.futureResult.wait()
            return .answered(status: answer.status, headers: answer.headers, body: answer.body, bodyTooLong: answer.bodyTooLong)
        } catch {
            return .failed(error)
        }
    }

    /// Makes every send stop retrying `seconds` from now (shutdown has begun): no wait between attempts ends
    /// later, a request in flight then is cancelled, a refused connection is not tried again, and a send
    /// started later fails at once, unsent (``notSentAtShutdown``).
    package func stopRetrying(afterSeconds seconds: Double) {
        retryDeadline.setEarliest(clock.deadlineNano(afterSeconds: seconds))
    }

    /// The event loops' deadline of a request ending when the sender's clock reads `deadlineNano`: now plus
    /// the time left on the clock (the socket waits in real time).
    private func realDeadline(_ deadlineNano: UInt64) -> NIODeadline {
        let now = clock.nowMonotonicNano()
        return .now() + .nanoseconds(Int64(clamping: deadlineNano > now ? deadlineNano - now : 0))
    }

    /// Releases the HTTP client; later sends fail.
    package func shutdown() {
        try? client.syncShutdown()
    }

    /// The outcome of a 2xx answer: a partial success if its `Export*ServiceResponse` says so.
    private static func accepted(_ answer: ByteBuffer?, contentType: String, signal: OTLPSignal, bodyTooLong: Bool) -> Outcome {
        if bodyTooLong {
            return .accepted(rejectedItems: 0, message: "the collector's answer is over \(maxResponseBytes) bytes and was not read")
        }
        guard let answer, answer.readableBytes > 0 else { return .accepted(rejectedItems: 0, message: "") }
        let bytes = Array(answer.readableBytesView)
        do {
            let response =
                mediaType(of: contentType) == "application/json"
                ? try OTLPExportResponse(json: bytes, for: signal) : try OTLPExportResponse(protobuf: bytes, for: signal)
            return .accepted(rejectedItems: response.rejectedItems, message: response.errorMessage)
        } catch {
            // The request was accepted; only its answer is unreadable.
            return .accepted(rejectedItems: 0, message: "the collector's answer could not be read: \(error)")
        }
    }

    /// A `Content-Type` header's media type, lowercased and without its parameters (`Application/JSON;
    /// charset=utf-8` is `application/json`): media types are case-insensitive (RFC 9110, 8.3.1).
    static func mediaType(of contentType: String) -> String {
        contentType.split(separator: ";", omittingEmptySubsequences: false).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        } ?? ""
    }

    /// The message of an error answer, and whether the answer is an OTLP `google.rpc.Status` (protobuf or
    /// JSON, as its content type says); otherwise its text (as sent, its first 4 KiB: whoever prints it
    /// escapes it).
    static func statusMessage(_ answer: ByteBuffer?, contentType: String) -> (message: String, isOTLPStatus: Bool) {
        guard let answer, answer.readableBytes > 0 else { return ("", false) }
        let bytes = Array(answer.readableBytesView)
        let mediaType = mediaType(of: contentType)
        // Only a Status with an error code is one: any JSON object parses as an empty Status (a gateway's
        // `{"error": "..."}` is not the collector refusing the data).
        if mediaType == "application/json", let status = try? OTLPRPCStatus(json: bytes), status.code != 0 {
            return (status.message, true)
        }
        if mediaType == "application/x-protobuf" || mediaType == "application/protobuf", let status = try? OTLPRPCStatus(protobuf: bytes),
            status.code != 0
        {
            return (status.message, true)
        }
        return (String(decoding: bytes.prefix(4096), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), false)
    }

    /// What a collector's answer that is neither a success nor a refusal of the request says, for a person.
    static func describeAnswer(status: Int, headers: HTTPHeaders, message: String, isOTLPStatus: Bool) -> String {
        var text = "HTTP \(status)"
        switch status {
        case 300..<400:
            let location = headers.first(name: "location").map { " to \(OTLPExporterConfiguration.Resolved.redacted(url: $0))" } ?? ""
            text += " (a redirect\(location); redirects are not followed: give the endpoint's final URL)"
        case 400: text += " (not an OTLP answer: is this an OTLP/HTTP endpoint?)"
        case 401, 403, 407: text += " (the collector refused the credentials: check the headers)"
        case 404, 405: text += " (no OTLP endpoint at this URL: check its path)"
        case 415: text += " (the collector does not take this content type or encoding)"
        case 431: text += " (the request headers are too large)"
        default: break
        }
        return message.isEmpty ? text : "\(text): \(message)"
    }

    /// A hint for a plain `http` endpoint whose server closed, reset or garbled the answer: what a port serving
    /// TLS does with a request that is not (a collector with TLS on, reached as `http://`).
    static func tlsHint(_ error: any Error, url: URL) -> String {
        guard url.scheme?.lowercased() == "http" else { return "" }
        let closed = (error as? HTTPClientError) == .remoteConnectionClosed || errnoCode(of: error) == ECONNRESET
        guard closed || error is HTTPParserError else { return "" }
        return " (if the collector serves TLS on that port, the endpoint is https://)"
    }

    /// A failed attempt's cause in words: the connection's errno, a deadline (the request's timeout, or
    /// shutdown's when `shutdownDeadline`), an answer that is not HTTP.
    static func describe(_ error: any Error, shutdownDeadline: Bool = false) -> String {
        if let error = error as? HTTPClientError {
            if error == .deadlineExceeded {
                return shutdownDeadline ? "no answer before the shutdown deadline" : "no answer before the timeout"
            }
            if error == .connectTimeout { return "connection timed out" }
            if error == .remoteConnectionClosed { return "the collector closed the connection" }
            if error == .cancelled { return "cancelled at shutdown" }
            return "\(error)"
        }
        if error is HTTPParserError { return "the answer is not HTTP (\(error)): is this an OTLP/HTTP endpoint?" }
        if String(reflecting: type(of: error)).contains("NIOSSL") {
            // Its description holds the TLS library's internals (file paths among them): the case name says enough.
            let name = String(describing: error).prefix { $0 != "(" }
            return "TLS failed (\(name)): is the collector's certificate trusted, and does it speak TLS there?"
        }
        if let code = errnoCode(of: error) {
            switch code {
            case ECONNREFUSED: return "connection refused (nothing listens there)"
            case ECONNRESET: return "connection reset by the collector"
            case EPIPE: return "the collector closed the connection while the request was sent"
            case ETIMEDOUT: return "connection timed out"
            case EHOSTUNREACH, ENETUNREACH: return "no route to the collector's host (\(String(cString: strerror(code))))"
            default: return "connection failed: \(String(cString: strerror(code))) (errno \(code))"
            }
        }
        if let error = error as? NIOConnectionError {
            if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty {
                return "the collector's host name could not be resolved"
            }
            if let first = error.connectionErrors.first { return describe(first.error) }
        }
        return "request failed: \(error)"
    }

    /// The errno of a system call error, if `error` is one.
    private static func errnoCode(of error: any Error) -> Int32? {
        if let error = error as? IOError { return error.errnoCode }
        return nil
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// The shutdown deadline (a reading of the sender's clock): set from one thread, read by senders, and waking
/// senders that wait between attempts when it is set.
private final class LockedDeadline: @unchecked Sendable {
    private let condition = NSCondition()
    private let clock: any OTLPWaitableClock
    private var deadline: UInt64?
    private var observers: [Int: @Sendable (UInt64) -> Void] = [:]
    private var nextObserver = 0

    init(clock: any OTLPWaitableClock) {
        self.clock = clock
    }

    /// Calls `action` with the deadline when it is set (at once if it is set already), until removed.
    func observe(_ action: @escaping @Sendable (UInt64) -> Void) -> Int {
        condition.lock()
        let id = nextObserver
        nextObserver += 1
        observers[id] = action
        let current = deadline
        condition.unlock()
        if let current { action(current) }
        return id
    }

    func removeObserver(_ id: Int) {
        condition.lock()
        observers[id] = nil
        condition.unlock()
    }

    var value: UInt64? {
        condition.lock()
        defer { condition.unlock() }
        return deadline
    }

    func setEarliest(_ new: UInt64) {
        condition.lock()
        let earliest = deadline.map { min($0, new) } ?? new
        deadline = earliest
        let actions = Array(observers.values)
        condition.broadcast()
        condition.unlock()
        for action in actions { action(earliest) }
    }

    /// Waits `seconds`; returns true when the time is up, false as soon as a shutdown deadline is set that
    /// the wait would outlast.
    func wait(seconds: Double) -> Bool {
        let end = clock.deadlineNano(afterSeconds: seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let deadline, deadline < end { return false }
            if !clock.wait(on: condition, untilMonotonicNano: end) { return true }
        }
    }
}

/// Keeps a response's status and headers, and its body up to a limit (a longer body is dropped, not read
/// into memory).
private final class CappedResponse: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = (status: Int, headers: HTTPHeaders, body: ByteBuffer?, bodyTooLong: Bool)

    private let maxBodyBytes: Int
    private var head: HTTPResponseHead?
    private var body: ByteBuffer?
    private var isTooLong = false

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        self.head = head
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ part: ByteBuffer) -> EventLoopFuture<Void> {
        if !isTooLong {
            if (body?.readableBytes ?? 0) + part.readableBytes > maxBodyBytes {
                isTooLong = true
                body = nil
            } else {
                var part = part
                if body == nil { body = part } else { body!.writeBuffer(&part) }
            }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        guard let head else { throw HTTPClientError.remoteConnectionClosed }
        return (Int(head.status.code), head.headers, isTooLong ? nil : body, isTooLong)
    }
}

extension OTLPHTTPSender.Outcome {
    /// The outcome with `transform` applied to the text it carries.
    fileprivate func mapText(_ transform: (String) -> String) -> Self {
        switch self {
        case .accepted(let rejectedItems, let message): .accepted(rejectedItems: rejectedItems, message: transform(message))
        case .rejected(let statusCode, let message): .rejected(statusCode: statusCode, message: transform(message))
        case .tooLarge(let message): .tooLarge(message: transform(message))
        case .failed(let reason): .failed(reason: transform(reason))
        }
    }
}
