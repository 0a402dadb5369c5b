import OTLPWire

extension OTLPSignalData {
    /// One resource group: `scopedItems`' items under `resource`, grouped by scope in order of first appearance.
    ///
    /// The items are read in place (by index: a `for … in` loop would copy each one out, retaining and releasing
    /// every field), and `scope` and `item` are closures the compiler inlines here (a key path would be applied
    /// through the runtime, item by item).
    init<ScopedItem>(
        resource: OTLPResource, grouping scopedItems: [ScopedItem],
        scope: (ScopedItem) -> OTLPInstrumentationScope, item: (ScopedItem) -> Item
    ) {
        var groups: [OTLPScopeGroup<Item>] = []
        // The group the previous item went to: consecutive items of one scope are the common case.
        var last = -1
        for index in scopedItems.indices {
            let itemScope = scope(scopedItems[index])
            if last >= 0, groups[last].scope == itemScope {
                groups[last].items.append(item(scopedItems[index]))
            } else if let found = groups.firstIndex(where: { $0.scope == itemScope }) {
                groups[found].items.append(item(scopedItems[index]))
                last = found
            } else {
                var items: [Item] = []
                // Most batches have one scope: its items array is made once, at its final size.
                if groups.isEmpty { items.reserveCapacity(scopedItems.count) }
                items.append(item(scopedItems[index]))
                groups.append(OTLPScopeGroup(scope: itemScope, items: items, schemaURL: ""))
                last = groups.count - 1
            }
        }
        self.init(resourceGroups: [OTLPResourceGroup(resource: resource, scopeGroups: groups, schemaURL: "")])
    }
}
