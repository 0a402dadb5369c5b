import Foundation
import OTLPHTTP
import Testing

@Suite("OTLPHTTPRetryPolicy")
struct OTLPHTTPRetryPolicyTests {
    @Test("the specification's retryable statuses, and no others")
    func retryableStatuses() {
        for status in [429, 502, 503, 504] { #expect(OTLPHTTPRetryPolicy.isRetryable(statusCode: status)) }
        for status in [200, 400, 401, 403, 404, 408, 413, 500, 501, 505] { #expect(!OTLPHTTPRetryPolicy.isRetryable(statusCode: status)) }
    }

    @Test("backoff doubles from the initial wait up to the cap; jitter takes at most its fraction off")
    func backoff() {
        let policy = OTLPHTTPRetryPolicy(initialBackoffSeconds: 1, maxBackoffSeconds: 10, jitterFraction: 0.5)
        #expect(policy.backoffSeconds(afterAttempt: 1, random: 0) == 1)
        #expect(policy.backoffSeconds(afterAttempt: 2, random: 0) == 2)
        #expect(policy.backoffSeconds(afterAttempt: 4, random: 0) == 8)
        #expect(policy.backoffSeconds(afterAttempt: 5, random: 0) == 10)
        #expect(policy.backoffSeconds(afterAttempt: 1_000_000, random: 0) == 10)
        #expect(policy.backoffSeconds(afterAttempt: 3, random: 1) == 2)
        #expect(policy.backoffSeconds(afterAttempt: 3, random: 0.5) == 3)
    }

    @Test("hostile settings and inputs give finite, bounded waits")
    func hostileSettings() {
        let policy = OTLPHTTPRetryPolicy(initialBackoffSeconds: .nan, maxBackoffSeconds: .infinity, jitterFraction: -3)
        for attempt in [Int.min, -1, 0, 1, 63, 64, Int.max] {
            for random in [-1.0, .nan, 0.3, 7] {
                let wait = policy.backoffSeconds(afterAttempt: attempt, random: random)
                #expect(wait.isFinite && wait >= 0 && wait <= 86_400)
            }
        }
    }

    @Test("Retry-After: delay-seconds and HTTP dates (all three forms); anything else is nil")
    func retryAfter() {
        let now = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21T14:13:20Z
        #expect(OTLPHTTPRetryPolicy.retryAfterSeconds("1", now: now) == 1)
        #expect(OTLPHTTPRetryPolicy.retryAfterSeconds(" 120 ", now: now) == 120)
        #expect(OTLPHTTPRetryPolicy.retryAfterSeconds("Mon, 21 Sep 2026 14:13:50 GMT", now: now) == 30)
        #expect(OTLPHTTPRetryPolicy.retryAfterSeconds("Monday, 21-Sep-26 14:14:20 GMT", now: now) == 60)
        #expect(OTLPHTTPRetryPolicy.retryAfterSeconds("Mon Sep 21 14:13:30 2026", now: now) == 10)
        #expect(OTLPHTTPRetryPolicy.retryAfterSeconds("Mon, 21 Sep 2026 14:00:00 GMT", now: now) == 0)
        #expect(OTLPHTTPRetryPolicy.retryAfterSeconds("99999999999999999999999", now: now)! > 1e9)
        for garbage in ["", "-1", "1.5", "soon", "0x10", "Mon, 99 Sep 2026 14:00:00 GMT", "\u{0}"] {
            #expect(OTLPHTTPRetryPolicy.retryAfterSeconds(garbage, now: now) == nil, "\(garbage)")
        }
    }
}
