import Testing

@testable import Daemon

/// The names mirrors are kept under in systemd's store, and what the daemon takes for one.
@Suite struct MirrorStoreTests {
    @Test func aName_carriesItsPlace_andIsAValidFDName() {
        let name = MirrorStore.name(place: "pci-0000-00-14.0-usb-0-1-1.0", fingerprint: "0123456789abcdef")
        #expect(name == "mirror-0123456789abcdef-pci-0000-00-14.0-usb-0-1-1.0")
        #expect(MirrorStore.isMirror(name))
        #expect(MirrorStore.place(of: name) == "pci-0000-00-14.0-usb-0-1-1.0")
        let longest = MirrorStore.name(place: String(repeating: "p", count: 120) + "-99", fingerprint: "0123456789abcdef")
        #expect(longest.utf8.count <= 255 && !longest.contains(":"), "FDNAME: at most 255, no ':'")
    }

    /// A socket's name (touchgestured.socket's, or `requests`) is no mirror; a name not of the
    /// store's form has no place, so it never takes a panel's mirror.
    @Test func otherNames_areNoMirrorOfAnyPlace() {
        #expect(!MirrorStore.isMirror("touchgestured.socket"))
        #expect(!MirrorStore.isMirror("requests"))
        #expect(MirrorStore.place(of: "mirror-") == "")
        #expect(MirrorStore.place(of: "mirror-short-pci-1") == "")
        #expect(MirrorStore.place(of: "mirror-0123456789abcdefXpci-1") == "")
        #expect(MirrorStore.place(of: "requests") == "")
    }
}
