internal import COTLPProto
internal import COTLPShims
internal import CProtobufC

/// Builds protoc-c structs for one request from the Swift model, in one ``ProtobufCArena``.
///
/// Strings and IDs are bound as (pointer, length) (the bindings declare strings as `bytes`, see
/// `scripts/generate-protos.sh`), so no NUL terminator is needed and U+0000 survives: IDs and small strings are
/// copied into the arena, longer strings are pointed at where the model holds them (the model outlives the pack). While building it
/// sums ``packedSizeBound``, a true upper bound of the packed size: protobuf-c packs without bounds checks,
/// and the encoder reserves that much output before packing.
struct ProtobufCBuilder {
    /// Taken from in blocks only (``allocate(byteCount:)``): an allocation straight from the arena while the
    /// builder holds its current block grows a new chunk twice the last, at every request (regression: the
    /// metrics builder did, and the 17th request of one encoder asked for 32 GiB).
    private let arena: ProtobufCArena
    /// Upper bound of the packed size of everything built so far.
    private(set) var packedSizeBound = 0
    /// The block of arena memory being filled: its next free byte and the bytes left after it. The builder
    /// bumps through it itself, so an allocation is a few instructions with no call into the arena (and no
    /// retain and release of it); the arena is asked for a new block only when this one runs out.
    private var cursor: UnsafeMutableRawPointer?
    private var remaining = 0
    /// What the request holds, counted for the readers' decoded-memory estimate (``OTLPReadabilityProof``):
    /// messages per type, string and bytes fields, fields of messages with many fields (traces and logs only).
    var census = COTLPShims_Census()
    /// Arrays and key-value lists open around the value being built, and the most seen at once.
    private var valueNesting = 0
    private(set) var maxValueNesting = 0
    /// Most attributes on one span, span event, span link, log record, resource or scope built so far.
    private(set) var maxItemAttributes = 0
    /// Strings and bytes longer than this take their own storage in the decoded model (the reader's rule).
    private static let inlineStringBytes = OTLPDecoder.modelCosts.inline_string_bytes

    // Per field: tag (<= 2 bytes) + varint (<= 10). Per string/bytes: tag + length (<= 12) + bytes.
    private static let scalarBound = 12
    private static let messageBound = 16

    init(arena: ProtobufCArena) {
        self.arena = arena
    }

    // MARK: - Census

    /// Counts a string or bytes field of `count` bytes (an empty one adds nothing, written or not).
    @inline(__always)
    mutating func countLengthField(_ count: Int) {
        census.len_fields_unpacked &+= COTLPShims_len_field_unpacked_bytes(count)
        if count > Self.inlineStringBytes {
            census.long_fields &+= 1
            census.long_field_bytes &+= count
        }
    }

    /// Counts a message of `fields` fields (or at most that many) for the slabs readers' unpack keeps.
    @inline(__always)
    mutating func countFields(_ fields: Int) {
        if fields > Int(COTLPSHIMS_SLAB_FIELD_THRESHOLD) { census.slab_fields &+= fields }
    }

    /// Notes `count` attributes of one item (not a key-value list value) for the readers' attribute limit.
    @inline(__always)
    mutating func countItemAttributes(_ count: Int) {
        if count > maxItemAttributes { maxItemAttributes = count }
    }

    // MARK: - Memory

    /// `byteCount` bytes aligned to 8, valid until the arena is reset.
    @inline(__always)
    mutating func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        let rounded = (byteCount &+ 7) & ~7
        if rounded > remaining { refill(atLeast: rounded) }
        let pointer = cursor.unsafelyUnwrapped
        cursor = pointer + rounded
        remaining &-= rounded
        return pointer
    }

    @inline(__always)
    mutating func allocate<T>(_: T.Type, count: Int = 1) -> UnsafeMutablePointer<T> {
        allocate(byteCount: MemoryLayout<T>.stride &* count).bindMemory(to: T.self, capacity: count)
    }

    @inline(never)
    private mutating func refill(atLeast byteCount: Int) {
        let block = arena.block(atLeast: byteCount)
        cursor = block.baseAddress
        remaining = block.count
    }

    // MARK: - Leaves

    @inline(__always)
    mutating func bytes(_ string: String) -> ProtobufCBinaryData {
        let count = string.utf8.count
        guard count > 0 else { return ProtobufCBinaryData(len: 0, data: nil) }
        packedSizeBound &+= count &+ Self.scalarBound
        countLengthField(count)
        // Longer than a small string (15 bytes, held inside the String value itself), a native string keeps its
        // UTF-8 in storage that lives as long as the model being encoded, which outlives the pack: point at it
        // rather than copying it (the pack copies it once, into the output).
        if count > 15, let storage = string.utf8.withContiguousStorageIfAvailable({ $0.baseAddress }), let storage {
            return ProtobufCBinaryData(len: count, data: UnsafeMutablePointer(mutating: storage))
        }
        let destination = allocate(byteCount: count)
        // Native strings (and small ones, copied to the stack) are contiguous UTF-8.
        let copied: Void? = string.utf8.withContiguousStorageIfAvailable { source in
            Self.copy(UnsafeRawPointer(source.baseAddress!), to: destination, count: count)
        }
        if copied == nil {
            var copy = string
            copy.withUTF8 { destination.copyMemory(from: $0.baseAddress!, byteCount: count) }
        }
        return ProtobufCBinaryData(len: count, data: destination.assumingMemoryBound(to: UInt8.self))
    }

    /// Copies `count` bytes: up to 16 (a small string's) inline, in two overlapping words, rather than by a
    /// call to `memcpy`.
    @inline(__always)
    static func copy(_ source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, count: Int) {
        if count >= 8 && count <= 16 {
            destination.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
            destination.storeBytes(
                of: source.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self), toByteOffset: count &- 8, as: UInt64.self)
        } else if count >= 4 && count < 8 {
            destination.storeBytes(of: source.loadUnaligned(as: UInt32.self), as: UInt32.self)
            destination.storeBytes(
                of: source.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self), toByteOffset: count &- 4, as: UInt32.self)
        } else if count < 4 {
            for index in 0..<count {
                destination.storeBytes(of: source.load(fromByteOffset: index, as: UInt8.self), toByteOffset: index, as: UInt8.self)
            }
        } else {
            destination.copyMemory(from: source, byteCount: count)
        }
    }

    @inline(__always)
    mutating func bytes(_ array: [UInt8]) -> ProtobufCBinaryData {
        guard !array.isEmpty else { return ProtobufCBinaryData(len: 0, data: nil) }
        packedSizeBound &+= array.count &+ Self.scalarBound
        countLengthField(array.count)
        let destination = allocate(byteCount: array.count)
        array.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return ProtobufCBinaryData(len: array.count, data: destination.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    mutating func bytes(_ id: OTLPTraceID?) -> ProtobufCBinaryData {
        guard let id else { return ProtobufCBinaryData(len: 0, data: nil) }
        packedSizeBound &+= 16 &+ Self.scalarBound
        countLengthField(16)
        let destination = allocate(byteCount: 16)
        destination.storeBytes(of: id.high.bigEndian, as: UInt64.self)
        destination.storeBytes(of: id.low.bigEndian, toByteOffset: 8, as: UInt64.self)
        return ProtobufCBinaryData(len: 16, data: destination.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    mutating func bytes(_ id: OTLPSpanID?) -> ProtobufCBinaryData {
        guard let id else { return ProtobufCBinaryData(len: 0, data: nil) }
        packedSizeBound &+= 8 &+ Self.scalarBound
        countLengthField(8)
        let destination = allocate(byteCount: 8)
        destination.storeBytes(of: id.value.bigEndian, as: UInt64.self)
        return ProtobufCBinaryData(len: 8, data: destination.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    mutating func scalars(_ count: Int) {
        packedSizeBound &+= count &* Self.scalarBound
    }

    @inline(__always)
    mutating func message<T>(_ type: T.Type, count: Int = 1) -> UnsafeMutablePointer<T> {
        packedSizeBound &+= count &* Self.messageBound
        return allocate(type, count: count)
    }

    // MARK: - Common

    /// The struct that packs as `value`'s `AnyValue`.
    ///
    /// Strings, booleans, integers, doubles and bytes use the encoding-only one-field messages
    /// (`otlpwire.encoding.v1.*AnyValue`): the same bytes as an `AnyValue` with that member set, but
    /// protobuf-c visits one field descriptor instead of eight. The pointer is typed as `AnyValue` only to
    /// be stored in the C struct; protobuf-c packs it through its own descriptor and nothing reads it back.
    mutating func anyValue(_ value: OTLPAttributeValue) -> UnsafeMutablePointer<PBAnyValue> {
        census.any_values &+= 1
        switch value {
        case .string(let string):
            let member = message(PBStringAnyValue.self)
            COTLPShims_init_string_any_value(member)
            member.pointee.string_value = bytes(string)
            packedSizeBound &+= Self.scalarBound  // the member is written even when empty
            return UnsafeMutablePointer(OpaquePointer(member))
        case .bool(let bool):
            let member = message(PBBoolAnyValue.self)
            COTLPShims_init_bool_any_value(member)
            member.pointee.bool_value = bool ? 1 : 0
            scalars(1)
            return UnsafeMutablePointer(OpaquePointer(member))
        case .int(let int):
            let member = message(PBIntAnyValue.self)
            COTLPShims_init_int_any_value(member)
            member.pointee.int_value = int
            scalars(1)
            return UnsafeMutablePointer(OpaquePointer(member))
        case .double(let double):
            let member = message(PBDoubleAnyValue.self)
            COTLPShims_init_double_any_value(member)
            member.pointee.double_value = double
            scalars(1)
            return UnsafeMutablePointer(OpaquePointer(member))
        case .bytes(let array):
            let member = message(PBBytesAnyValue.self)
            COTLPShims_init_bytes_any_value(member)
            member.pointee.bytes_value = bytes(array)
            packedSizeBound &+= Self.scalarBound
            return UnsafeMutablePointer(OpaquePointer(member))
        case .array(let values):
            let pointer = message(PBAnyValue.self)
            COTLPShims_init_any_value(pointer)
            let array = message(PBArrayValue.self)
            COTLPShims_init_array_value(array)
            let count = values.count
            census.array_values &+= 1
            countFields(count)
            enterNestedValue()
            defer { valueNesting &-= 1 }
            if count > 0 {
                let pointers = allocate(UnsafeMutablePointer<PBAnyValue>?.self, count: count)
                values.withUnsafeBufferPointer { buffer in
                    for index in 0..<count { pointers[index] = anyValue(buffer[index]) }
                }
                array.pointee.n_values = count
                array.pointee.values = pointers
            }
            pointer.pointee.value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_ARRAY_VALUE
            pointer.pointee.array_value = array
            return pointer
        case .keyValueList(let attributes):
            let pointer = message(PBAnyValue.self)
            COTLPShims_init_any_value(pointer)
            let list = message(PBKeyValueList.self)
            COTLPShims_init_key_value_list(list)
            census.kv_lists &+= 1
            countFields(attributes.count)
            enterNestedValue()
            defer { valueNesting &-= 1 }
            (list.pointee.n_values, list.pointee.values) = keyValues(attributes)
            pointer.pointee.value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_KVLIST_VALUE
            pointer.pointee.kvlist_value = list
            return pointer
        case .empty:
            let pointer = message(PBAnyValue.self)
            COTLPShims_init_any_value(pointer)
            return pointer
        }
    }

    /// Notes one more array or key-value list around the values built next (the caller leaves it).
    @inline(__always)
    private mutating func enterNestedValue() {
        valueNesting &+= 1
        if valueNesting > maxValueNesting { maxValueNesting = valueNesting }
    }

    /// The `AnyValue` bytes of a string, boolean, integer, double, bytes or empty value, packed into the arena
    /// (what protobuf-c would write for it: the one member's tag and value); `nil` for arrays, lists and no value.
    /// Reads the value where the attribute lies (see ``keyValues(_:)``).
    @inline(__always)
    mutating func packedScalar(valueOf attribute: UnsafePointer<OTLPAttribute>) -> ProtobufCBinaryData? {
        let destination: UnsafeMutableRawPointer
        var count = 0
        switch attribute.pointee.value {
        case .none:
            return nil
        case .string(let string):
            let length = string.utf8.count
            destination = allocate(byteCount: 11 &+ length)
            destination.storeBytes(of: 0x0A, as: UInt8.self)  // field 1, length-delimited
            count = 1 &+ Self.putVarint(UInt64(length), at: destination + 1)
            copy(string, to: destination + count, count: length)
            count &+= length
            countLengthField(length)
        case .bool(let bool):
            destination = allocate(byteCount: 2)
            destination.storeBytes(of: 0x10, as: UInt8.self)  // field 2, varint
            destination.storeBytes(of: bool ? 1 : 0, toByteOffset: 1, as: UInt8.self)
            count = 2
        case .int(let int):
            destination = allocate(byteCount: 11)
            destination.storeBytes(of: 0x18, as: UInt8.self)  // field 3, varint
            count = 1 &+ Self.putVarint(UInt64(bitPattern: int), at: destination + 1)
        case .double(let double):
            destination = allocate(byteCount: 9)
            destination.storeBytes(of: 0x21, as: UInt8.self)  // field 4, 64-bit
            destination.storeBytes(of: double.bitPattern.littleEndian, toByteOffset: 1, as: UInt64.self)
            count = 9
        case .bytes(let array):
            destination = allocate(byteCount: 11 &+ array.count)
            destination.storeBytes(of: 0x3A, as: UInt8.self)  // field 7, length-delimited
            count = 1 &+ Self.putVarint(UInt64(array.count), at: destination + 1)
            array.withUnsafeBytes { (destination + count).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            count &+= array.count
            countLengthField(array.count)
        case .empty:
            return ProtobufCBinaryData(len: 0, data: nil)
        case .array, .keyValueList:
            return nil
        }
        packedSizeBound &+= count &+ Self.scalarBound
        return ProtobufCBinaryData(len: count, data: destination.assumingMemoryBound(to: UInt8.self))
    }

    /// Writes `value` as a protobuf varint at `destination` (room for 10 bytes); returns the bytes written.
    @inline(__always)
    static func putVarint(_ value: UInt64, at destination: UnsafeMutableRawPointer) -> Int {
        var value = value
        var count = 0
        while value >= 0x80 {
            destination.storeBytes(of: UInt8(truncatingIfNeeded: value) | 0x80, toByteOffset: count, as: UInt8.self)
            value >>= 7
            count &+= 1
        }
        destination.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: count, as: UInt8.self)
        return count &+ 1
    }

    /// Copies `string`'s `count` UTF-8 bytes to `destination`.
    @inline(__always)
    func copy(_ string: String, to destination: UnsafeMutableRawPointer, count: Int) {
        guard count > 0 else { return }
        let copied: Void? = string.utf8.withContiguousStorageIfAvailable { source in
            Self.copy(UnsafeRawPointer(source.baseAddress!), to: destination, count: count)
        }
        if copied == nil {
            var copy = string
            copy.withUTF8 { destination.copyMemory(from: $0.baseAddress!, byteCount: count) }
        }
    }

    mutating func keyValues(
        _ attributes: [OTLPAttribute]
    ) -> (Int, UnsafeMutablePointer<UnsafeMutablePointer<PBKeyValue>?>?) {
        let count = attributes.count
        guard count > 0 else { return (0, nil) }
        packedSizeBound &+= count &* Self.messageBound
        census.key_values &+= count
        let pointers = allocate(UnsafeMutablePointer<PBKeyValue>?.self, count: count)
        // Each attribute is read where it lies, through a pointer into the array's buffer (the caller holds the
        // array unchanged): read through the array, each value was copied out (a retain and a release, and the
        // enum's outlined copy) because the builder writes memory and calls C meanwhile, about 30 instructions
        // per attribute.
        attributes.withUnsafeBufferPointer { source in
            for index in 0..<count {
                let attribute = source.baseAddress.unsafelyUnwrapped + index
                if !attribute.pointee.key.isEmpty, let packed = packedScalar(valueOf: attribute) {
                    // The common case: a value packed here, in the encoding-only PackedKeyValue (same bytes).
                    let keyValue = allocate(PBPackedKeyValue.self)
                    COTLPShims_init_packed_key_value(keyValue)
                    census.any_values &+= 1  // the packed value reads back as an AnyValue (empty ones too: it is required)
                    keyValue.pointee.key = bytes(attribute.pointee.key)
                    keyValue.pointee.value = packed
                    pointers[index] = UnsafeMutablePointer(OpaquePointer(keyValue))
                } else if let value = attribute.pointee.value, !attribute.pointee.key.isEmpty {
                    // Arrays and lists: the encoding-only KeyValue with both fields required (same bytes).
                    let keyValue = allocate(PBPresentKeyValue.self)
                    COTLPShims_init_present_key_value(keyValue)
                    keyValue.pointee.key = bytes(attribute.pointee.key)
                    keyValue.pointee.value = anyValue(value)
                    pointers[index] = UnsafeMutablePointer(OpaquePointer(keyValue))
                } else {
                    let keyValue = allocate(PBKeyValue.self)
                    COTLPShims_init_key_value(keyValue)
                    keyValue.pointee.key = bytes(attribute.pointee.key)
                    if let value = attribute.pointee.value { keyValue.pointee.value = anyValue(value) }
                    pointers[index] = keyValue
                }
            }
        }
        return (count, pointers)
    }

    mutating func resource(_ resource: OTLPResource) -> UnsafeMutablePointer<PBResource> {
        let pointer = message(PBResource.self)
        COTLPShims_init_resource(pointer)
        (pointer.pointee.n_attributes, pointer.pointee.attributes) = keyValues(resource.attributes)
        pointer.pointee.dropped_attributes_count = resource.droppedAttributesCount
        scalars(1)
        let count = resource.entityRefs.count
        census.resources &+= 1
        census.entity_refs &+= count
        countItemAttributes(resource.attributes.count)
        countFields(resource.attributes.count &+ 1 &+ count)
        if count > 0 {
            let refs = message(PBEntityRef.self, count: count)
            let pointers = allocate(UnsafeMutablePointer<PBEntityRef>?.self, count: count)
            for (index, ref) in resource.entityRefs.enumerated() {
                let refPointer = refs + index
                COTLPShims_init_entity_ref(refPointer)
                refPointer.pointee.schema_url = bytes(ref.schemaURL)
                refPointer.pointee.type = bytes(ref.type)
                (refPointer.pointee.n_id_keys, refPointer.pointee.id_keys) = strings(ref.idKeys)
                (refPointer.pointee.n_description_keys, refPointer.pointee.description_keys) = strings(ref.descriptionKeys)
                countFields(2 &+ ref.idKeys.count &+ ref.descriptionKeys.count)
                pointers[index] = refPointer
            }
            pointer.pointee.n_entity_refs = count
            pointer.pointee.entity_refs = pointers
        }
        return pointer
    }

    private mutating func strings(_ strings: [String]) -> (Int, UnsafeMutablePointer<ProtobufCBinaryData>?) {
        guard !strings.isEmpty else { return (0, nil) }
        let array = allocate(ProtobufCBinaryData.self, count: strings.count)
        for (index, string) in strings.enumerated() {
            array[index] = bytes(string)
            packedSizeBound &+= Self.scalarBound  // repeated members are written even when empty
        }
        return (strings.count, array)
    }

    mutating func scope(_ scope: OTLPInstrumentationScope) -> UnsafeMutablePointer<PBScope> {
        let pointer = message(PBScope.self)
        COTLPShims_init_scope(pointer)
        pointer.pointee.name = bytes(scope.name)
        pointer.pointee.version = bytes(scope.version)
        (pointer.pointee.n_attributes, pointer.pointee.attributes) = keyValues(scope.attributes)
        pointer.pointee.dropped_attributes_count = scope.droppedAttributesCount
        scalars(1)
        census.scopes &+= 1
        countItemAttributes(scope.attributes.count)
        countFields(scope.attributes.count &+ 3)
        return pointer
    }

    // MARK: - The request envelope

    /// The request around `data`'s items: the envelope is the same for both signals, and each item is built
    /// by its type (``ProtobufCItem``).
    @_specialize(where Item == OTLPSpan)
    @_specialize(where Item == OTLPLogRecord)
    mutating func request<Item: ProtobufCItem>(_ data: OTLPSignalData<Item>) -> UnsafeMutablePointer<COTLPShims_Request> {
        let request = message(COTLPShims_Request.self)
        request.initialize(to: COTLPShims_Request())
        let resourceCount = data.resourceGroups.count
        guard resourceCount > 0 else { return request }
        census.resource_groups &+= resourceCount
        countFields(resourceCount)
        let resourceGroups = message(COTLPShims_ResourceGroup.self, count: resourceCount)
        let resourcePointers = allocate(UnsafeMutablePointer<COTLPShims_ResourceGroup>?.self, count: resourceCount)
        for (r, group) in data.resourceGroups.enumerated() {
            let resourceGroup = resourceGroups + r
            resourceGroup.initialize(to: COTLPShims_ResourceGroup())
            if let resource = group.resource { resourceGroup.pointee.resource = self.resource(resource) }
            resourceGroup.pointee.schema_url = bytes(group.schemaURL)
            let scopeCount = group.scopeGroups.count
            census.scope_groups &+= scopeCount
            countFields(scopeCount &+ 2)
            if scopeCount > 0 {
                let scopeGroups = message(COTLPShims_ScopeGroup.self, count: scopeCount)
                let scopePointers = allocate(UnsafeMutablePointer<COTLPShims_ScopeGroup>?.self, count: scopeCount)
                for (s, sourceScopeGroup) in group.scopeGroups.enumerated() {
                    let scopeGroup = scopeGroups + s
                    scopeGroup.initialize(to: COTLPShims_ScopeGroup())
                    if let scope = sourceScopeGroup.scope { scopeGroup.pointee.scope = self.scope(scope) }
                    scopeGroup.pointee.schema_url = bytes(sourceScopeGroup.schemaURL)
                    let itemCount = sourceScopeGroup.items.count
                    countFields(itemCount &+ 2)
                    if itemCount > 0 {
                        let items = message(Item.CMessage.self, count: itemCount)
                        let itemPointers = allocate(UnsafeMutablePointer<ProtobufCMessage>?.self, count: itemCount)
                        // Each item is read where it lies, through a pointer into the array's buffer: passed as a
                        // value (`items[index]`, borrowing), a span was copied out for the call with a retain and a
                        // release of each of its strings and arrays, since the builder writes memory (and calls C)
                        // meanwhile: about 200 instructions per span, 100 per log record.
                        sourceScopeGroup.items.withUnsafeBufferPointer { source in
                            for index in 0..<itemCount {
                                Item.build(source.baseAddress.unsafelyUnwrapped + index, into: items + index, with: &self)
                                itemPointers[index] = UnsafeMutableRawPointer(items + index).assumingMemoryBound(to: ProtobufCMessage.self)
                            }
                        }
                        scopeGroup.pointee.n_items = itemCount
                        scopeGroup.pointee.items = itemPointers
                    }
                    scopePointers[s] = scopeGroup
                }
                resourceGroup.pointee.n_scope_groups = scopeCount
                resourceGroup.pointee.scope_groups = scopePointers
            }
            resourcePointers[r] = resourceGroup
        }
        request.pointee.n_resource_groups = resourceCount
        request.pointee.resource_groups = resourcePointers
        return request
    }
}
