import OTLPWire

extension OTLPSignalData {
    /// One resource group: `scopedItems`' items under `resource`, grouped by scope in order of first appearance.
    init<ScopedItem>(
        resource: OTLPResource, grouping scopedItems: [ScopedItem],
        scope: (ScopedItem) -> OTLPInstrumentationScope, item: (ScopedItem) -> Item
    ) {
        var groups: [OTLPScopeGroup<Item>] = []
        for scopedItem in scopedItems {
            let itemScope = scope(scopedItem)
            if let last = groups.indices.last, groups[last].scope == itemScope {
                groups[last].items.append(item(scopedItem))
            } else if let index = groups.firstIndex(where: { $0.scope == itemScope }) {
                groups[index].items.append(item(scopedItem))
            } else {
                groups.append(OTLPScopeGroup(scope: itemScope, items: [item(scopedItem)], schemaURL: ""))
            }
        }
        self.init(resourceGroups: [OTLPResourceGroup(resource: resource, scopeGroups: groups, schemaURL: "")])
    }
}
