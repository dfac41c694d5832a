/// The enclosing regions' lines of a chained stroke (`DragChain`): the inner region's pan is the
/// one the arena let run (the inner region wins, as ever); each of its events is given again as
/// an event of each enclosing region's pan on that axis, with that region's offset, what it
/// consumed and, at the end, its target. So a client of either region draws its own content
/// from its own lines without knowing the rule; each enclosing region's events begin and end
/// with the inner's, under an id of their own.
extension Engine {
    mutating func appendChainLines(from first: Int, to end: Int, region r: Int, _ out: inout [GestureEvent]) {
        let levels = drags.paths[r].count
        guard levels > 1 else { return }
        for j in first..<end where out[j].kind == .pan {
            var e = out[j]  // one copy, rewritten for each enclosing level
            let phase = e.phase
            let ends = phase == .ended || phase == .cancelled
            for k in 1..<levels {
                let level = drags.paths[r][k]
                let gesture = drags.outerGesture[level]
                guard gesture >= 0 else { continue }
                if phase == .began {
                    drags.chainIDs[level] = nextID
                    nextID += 1
                }
                e.id = drags.chainIDs[level]
                e.gesture = gesture
                e.sequence = sequenceOf[gesture]
                e.offset = drags.offset(of: level)
                e.consumed = drags.consumedPoint(of: level)
                e.target = ends ? drags.target(of: level) : nil
                out.append(e)
            }
        }
    }
}
