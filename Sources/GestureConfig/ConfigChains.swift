import GestureEngine

/// `[region.drag] chain` and `chain_outer_first`: a region's drag handing the stroke on to an
/// enclosing region's (scroll chaining, `DragChain`). Whether the named region encloses this one
/// and both can move along the axis is checked once the regions are nested (`checkRules`).
extension Loader {
    func readChain(_ d: Scope) throws(ConfigError) -> DragChain? {
        guard let region = try d.string("chain") else {
            if d.table["chain_outer_first"] != nil {
                throw d.fail("chain_outer_first", "'chain_outer_first' needs 'chain' (the enclosing region the motion goes to)")
            }
            return nil
        }
        let first = try d.choice("chain_outer_first", DragChain.Direction.self) ?? .up
        return DragChain(region: region, outerFirst: first)
    }
}
