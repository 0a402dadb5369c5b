internal import OTLPWire

/// A MetricKit call-stack tree (`callStackTree`), read without recursion, turned into a readable
/// backtrace: one frame per line, innermost first.
///
/// Per-thread trees (crashes, hangs, launches) have the innermost frame at the root: the attributed
/// thread's chain root → `subFrames[0]` → … is the backtrace. Aggregated trees (CPU and disk-write
/// exceptions) are flame graphs with the outermost frame at the root: the heaviest path (largest
/// `sampleCount` at each branch), reversed, is the backtrace.
struct MetricKitCallStackTree {
    struct Frame: Equatable {
        var binaryName: String?
        var binaryUUID: String?
        var address: Int64?
        var offset: Int64?
        var sampleCount: Int64?
    }

    let value: JSONValue
    let isPerThread: Bool

    init?(_ value: JSONValue) {
        guard case .object(var members) = value else { return nil }
        var tree = value
        // Accept the bare tree and the {"callStackTree": {...}} wrapper some tools write.
        if let wrapped = members.last(where: { $0.0 == "callStackTree" })?.1, case .object(let inner) = wrapped {
            tree = wrapped
            members = inner
        }
        self.value = tree
        isPerThread = members.contains { $0.0 == "callStackPerThread" && $0.1 == .bool(true) }
    }

    private static func member(_ value: JSONValue, _ key: String) -> JSONValue? {
        guard case .object(let members) = value else { return nil }
        return members.last { $0.0 == key }?.1
    }

    private static func integer(_ value: JSONValue?) -> Int64? {
        if case .number(let text)? = value { return Int64(text) ?? Double(text).flatMap { $0.isFinite ? Int64(exactly: $0.rounded()) : nil } }
        return nil
    }

    static func frame(_ value: JSONValue) -> Frame {
        var frame = Frame()
        if case .string(let name)? = member(value, "binaryName") { frame.binaryName = name }
        if case .string(let uuid)? = member(value, "binaryUUID") { frame.binaryUUID = uuid }
        frame.address = integer(member(value, "address"))
        let offset = integer(member(value, "offsetIntoBinaryTextSegment"))
        // Older OSes wrote the binary's load address here: then the offset is address − that value.
        if let offset, let address = frame.address, offset > address / 2 { frame.offset = address - offset } else { frame.offset = offset }
        frame.sampleCount = integer(member(value, "sampleCount"))
        return frame
    }

    private static func subFrames(_ value: JSONValue) -> [JSONValue] {
        if case .array(let frames)? = member(value, "subFrames") { return frames }
        return []
    }

    /// The backtrace to print, innermost frame first.
    func backtrace(maxFrames: Int = 512) -> [Frame] {
        guard case .array(let stacks)? = Self.member(value, "callStacks"), !stacks.isEmpty else { return [] }
        let stack = stacks.first { Self.member($0, "threadAttributed") == .bool(true) } ?? stacks[0]
        guard case .array(let roots)? = Self.member(stack, "callStackRootFrames"), !roots.isEmpty else { return [] }
        var path: [Frame] = []
        if isPerThread {
            var current: JSONValue? = roots[0]
            while let node = current, path.count < maxFrames {
                path.append(Self.frame(node))
                current = Self.subFrames(node).first
            }
            return path  // root (innermost) → outermost
        }
        // Flame graph: follow the heaviest branch from the heaviest root, then reverse.
        func heaviest(_ frames: [JSONValue]) -> JSONValue? {
            frames.max { (Self.integer(Self.member($0, "sampleCount")) ?? 0) < (Self.integer(Self.member($1, "sampleCount")) ?? 0) }
        }
        var current = heaviest(roots)
        while let node = current, path.count < maxFrames {
            path.append(Self.frame(node))
            current = heaviest(Self.subFrames(node))
        }
        return path.reversed()
    }

    /// One frame per line: `0   MyApp   0x00000001009f4d6c MyApp + 23916`.
    static func format(_ frames: [Frame]) -> String {
        frames.enumerated().map { index, frame in
            let name = frame.binaryName ?? "???"
            let address = frame.address.map { "0x" + String(UInt64(bitPattern: $0), radix: 16).leftPadded(16) } ?? "0x????????????????"
            let offset = frame.offset.map { " + \($0)" } ?? ""
            return "\(String(index).rightPadded(3)) \(name.rightPadded(30)) \(address) \(name)\(offset)"
        }.joined(separator: "\n")
    }
}

extension String {
    func leftPadded(_ width: Int, with pad: Character = "0") -> String { String(repeating: pad, count: max(0, width - count)) + self }
    func rightPadded(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}

extension JSONValue {
    /// Compact JSON text (numbers as written, so 64-bit addresses survive).
    var jsonText: String {
        var out = ""
        var stack: [(JSONValue, Int)] = [(self, 0)]  // (value, next child index), iterative
        func quote(_ text: String) -> String {
            var escaped = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": escaped += "\\\""
                case "\\": escaped += "\\\\"
                case "\n": escaped += "\\n"
                case "\r": escaped += "\\r"
                case "\t": escaped += "\\t"
                case _ where scalar.value < 0x20: escaped += "\\u" + String(scalar.value, radix: 16).leftPadded(4)
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped + "\""
        }
        while let (value, index) = stack.popLast() {
            switch value {
            case .null: out += "null"
            case .bool(let bool): out += bool ? "true" : "false"
            case .number(let text): out += text
            case .string(let text): out += quote(text)
            case .array(let elements):
                if index == 0 { out += "[" }
                if index < elements.count {
                    if index > 0 { out += "," }
                    stack.append((value, index + 1))
                    stack.append((elements[index], 0))
                } else {
                    out += "]"
                }
            case .object(let members):
                if index == 0 { out += "{" }
                if index < members.count {
                    if index > 0 { out += "," }
                    out += quote(members[index].0) + ":"
                    stack.append((value, index + 1))
                    stack.append((members[index].1, 0))
                } else {
                    out += "}"
                }
            }
        }
        return out
    }
}
