import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPTestSupport
import OTLPTesting
import OTLPWire
import Testing

/// The sender on its own: requests over connections the collector keeps or closes.
@Suite("OTLPHTTPSender", .serialized)
struct OTLPHTTPSenderTests {
    /// Regression: a connection the collector closed right after a complete answer could be handed back to
    /// AsyncHTTPClient's pool after the pool had already removed it (the end of the request was confirmed on
    /// another event loop than the connection's), and the pool stopped the process ("A connection that we
    /// don't know was released?"). It happened in CI behind the flapping proxy; with this server it took
    /// well under 2,400 requests.
    @Test("a collector that closes kept-alive connections right after answers: every request answered, nothing traps")
    func closedAfterAnswer() throws {
        let threadCount = 8
        let requestsPerThread = 300
        let server = try OTLPAbruptCloseServer(closeEvery: 3)
        defer { server.stop() }
        let sender = OTLPHTTPSender(
            signal: .traces, endpoint: OTLPHTTPTestData.endpoint(server.endpoint, compression: .none, timeoutSeconds: 30),
            retryPolicy: OTLPHTTPTestData.quickRetries)
        let body = OTLPEncoder().encode(
            OTLPTracesData(
                resource: OTLPHTTPTestData.resource, scope: OTLPHTTPTestData.scope, items: OTLPHTTPTestData.spans(20).map(\.span)))
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: threadCount) { _ in
            for _ in 0..<requestsPerThread { results.add(sender.send(body)) }
        }
        sender.shutdown()
        let all = results.all
        #expect(all.count == threadCount * requestsPerThread)
        // A request that found its connection closed is sent again on another connection: every one accepted.
        let notAccepted = all.filter { $0.outcome != .accepted(rejectedItems: 0, message: "") }
        #expect(notAccepted.isEmpty, "\(notAccepted.count) not accepted, as \(notAccepted.prefix(3))")
        #expect(server.answered == threadCount * requestsPerThread)
        #expect(server.closedAfterAnswer == threadCount * requestsPerThread / 3)
    }

    /// Regression: every failure that looked like a closed kept-alive connection was retried at once, up to
    /// 8 times, and counted for the backoff, so a collector dropping every connection (restarting behind a
    /// proxy) made a send give up within milliseconds (9 connections, then a first wait past the timeout),
    /// and one that read requests before dropping them got 9 copies.
    @Test("a collector that resets every connection: one quick retry, then the backoff from its first step until the timeout")
    func resetEveryConnection() throws {
        let server = try OTLPAbruptCloseServer(closeEvery: 1, resetsEveryConnection: true)
        defer { server.stop() }
        // The first wait, 0.2 s, fits in the 3 s timeout; a wait counted from the ninth attempt (10 s) does not.
        // The waits pass on the sender's clock, at once.
        let clock = OTLPHTTPTestData.jumpingClock()
        let sender = OTLPHTTPSender(
            signal: .traces, endpoint: OTLPHTTPTestData.endpoint(server.endpoint, compression: .none, timeoutSeconds: 3),
            retryPolicy: OTLPHTTPRetryPolicy(initialBackoffSeconds: 0.2, maxBackoffSeconds: 10, jitterFraction: 0), clock: clock)
        let started = clock.nowMonotonicNano()
        let result = sender.send([0x0A, 0x00])
        let elapsed = Duration.nanoseconds(clock.nowMonotonicNano() - started)
        sender.shutdown()
        guard case .failed(let reason) = result.outcome else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        // It waited at least the first backoff.
        #expect(elapsed >= .milliseconds(200), "\(result) after \(elapsed)")
        #expect(result.attempts >= 3, "\(result)")
        #expect(reason.contains("gave up after \(result.attempts) attempts within the 3 s timeout"), "\(reason)")
        #expect(server.connectionsAccepted <= result.attempts)
    }

    @Test("a send after shutdown fails at once, not after retrying until the timeout")
    func sendAfterShutdown() throws {
        let server = try OTLPAbruptCloseServer(closeEvery: 1_000)
        defer { server.stop() }
        let sender = OTLPHTTPSender(
            signal: .traces, endpoint: OTLPHTTPTestData.endpoint(server.endpoint, compression: .none, timeoutSeconds: 30),
            retryPolicy: OTLPHTTPRetryPolicy(initialBackoffSeconds: 60, maxBackoffSeconds: 60, jitterFraction: 0))
        sender.shutdown()
        let result = sender.send([0x0A, 0x00])
        #expect(result.outcome == .failed(reason: "the sender was shut down") && result.attempts == 1, "\(result)")
    }
}

/// Results several threads add to.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [OTLPHTTPSender.Result] = []

    var all: [OTLPHTTPSender.Result] { lock.withLock { results } }

    func add(_ result: OTLPHTTPSender.Result) { lock.withLock { results.append(result) } }
}
