import Testing

@testable import WebBridge

/// The command line's values: the listen address, the origins the endpoint lets in, the bounds.
@Suite struct BridgeSettingsTests {
    @Test func listenAddresses() throws {
        #expect(try BridgeSettings.parseListen("127.0.0.1:7700") == ("127.0.0.1", 7700))
        #expect(try BridgeSettings.parseListen("[::1]:80") == ("::1", 80))
        #expect(try BridgeSettings.parseListen(":9000") == ("0.0.0.0", 9000))
        for bad in ["7700", "host:", "host:0", "host:65536", "host:http"] {
            #expect(throws: BridgeSettingsError.self, "\(bad)") { try BridgeSettings.parseListen(bad) }
        }
    }

    @Test func ownOriginsOnLoopback_includeEveryLoopbackName() throws {
        let s = try BridgeSettings(listen: "127.0.0.1:7700", siteRoot: "/www")
        #expect(s.ownOrigins == ["http://127.0.0.1:7700", "http://localhost:7700", "http://[::1]:7700"])
        let lan = try BridgeSettings(listen: "192.168.1.20:80", siteRoot: "/www")
        #expect(lan.ownOrigins == ["http://192.168.1.20:80"])
    }

    @Test func originPolicy() throws {
        let s = try BridgeSettings(listen: "127.0.0.1:7700", siteRoot: "/www", extraOrigins: ["HTTP://Kiosk.Local:3000"])
        let policy = s.originPolicy
        #expect(policy.allows("http://127.0.0.1:7700"))
        #expect(policy.allows("http://LOCALHOST:7700"))
        #expect(policy.allows("http://kiosk.local:3000"))
        #expect(!policy.allows("http://127.0.0.1:7701"))
        #expect(!policy.allows("http://evil.example"))
        #expect(!policy.allows("null"))
        #expect(policy.allows(nil), "a program's handshake carries no Origin")
        #expect(try BridgeSettings(listen: "127.0.0.1:1", siteRoot: "/", extraOrigins: ["*"]).originPolicy.allows("http://any"))
        #expect(try BridgeSettings(listen: "127.0.0.1:1", siteRoot: "/", extraOrigins: ["null"]).originPolicy.allows("null"))
    }

    @Test func badOriginsAndBounds_areRefusedWithTheOption() {
        for bad in ["kiosk.local", "http://kiosk.local/app", "ftp://x", "http://"] {
            #expect(throws: BridgeSettingsError.self, "\(bad)") {
                try BridgeSettings(siteRoot: "/", extraOrigins: [bad])
            }
        }
        #expect(throws: BridgeSettingsError.self) { try BridgeSettings(siteRoot: "/", maxConnections: 0) }
        #expect(throws: BridgeSettingsError.self) { try BridgeSettings(siteRoot: "/", maxMessageBytes: 100) }
    }
}
