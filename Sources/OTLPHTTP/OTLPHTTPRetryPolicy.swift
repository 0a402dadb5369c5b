package import Foundation

/// When a failed request is tried again: the OTLP/HTTP specification's retryable answers (429, 502, 503, 504
/// and connection failures), exponential backoff with jitter between attempts, a server's `Retry-After`
/// honoured, and every attempt inside the export timeout.
public struct OTLPHTTPRetryPolicy: Sendable, Equatable {
    /// The wait before the second attempt; each later wait doubles, up to ``maxBackoffSeconds``. Default 1.
    public var initialBackoffSeconds: Double
    /// The longest wait between attempts that the policy chooses itself (a `Retry-After` may ask for more,
    /// within the export timeout). Default 30.
    public var maxBackoffSeconds: Double
    /// Each wait is drawn uniformly from `[wait × (1 − jitter), wait]`, so that many exporters do not retry
    /// in step. Default 0.5, range 0...1.
    package var jitterFraction: Double

    /// 1 s doubling up to 30 s, half of each wait randomised: what an omitted argument means.
    public static let `default` = OTLPHTTPRetryPolicy(initialBackoffSeconds: 1, maxBackoffSeconds: 30, jitterFraction: 0.5)

    /// A policy with ``default``'s values unless given (half of each wait randomised).
    public init(
        initialBackoffSeconds: Double = OTLPHTTPRetryPolicy.default.initialBackoffSeconds,
        maxBackoffSeconds: Double = OTLPHTTPRetryPolicy.default.maxBackoffSeconds
    ) {
        self.init(
            initialBackoffSeconds: initialBackoffSeconds, maxBackoffSeconds: maxBackoffSeconds, jitterFraction: Self.default.jitterFraction)
    }

    /// A policy whose waits are randomised by `jitterFraction` (0: not at all, as tests want).
    package init(initialBackoffSeconds: Double, maxBackoffSeconds: Double, jitterFraction: Double) {
        self.initialBackoffSeconds = initialBackoffSeconds
        self.maxBackoffSeconds = maxBackoffSeconds
        self.jitterFraction = jitterFraction
    }

    /// Whether an answer with this HTTP status is tried again (429 Too Many Requests, 502 Bad Gateway,
    /// 503 Service Unavailable, 504 Gateway Timeout).
    package static func isRetryable(statusCode: Int) -> Bool {
        [429, 502, 503, 504].contains(statusCode)
    }

    /// The wait before attempt `attempt + 1` (after `attempt` failed attempts, 1 or more), without a
    /// `Retry-After`: `initialBackoffSeconds × 2^(attempt − 1)`, at most `maxBackoffSeconds`, less up to
    /// `jitterFraction` of it; `random` is a number in `0...1`.
    package func backoffSeconds(afterAttempt attempt: Int, random: Double) -> Double {
        let initial = Self.finite(initialBackoffSeconds, in: 0...86_400, default: Self.default.initialBackoffSeconds)
        let cap = Self.finite(maxBackoffSeconds, in: 0...86_400, default: Self.default.maxBackoffSeconds)
        let jitter = Self.finite(jitterFraction, in: 0...1, default: Self.default.jitterFraction)
        let exponent = Double(min(max(attempt, 1) - 1, 60))
        let wait = min(initial * pow(2, exponent), cap)
        return wait * (1 - jitter * Self.finite(random, in: 0...1, default: 0))
    }

    /// The wait a `Retry-After` header asks for: delay-seconds (`"120"`) or an HTTP date
    /// (`"Wed, 21 Oct 2026 07:28:00 GMT"`, measured from `now`; a date in the past is no wait). `nil` when the
    /// value is neither (RFC 9110, section 10.2.3).
    package static func retryAfterSeconds(_ value: String, now: Date) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Very long digit strings are not Int-representable: wait "forever" (past any export timeout).
            return Double(Int(text) ?? Int.max)
        }
        for format in httpDateFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }

    /// IMF-fixdate, then the obsolete RFC 850 and asctime forms recipients must accept.
    private static let httpDateFormats = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]

    private static func finite(_ value: Double, in range: ClosedRange<Double>, default fallback: Double) -> Double {
        value.isNaN ? fallback : min(max(value, range.lowerBound), range.upperBound)
    }
}
