import OTLPTelemetry
package import OTLPWire

extension OTLPHTTPSender {
    /// What became of one request's items when sent by ``deliver(_:)`` (or its stored-body variant), a 413
    /// answer splitting it into halves sent in turn.
    package struct Delivery {
        /// Items the collector accepted.
        package var acceptedItems = 0
        /// Items the collector refused: a partial success's, those of a part refused for its content (400
        /// with an OTLP `Status`), and a single item refused as too large (413).
        package var rejectedItems = 0
        /// Data points a metrics collector's partial success rejected (its `rejected_data_points`; the metrics
        /// holding them count as accepted items: a collector counts metrics data in points, not metrics).
        package var rejectedDataPoints = 0
        /// Bytes of the accepted request bodies, before compression.
        package var acceptedBytes = 0
        /// Each part refused for its content or size, as a protobuf request, to be kept aside (never resent).
        package var refusedRequests: [(request: [UInt8], items: Int)] = []
        /// What the collector said of refusals and partial successes, as sent (escape it before printing).
        package var messages: [String] = []
        /// Why delivery stopped before every part was answered (the collector cannot be reached, or answers
        /// as no OTLP endpoint would: ``Outcome/failed(reason:)``); `nil` when every part was answered.
        package var failure: String?
        /// Items not delivered because delivery stopped.
        package var undeliveredItems = 0
        /// Requests sent again after retryable failures.
        package var retries = 0
        /// Requests made into parts after a 413.
        package var splits = 0
    }

    /// Sends `request`, encoded for the endpoint's protocol. A 413 splits it in halves, each delivered the
    /// same way (down to single items); the first part that fails stops delivery, the rest counted
    /// undelivered. `encoder` is the caller's (an encoder keeps its memory between requests).
    package func deliver<Item: OTLPSignalItem>(_ request: OTLPSignalData<Item>, encoder: OTLPEncoder) -> Delivery {
        var delivery = Delivery()
        deliver(request, encoder: encoder, into: &delivery)
        return delivery
    }

    /// Delivers a request whose first attempt was made already (a stored body sent as it is): `first` is
    /// its result, `bodyBytes` its size before compression, `itemCount` its items. Only a 413 needs the
    /// request itself: `request` decodes it (a `nil` counts its items rejected), `protobuf` gives it as a
    /// protobuf request to be kept aside when it is refused.
    package func deliver<Item: OTLPSignalItem>(
        afterFirstAttempt first: Result, bodyBytes: Int, itemCount: Int, request: () -> OTLPSignalData<Item>?, protobuf: () -> [UInt8],
        encoder: OTLPEncoder
    ) -> Delivery {
        var delivery = Delivery()
        record(first, bodyBytes: bodyBytes, itemCount: itemCount, request: request, protobuf: protobuf, encoder: encoder, into: &delivery)
        return delivery
    }

    /// A single item refused as too large is set aside only from this size on (64 KiB); a smaller one is
    /// kept, the endpoint's refusal taken as a fault of the endpoint.
    package static let smallestRefusableBytes = 64 << 10

    /// What the requests' items are called in messages.
    private var kind: OTLPSignal { signal }

    private func deliver<Item: OTLPSignalItem>(_ request: OTLPSignalData<Item>, encoder: OTLPEncoder, into delivery: inout Delivery) {
        let body = endpoint.protocol == .httpJSON ? OTLPJSONEncoder().encode(request) : encoder.encode(request)
        record(
            send(body), bodyBytes: body.count, itemCount: request.itemCount, request: { request },
            protobuf: { endpoint.protocol == .httpJSON ? encoder.encode(request) : body }, encoder: encoder, into: &delivery)
    }

    private func record<Item: OTLPSignalItem>(
        _ result: Result, bodyBytes: Int, itemCount: Int, request: () -> OTLPSignalData<Item>?, protobuf: () -> [UInt8],
        encoder: OTLPEncoder, into delivery: inout Delivery
    ) {
        delivery.retries += max(0, result.attempts - 1)
        switch result.outcome {
        case .accepted(let rejectedCount, let message):
            delivery.acceptedBytes += bodyBytes
            let rejected: Int
            if kind == .metrics {
                // Counted in data points: never below 0 nor above the points sent (a collector's count is hostile input).
                let points = rejectedCount > 0 ? (request() as? OTLPMetricsData)?.dataPointCount ?? 0 : 0
                rejected = Int(clamping: min(max(rejectedCount, 0), Int64(points)))
                delivery.acceptedItems += itemCount
                delivery.rejectedDataPoints += rejected
            } else {
                // Never below 0 nor above the items sent.
                rejected = Int(clamping: min(max(rejectedCount, 0), Int64(itemCount)))
                delivery.acceptedItems += itemCount - rejected
                delivery.rejectedItems += rejected
            }
            if rejected > 0 {
                let noun = kind == .metrics ? (rejected == 1 ? "data point" : "data points") : kind.noun(rejected)
                delivery.messages.append(
                    "accepted the request partly: \(rejected) \(noun) rejected\(message.isEmpty ? "" : ": \(message)")")
            } else if !message.isEmpty {
                delivery.messages.append("accepted the request, with a message: \(message)")
            }
        case .rejected(let statusCode, let message):
            delivery.rejectedItems += itemCount
            delivery.refusedRequests.append((protobuf(), itemCount))
            delivery.messages.append(
                "refused \(itemCount) \(kind.noun(itemCount)) for their content: HTTP \(statusCode)\(message.isEmpty ? "" : ": \(message)")"
            )
        case .tooLarge(let message):
            guard let whole = request(), let (first, second) = whole.halves() else {
                if bodyBytes < Self.smallestRefusableBytes {
                    // No collector refuses a request this small for its size: a proxy's limit is wrong, and
                    // the data is kept rather than set aside item by item (the review's "413 to everything").
                    delivery.failure =
                        "HTTP 413 for a single item of \(bodyBytes) bytes: the endpoint (or a proxy before it) refuses requests this small\(message.isEmpty ? "" : ": \(message)")"
                    delivery.undeliveredItems += itemCount
                    return
                }
                delivery.rejectedItems += itemCount
                delivery.refusedRequests.append((protobuf(), itemCount))
                delivery.messages.append(
                    "refused \(itemCount) \(kind.noun(itemCount)) as too large: HTTP 413\(message.isEmpty ? "" : ": \(message)")")
                return
            }
            delivery.splits += 1
            deliver(first, encoder: encoder, into: &delivery)
            guard delivery.failure == nil else {
                delivery.undeliveredItems += second.itemCount
                return
            }
            deliver(second, encoder: encoder, into: &delivery)
        case .failed(let reason):
            delivery.failure = reason
            delivery.undeliveredItems += itemCount
        }
    }
}
