internal import OTLPWire

/// A MetricKit call-stack tree (`callStackTree`), flattened without recursion into one frame list per
/// thread (depth-first, each frame with its depth and its parent's index), and turned into a readable
/// backtrace: one frame per line, innermost first.
///
/// Apple's tree nests one level per frame (`subFrames`), so a deep crash would be a deeply nested value;
/// the flat lists keep the nesting of what is emitted constant whatever the depth of the stack.
///
/// Per-thread trees (crashes, hangs, launches) have the innermost frame at the root: the attributed
/// thread's chain root → `subFrames[0]` → … is the backtrace. Aggregated trees (CPU and disk-write
/// exceptions) are flame graphs with the outermost frame at the root: the heaviest path (largest
/// `sampleCount` at each branch), reversed, is the backtrace.
struct MetricKitCallStackTree {
    struct Frame: Equatable {
        var binaryName: String?
        var binaryUUID: String?
        /// The runtime address, as written and as a number.
        var addressText: String?
        var address: UInt64?
        /// `offsetIntoBinaryTextSegment` as written.
        var offsetText: String?
        /// The offset into the binary: the written value, or address − written value when the OS wrote the
        /// binary's load address there (iOS 14-15, macOS 12).
        var offset: UInt64?
        var sampleCountText: String?
        var sampleCount: Int64?
        /// Index of the parent frame in the thread's list; −1 for a root frame.
        var parentIndex: Int
        /// 0 for a root frame.
        var depth: Int
    }

    struct Thread {
        var threadAttributed: Bool?
        /// Depth-first, each frame before its sub-frames.
        var frames: [Frame]
    }

    let isPerThread: Bool?
    let threads: [Thread]

    /// Flattens the tree at `path` (bare, or wrapped as `{"callStackTree": {...}}`). Values of the wrong
    /// type are skipped and noted; an address/offset pair whose difference is negative is an error.
    init?(_ value: JSONValue, path: String, notes: MetricKitConversionNotes) throws(MetricKitConversionError) {
        guard var tree = MetricKitJSON.element(value, path: path, notes: notes) else { return nil }
        // Accept the bare tree and the {"callStackTree": {...}} wrapper some tools write.
        if case .object? = tree.value("callStackTree"), let inner = tree.object("callStackTree") { tree = inner }
        isPerThread = tree.bool("callStackPerThread")
        var threads: [Thread] = []
        for (stackIndex, stackValue) in (tree.array("callStacks") ?? []).enumerated() {
            guard let stack = MetricKitJSON.element(stackValue, path: "\(tree.path).callStacks[\(stackIndex)]", notes: notes) else {
                continue
            }
            var thread = Thread(threadAttributed: stack.bool("threadAttributed"), frames: [])
            let rootsPath = stack.childPath("callStackRootFrames")
            // (value, parent index, depth, index among its siblings); pushed in reverse to keep document order.
            var pending: [(JSONValue, Int, Int, Int)] = (stack.array("callStackRootFrames") ?? []).enumerated().reversed().map {
                ($1, -1, 0, $0)
            }
            let positions = FramePositions()  // shared with the lazy paths, never copied
            while let (frameValue, parent, depth, sibling) = pending.popLast() {
                let framePath = { Self.path(of: parent, sibling: sibling, in: positions, rootsPath: rootsPath) }
                guard case .object(let members) = frameValue else {
                    if frameValue != .null { notes.skip(framePath(), "expected a frame object, skipped") }
                    continue
                }
                let object = MetricKitJSON(members: members, lazyPath: framePath, notes: notes)
                thread.frames.append(try Self.frame(object, parent: parent, depth: depth))
                positions.siblings.append(sibling)
                positions.parents.append(parent)
                let index = thread.frames.count - 1
                for (childIndex, child) in (object.array("subFrames") ?? []).enumerated().reversed() {
                    pending.append((child, index, depth + 1, childIndex))
                }
            }
            threads.append(thread)
        }
        self.threads = threads
    }

    /// Where each frame of a thread sits: its index among its siblings and its parent's index.
    private final class FramePositions {
        var siblings: [Int] = []
        var parents: [Int] = []
    }

    /// The JSON path of a frame, built only when needed (a path per frame would cost O(depth²) memory).
    private static func path(of parent: Int, sibling: Int, in positions: FramePositions, rootsPath: String) -> String {
        var indices = [sibling]
        var current = parent
        while current >= 0 {
            indices.append(positions.siblings[current])
            current = positions.parents[current]
        }
        var path = rootsPath + "[\(indices.removeLast())]"
        for index in indices.reversed() { path += ".subFrames[\(index)]" }
        return path
    }

    private static func frame(_ object: MetricKitJSON, parent: Int, depth: Int) throws(MetricKitConversionError) -> Frame {
        var frame = Frame(parentIndex: parent, depth: depth)
        frame.binaryName = object.string("binaryName")
        frame.binaryUUID = object.string("binaryUUID")
        (frame.addressText, frame.address) = unsigned(object, "address")
        let (offsetText, written) = unsigned(object, "offsetIntoBinaryTextSegment")
        frame.offsetText = offsetText
        frame.offset = written
        // Older OSes wrote the binary's load address here: then the offset is address − that value.
        if let written, let address = frame.address, written > address / 2 {
            let (offset, overflow) = address.subtractingReportingOverflow(written)
            if overflow {
                throw MetricKitConversionError(
                    path: object.childPath("offsetIntoBinaryTextSegment"),
                    message: "load address \(written) is above the frame's address \(address)")
            }
            frame.offset = offset
        }
        if let count = object.integer("sampleCount") {
            if count >= 0 {
                (frame.sampleCountText, frame.sampleCount) = (String(count), count)
            } else {
                object.notes.skip(object.childPath("sampleCount"), "expected a count (not negative), skipped")
            }
        }
        return frame
    }

    /// An unsigned 64-bit number (addresses reach past `Int64.max`) and its text.
    private static func unsigned(_ object: MetricKitJSON, _ key: String) -> (String?, UInt64?) {
        switch object.value(key) {
        case nil: return (nil, nil)
        case .number(let text)?:
            if let value = UInt64(text) { return (text, value) }
            if let double = Double(text), double.isFinite, let value = UInt64(exactly: double) { return (String(value), value) }
        default: break
        }
        object.notes.skip(object.childPath(key), "expected an unsigned 64-bit integer, skipped")
        return (nil, nil)
    }

    // MARK: - Output

    /// The thread a backtrace is printed for: the attributed one, else the first.
    var attributedThread: Thread? { threads.first { $0.threadAttributed == true } ?? threads.first }

    /// The backtrace to print, innermost frame first, at most `maxFrames`; and how many frames of the path
    /// were left out.
    func backtrace(maxFrames: Int = 512) -> (frames: [Frame], omitted: Int) {
        guard let frames = attributedThread?.frames, !frames.isEmpty else { return ([], 0) }
        var children = [[Int]](repeating: [], count: frames.count)
        var roots: [Int] = []
        for (index, frame) in frames.enumerated() {
            if frame.parentIndex < 0 { roots.append(index) } else { children[frame.parentIndex].append(index) }
        }
        var path: [Int] = []
        if isPerThread == true {
            // Root (innermost) → first sub-frame → … (outermost).
            var current = roots.first
            while let index = current {
                path.append(index)
                current = children[index].first
            }
        } else {
            // Flame graph: follow the heaviest branch from the heaviest root, then reverse.
            func heaviest(_ indices: [Int]) -> Int? { indices.max { (frames[$0].sampleCount ?? 0) < (frames[$1].sampleCount ?? 0) } }
            var current = heaviest(roots)
            while let index = current {
                path.append(index)
                current = heaviest(children[index])
            }
            path.reverse()
        }
        return (path.prefix(max(0, maxFrames)).map { frames[$0] }, max(0, path.count - max(0, maxFrames)))
    }

    /// One frame per line: `0   MyApp   0x00000001009f4d6c MyApp + 23916`; a last line says how many
    /// frames were left out.
    static func format(_ frames: [Frame], omitted: Int = 0) -> String {
        var lines = frames.enumerated().map { index, frame in
            let name = frame.binaryName ?? "???"
            let address = frame.address.map { "0x" + String($0, radix: 16).leftPadded(16) } ?? "0x????????????????"
            let offset = frame.offset.map { " + \($0)" } ?? ""
            return "\(String(index).rightPadded(3)) \(name.rightPadded(30)) \(address) \(name)\(offset)"
        }
        if omitted > 0 { lines.append("... \(omitted) more frames") }
        return lines.joined(separator: "\n")
    }

    /// The flat JSON form, at most `maxBytes` long, cut only between frames (so it stays valid JSON):
    ///
    ///     {"callStackPerThread":true,"callStacks":[{"threadAttributed":true,"callStackFrames":[
    ///       {"depth":0,"parentIndex":-1,"binaryName":"…","binaryUUID":"…","offsetIntoBinaryTextSegment":123,
    ///        "address":74565,"sampleCount":1}, …]}]}
    ///
    /// Also how many frames and bytes of the whole form were left out. `nil` when not even the frame-less
    /// skeleton fits.
    func flatJSON(maxBytes: Int) -> (json: String, omittedFrames: Int, omittedBytes: Int)? {
        let head = "{" + (isPerThread.map { "\"callStackPerThread\":\($0)," } ?? "") + "\"callStacks\":["
        let threadTexts: [(head: String, frames: [String])] = threads.map { thread in
            (
                "{" + (thread.threadAttributed.map { "\"threadAttributed\":\($0)," } ?? "") + "\"callStackFrames\":[",
                thread.frames.map(Self.json)
            )
        }
        // The whole form's length: head, threads (head, frames, commas, "]}"), commas, "]}".
        var fullLength = head.utf8.count + 2 + max(0, threadTexts.count - 1)
        for thread in threadTexts {
            fullLength += thread.head.utf8.count + 2 + max(0, thread.frames.count - 1)
            for frame in thread.frames { fullLength += frame.utf8.count }
        }
        var out = head
        var omittedFrames = 0
        var full = true
        for (threadIndex, thread) in threadTexts.enumerated() {
            let separator = threadIndex > 0 ? 1 : 0
            // Room for this thread's head and closers, and the document's closers.
            guard full, out.utf8.count + separator + thread.head.utf8.count + 2 + 2 <= maxBytes else {
                full = false
                omittedFrames += thread.frames.count
                continue
            }
            if separator > 0 { out += "," }
            out += thread.head
            for (frameIndex, frame) in thread.frames.enumerated() {
                let comma = frameIndex > 0 ? 1 : 0
                guard full, out.utf8.count + comma + frame.utf8.count + 2 + 2 <= maxBytes else {
                    full = false
                    omittedFrames += 1
                    continue
                }
                if comma > 0 { out += "," }
                out += frame
            }
            out += "]}"
        }
        out += "]}"
        guard out.utf8.count <= maxBytes else { return nil }
        return (out, omittedFrames, fullLength - out.utf8.count)
    }

    private static func json(_ frame: Frame) -> String {
        var members = ["\"depth\":\(frame.depth)", "\"parentIndex\":\(frame.parentIndex)"]
        if let name = frame.binaryName { members.append("\"binaryName\":" + JSONValue.string(name).jsonText) }
        if let uuid = frame.binaryUUID { members.append("\"binaryUUID\":" + JSONValue.string(uuid).jsonText) }
        if let offset = frame.offsetText { members.append("\"offsetIntoBinaryTextSegment\":\(offset)") }
        if let address = frame.addressText { members.append("\"address\":\(address)") }
        if let count = frame.sampleCountText { members.append("\"sampleCount\":\(count)") }
        return "{" + members.joined(separator: ",") + "}"
    }
}

extension String {
    func leftPadded(_ width: Int, with pad: Character = "0") -> String { String(repeating: pad, count: max(0, width - count)) + self }
    func rightPadded(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}

extension JSONValue {
    /// Compact JSON text (numbers as written, so 64-bit addresses survive). Iterative: any depth.
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
