/// Compares the underlying causes of ``OTLPReadError`` and ``OTLPWriteError`` values, which are `any Error`.
enum ErrorCause {
    /// Whether `lhs` and `rhs` are the same cause: both absent, equal `Equatable` values of one type, or
    /// (for causes that are not `Equatable`) values of one type with the same description.
    static func equal(_ lhs: (any Error)?, _ rhs: (any Error)?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (let lhs?, let rhs?):
            guard type(of: lhs) == type(of: rhs) else { return false }
            if let lhs = lhs as? any Equatable { return isEqual(lhs, rhs) }
            return String(describing: lhs) == String(describing: rhs)
        default: return false
        }
    }

    private static func isEqual<Value: Equatable>(_ lhs: Value, _ rhs: Any) -> Bool {
        (rhs as? Value) == lhs
    }
}
