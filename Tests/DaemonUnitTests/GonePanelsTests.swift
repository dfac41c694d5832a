import Testing

@testable import Daemon

/// The panels that went: one that comes back continues its entry (its counters, its metrics
/// series), on the same node or replugged onto another.
@Suite struct GonePanelsTests {
    static func key(_ name: String, _ node: String) -> PanelHealth.Key { PanelHealth.Key(name: name, vendor: 0x0eef, product: 0x0001, node: node) }

    @Test func aPanelReplugged_continuesItsEntry_onItsNewNode() {
        var gone = GonePanels()
        var h = PanelHealth(Self.key("panel", "/dev/input/event5"))
        h.frames = 42
        gone.add(h)
        gone.add(PanelHealth(Self.key("other", "/dev/input/event7")))
        let back = gone.take(Self.key("panel", "/dev/input/event6"))
        #expect(back?.frames == 42 && back?.key.node == "/dev/input/event6")
        #expect(gone.all.map(\.key.name) == ["other"], "taken out of the gone ones")
        let third = gone.take(Self.key("third", "/dev/input/event5"))
        #expect(third == nil, "another panel's entry is its own")
    }

    @Test func onTheSameNode_itsOwnEntry_elsewhereOnlyTheOneOfItsKind() {
        var gone = GonePanels()
        var a = PanelHealth(Self.key("panel", "/dev/input/event5"))
        a.frames = 1
        var b = PanelHealth(Self.key("panel", "/dev/input/event6"))
        b.frames = 2
        gone.add(a)
        gone.add(b)
        let elsewhere = gone.take(Self.key("panel", "/dev/input/event9"))
        #expect(elsewhere == nil, "two of its kind gone: which is which cannot be told")
        let own = gone.take(Self.key("panel", "/dev/input/event5"))
        #expect(own?.frames == 1)
        let kind = gone.take(Self.key("panel", "/dev/input/event9"))
        #expect(kind?.frames == 2, "the one of its kind left")
    }
}
