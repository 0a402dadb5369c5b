package import OTLPWire

/// Limits on what one span or log record may hold, as the OpenTelemetry specification defines them, plus a
/// default value length limit that keeps every record readable. What a count limit removes is counted in
/// the item's `dropped_*_count` fields.
///
/// Each limit has a documented range. ``OTLPTelemetryConfiguration/validate()`` (and so a JSON
/// configuration) rejects values outside it; values set in code are clamped into it when applied.
public struct OTLPLimits: Sendable, Equatable, Encodable, OTLPConfigurationDecodable {
    /// Attributes per span or log record. Default 128, range 0...the readers' default attribute limit
    /// (`OTLPDecodingOptions.default.maxAttributesPerItem`, 10,000).
    public var attributeCountLimit: Int
    /// Longest string or bytes value, in Unicode scalars (bytes): attribute values, values inside arrays and
    /// key-value lists, and log record bodies. Longer ones are cut. Default 65,536 (64 Ki), range
    /// 0...2,097,152 (a quarter of the readers' default record size limit, so that one value of 4-byte
    /// scalars still fits a record); `nil` means no limit.
    ///
    /// The specification's default is no limit, but one 70 MB value would make a record that readers with
    /// their default limits refuse (8 MiB per record): 64 Ki keeps stack traces and request bodies whole
    /// while one value stays a small part of a record.
    public var attributeValueLengthLimit: Int?
    /// Events per span. Default 128, range 0...10,000.
    public var eventCountLimit: Int
    /// Links per span. Default 128, range 0...10,000.
    public var linkCountLimit: Int
    /// Attributes per span event. Default 128, range as ``attributeCountLimit``.
    public var attributePerEventCountLimit: Int
    /// Attributes per span link. Default 128, range as ``attributeCountLimit``.
    public var attributePerLinkCountLimit: Int

    /// The default ``attributeValueLengthLimit``: 64 Ki.
    package static let defaultAttributeValueLength = 65_536

    /// The largest ``attributeValueLengthLimit`` accepted: a quarter of the readers' default record size
    /// limit (2 Mi with the 8 MiB default), so that one value of 4-byte scalars still fits a record.
    package static var maxAttributeValueLength: Int { max(0, OTLPDecodingOptions.default.maxRecordBytes / 4) }

    /// Accepted attribute count limits (per item, event or link).
    package static var attributeCountRange: ClosedRange<Int> { 0...max(0, OTLPDecodingOptions.default.maxAttributesPerItem) }

    /// Accepted event and link count limits.
    package static let eventCountRange = 0...10_000

    /// The specification's limits (128 of each) and a value length limit of
    /// 65,536: what an omitted argument or JSON key means.
    public static let `default` = OTLPLimits(
        attributeCountLimit: 128, attributeValueLengthLimit: defaultAttributeValueLength, eventCountLimit: 128, linkCountLimit: 128,
        attributePerEventCountLimit: 128, attributePerLinkCountLimit: 128)

    /// Limits with ``default``'s values unless given.
    public init(
        attributeCountLimit: Int = OTLPLimits.default.attributeCountLimit,
        attributeValueLengthLimit: Int? = OTLPLimits.default.attributeValueLengthLimit,
        eventCountLimit: Int = OTLPLimits.default.eventCountLimit, linkCountLimit: Int = OTLPLimits.default.linkCountLimit,
        attributePerEventCountLimit: Int = OTLPLimits.default.attributePerEventCountLimit,
        attributePerLinkCountLimit: Int = OTLPLimits.default.attributePerLinkCountLimit
    ) {
        self.attributeCountLimit = attributeCountLimit
        self.attributeValueLengthLimit = attributeValueLengthLimit
        self.eventCountLimit = eventCountLimit
        self.linkCountLimit = linkCountLimit
        self.attributePerEventCountLimit = attributePerEventCountLimit
        self.attributePerLinkCountLimit = attributePerLinkCountLimit
    }

    /// These limits with every value brought into its range.
    package var clamped: OTLPLimits {
        OTLPLimits(
            attributeCountLimit: OTLPSettingClamp.clamp(attributeCountLimit, to: Self.attributeCountRange),
            attributeValueLengthLimit: attributeValueLengthLimit.map { OTLPSettingClamp.clamp($0, to: 0...Self.maxAttributeValueLength) },
            eventCountLimit: OTLPSettingClamp.clamp(eventCountLimit, to: Self.eventCountRange),
            linkCountLimit: OTLPSettingClamp.clamp(linkCountLimit, to: Self.eventCountRange),
            attributePerEventCountLimit: OTLPSettingClamp.clamp(attributePerEventCountLimit, to: Self.attributeCountRange),
            attributePerLinkCountLimit: OTLPSettingClamp.clamp(attributePerLinkCountLimit, to: Self.attributeCountRange))
    }

    /// Every value outside its range, as errors naming `prefix.key`.
    func violations(prefix: String) -> [OTLPConfigurationError] {
        [
            OTLPConfigurationError.check(attributeCountLimit, in: Self.attributeCountRange, "\(prefix)attributeCountLimit"),
            attributeValueLengthLimit.flatMap {
                OTLPConfigurationError.check($0, in: 0...Self.maxAttributeValueLength, "\(prefix)attributeValueLengthLimit")
            },
            OTLPConfigurationError.check(eventCountLimit, in: Self.eventCountRange, "\(prefix)eventCountLimit"),
            OTLPConfigurationError.check(linkCountLimit, in: Self.eventCountRange, "\(prefix)linkCountLimit"),
            OTLPConfigurationError.check(attributePerEventCountLimit, in: Self.attributeCountRange, "\(prefix)attributePerEventCountLimit"),
            OTLPConfigurationError.check(attributePerLinkCountLimit, in: Self.attributeCountRange, "\(prefix)attributePerLinkCountLimit"),
        ].compactMap { $0 }
    }

    /// Applies every span limit (clamped into range); dropped counts grow by what was removed.
    package func apply(to span: inout OTLPSpan) {
        let limits = clamped
        let length = limits.attributeValueLengthLimit
        span.droppedAttributesCount = Self.add(
            span.droppedAttributesCount, Self.limit(&span.attributes, limits.attributeCountLimit, length))
        if span.events.count > limits.eventCountLimit {
            span.droppedEventsCount = Self.add(span.droppedEventsCount, span.events.count - limits.eventCountLimit)
            span.events.removeLast(span.events.count - limits.eventCountLimit)
        }
        for index in span.events.indices {
            span.events[index].droppedAttributesCount = Self.add(
                span.events[index].droppedAttributesCount,
                Self.limit(&span.events[index].attributes, limits.attributePerEventCountLimit, length))
        }
        if span.links.count > limits.linkCountLimit {
            span.droppedLinksCount = Self.add(span.droppedLinksCount, span.links.count - limits.linkCountLimit)
            span.links.removeLast(span.links.count - limits.linkCountLimit)
        }
        for index in span.links.indices {
            span.links[index].droppedAttributesCount = Self.add(
                span.links[index].droppedAttributesCount,
                Self.limit(&span.links[index].attributes, limits.attributePerLinkCountLimit, length))
        }
    }

    /// Applies the attribute limits (clamped into range) to a log record, and the value length limit to its
    /// body.
    package func apply(to record: inout OTLPLogRecord) {
        let limits = clamped
        let length = limits.attributeValueLengthLimit
        record.droppedAttributesCount = Self.add(
            record.droppedAttributesCount, Self.limit(&record.attributes, limits.attributeCountLimit, length))
        if let body = record.body, length != nil || body.isContainer { record.body = Self.truncate(body, length) }
    }

    /// A dropped count plus `removed`, saturating at `UInt32.max`.
    private static func add(_ count: UInt32, _ removed: Int) -> UInt32 {
        let (sum, overflow) = count.addingReportingOverflow(UInt32(clamping: removed))
        return overflow ? .max : sum
    }

    /// Keeps the first `count` attributes (cutting long values); returns how many were removed.
    private static func limit(_ attributes: inout [OTLPAttribute], _ count: Int, _ length: Int?) -> Int {
        var removed = 0
        if attributes.count > count {
            removed = attributes.count - count
            attributes.removeLast(removed)
        }
        // Only values that may be cut are written back: the others are left in place (no copy, no release).
        for index in attributes.indices {
            guard let value = attributes[index].value, mayBeCut(value, length) else { continue }
            attributes[index].value = truncate(value, length)
        }
        return removed
    }

    /// Deepest nesting of arrays and key-value lists kept in a value (always applied, whatever the length
    /// limit): each level takes up to three protobuf message levels, so 30 levels under an event attribute
    /// stay within the readers' default of 100 (`OTLPDecodingOptions.default.maxNestingDepth`). Deeper
    /// containers are cut to an empty value, as a long string is cut to the length limit; the encoders
    /// recurse per level, so this also keeps a hostile value from exhausting the exporter's stack.
    package static let maxValueNestingLevels = 30

    /// Whether ``truncate(_:_:depth:)`` may change `value`: a string of more UTF-8 bytes, or bytes longer,
    /// than `length`, or a container (its contents, or its nesting).
    static func mayBeCut(_ value: OTLPAttributeValue, _ length: Int?) -> Bool {
        switch value {
        case .string(let string): length.map { string.utf8.count > max(0, $0) } ?? false
        case .bytes(let bytes): length.map { bytes.count > max(0, $0) } ?? false
        case .array, .keyValueList: true
        default: false
        }
    }

    /// `value` with every string longer than `length` Unicode scalars, and every bytes value longer than
    /// `length` bytes, cut to that length (`nil`: no length limit), and arrays and key-value lists nested
    /// deeper than ``maxValueNestingLevels`` cut to an empty value.
    static func truncate(_ value: OTLPAttributeValue, _ length: Int?, depth: Int = 0) -> OTLPAttributeValue {
        switch value {
        case .array where depth >= maxValueNestingLevels, .keyValueList where depth >= maxValueNestingLevels:
            return .empty
        case .string(let string):
            guard let length = length.map({ max(0, $0) }) else { return value }
            // A string of at most `length` UTF-8 bytes has at most `length` scalars (utf8.count is O(1) for
            // native strings); counting scalars, not grapheme clusters, bounds the bytes kept.
            guard string.utf8.count > length else { return value }
            let scalars = string.unicodeScalars
            guard let end = scalars.index(scalars.startIndex, offsetBy: length, limitedBy: scalars.endIndex), end < scalars.endIndex
            else { return value }
            return .string(String(scalars[..<end]))
        case .bytes(let bytes) where length.map { bytes.count > max(0, $0) } ?? false:
            return .bytes(Array(bytes.prefix(max(0, length ?? 0))))
        case .array(let values):
            return .array(values.map { truncate($0, length, depth: depth + 1) })
        case .keyValueList(let attributes):
            return .keyValueList(attributes.map { OTLPAttribute($0.key, $0.value.map { truncate($0, length, depth: depth + 1) }) })
        default:
            return value
        }
    }
}
