extension OTLPAttributeValue {
    /// Whether arrays and key-value lists nest more than `levels` deep in this value (a scalar is 0 levels, an
    /// array of scalars 1). Walks iteratively, so any depth is safe to ask about; the encoders recurse per
    /// level, so callers holding values from elsewhere ask before encoding.
    package func nests(deeperThan levels: Int) -> Bool {
        guard isContainer else { return false }
        var pending: [(value: OTLPAttributeValue, depth: Int)] = [(self, 0)]
        while let (value, depth) = pending.popLast() {
            switch value {
            case .array(let values):
                guard depth < levels else { return true }
                for element in values { pending.append((element, depth + 1)) }
            case .keyValueList(let attributes):
                guard depth < levels else { return true }
                for attribute in attributes { if let element = attribute.value { pending.append((element, depth + 1)) } }
            default:
                continue
            }
        }
        return false
    }

    /// Whether this is an array or a key-value list.
    package var isContainer: Bool {
        switch self {
        case .array, .keyValueList: true
        default: false
        }
    }
}

extension Array where Element == OTLPAttribute {
    /// Whether any value nests more than `levels` deep (see ``OTLPAttributeValue/nests(deeperThan:)``).
    package func nest(deeperThan levels: Int) -> Bool {
        contains { $0.value?.nests(deeperThan: levels) == true }
    }
}
