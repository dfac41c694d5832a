import Foundation
import NIOCore
import NIOEmbedded
import NIOWebSocket
import SystemCalls
import Testing
import TestSupport

@testable import WebBridge

#if canImport(Glibc)
    import Glibc
#endif

/// Hardening round 3 of the bridge: its frame rules, deadlines, file limits, site files and the
/// peer's identity, each tested where it is decided.
@Suite struct BridgeHardeningTests {
    static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], rsv1: Bool = false, masked: Bool = true) -> WebSocketFrame {
        // A page's frame arrives masked: its data is the payload XOR the key.
        let key: [UInt8] = [1, 2, 3, 4]
        let data = masked ? payload.enumerated().map { $0.element ^ key[$0.offset % 4] } : payload
        return WebSocketFrame(
            fin: true, rsv1: rsv1, opcode: opcode, maskKey: masked ? WebSocketMaskingKey(key) : nil, data: ByteBuffer(bytes: data))
    }

    static func close(_ code: UInt16, _ reason: [UInt8] = []) -> WebSocketFrame {
        frame(.connectionClose, [UInt8(code >> 8), UInt8(code & 0xFF)] + reason)
    }

    /// RSV bits, reserved opcodes, unmasked frames and the close codes no endpoint may send (0,
    /// 1005 were echoed back) fail the connection with 1002; a close reason that is not UTF-8
    /// with 1007.
    @Test func framesBreakingRFC6455_areFailed() {
        #expect(FrameRules.check(Self.frame(.text, Array("{}".utf8))) == nil)
        #expect(FrameRules.check(Self.frame(.text, Array("{}".utf8), rsv1: true)) != nil)
        #expect(FrameRules.check(Self.frame(.text, Array("{}".utf8), masked: false)) != nil)
        #expect(FrameRules.check(Self.frame(WebSocketOpcode(encodedWebSocketOpcode: 3)!, [])) != nil)
        #expect(FrameRules.check(Self.frame(WebSocketOpcode(encodedWebSocketOpcode: 0xB)!, [])) != nil)
        for bad: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000] {
            #expect(FrameRules.check(Self.close(bad)) != nil, "\(bad)")
        }
        for good: UInt16 in [1000, 1001, 1003, 1007, 1011, 1014, 3000, 4999] {
            #expect(FrameRules.check(Self.close(good, Array("bye".utf8))) == nil, "\(good)")
        }
        #expect(FrameRules.check(Self.frame(.connectionClose, [])) == nil)
        #expect(FrameRules.check(Self.frame(.connectionClose, [3])) == .protocolError("a close frame of one byte"))
        #expect(FrameRules.check(Self.close(1000, [0xFF])) == .notUTF8)
    }

    /// Through the pipeline: the violation becomes one close frame with its code.
    @Test func aViolation_getsItsCloseFrame() throws {
        for (f, code) in [(Self.close(1005), WebSocketErrorCode.protocolError), (Self.frame(.text, [0xC3]), .dataInconsistentWithMessage)] {
            let channel = EmbeddedChannel(handlers: [FrameRules(), ProtocolCloser()])
            try channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
            try channel.writeInbound(f)
            let close = try #require(try channel.readOutbound(as: WebSocketFrame.self))
            var data = close.data
            #expect(close.opcode == .connectionClose)
            #expect(data.readWebSocketErrorCode() == code)
            #expect(try channel.readInbound(as: WebSocketFrame.self) == nil)
        }
    }

    /// A connection that sends half a request, or nothing, is closed at its deadline; one that
    /// was answered waits for the next request until the idle limit.
    @Test func plainHTTP_hasRequestAndIdleDeadlines() throws {
        let channel = EmbeddedChannel(handler: HTTPDeadline(request: .seconds(10), idle: .seconds(30)))
        try channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: x"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        try channel.writeOutbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r\n"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(29))
        #expect(channel.isActive, "answered: the idle limit, not the request's, counts now")
        try channel.writeInbound(ByteBuffer(string: "G"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(!channel.isActive, "a request that never came whole")
        let silent = EmbeddedChannel(handler: HTTPDeadline(request: .seconds(10), idle: .seconds(30)))
        try silent.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        silent.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(!silent.isActive, "a connection that says nothing")
    }

    /// The caps fit the open-file limit, so accept(2) never meets EMFILE (it spun a core there).
    @Test func caps_fitTheOpenFileLimit() throws {
        let s = try BridgeSettings(siteRoot: "/", maxConnections: 16)
        let roomy = try #require(s.fitting(fdLimit: 4096))
        #expect(roomy.lowered == nil && roomy.settings == s)
        let tight = try #require(s.fitting(fdLimit: 64))
        let t = tight.settings
        #expect(tight.lowered != nil)
        #expect(2 * t.maxConnections + t.maxHTTPConnections + BridgeSettings.reservedFDs <= 64)
        #expect(t.maxConnections >= 1 && t.maxHTTPConnections >= 4 && t.maxConnectionsPerUser <= t.maxConnections)
        #expect(s.fitting(fdLimit: 36) == nil)
    }

    /// A link in the site folder, to a file or to a folder, serves nothing (/etc/passwd once).
    @Test func linksInTheSiteFolder_areNotFollowed() throws {
        let root = Scratch.directory("www")
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        try "ok".write(toFile: root + "/sub/page.html", atomically: true, encoding: .utf8)
        symlink("/etc/passwd", root + "/passwd.txt")
        symlink("/etc", root + "/etc")
        symlink(root + "/sub/page.html", root + "/inner.html")
        let files = StaticFiles(root: root)
        #expect(files.read(try #require(files.resolve("/sub/page.html")).file) == Array("ok".utf8))
        #expect(files.read(try #require(files.resolve("/passwd.txt")).file) == nil)
        #expect(files.read(try #require(files.resolve("/etc/hostname.txt")).file) == nil)
        #expect(files.read(try #require(files.resolve("/inner.html")).file) == nil, "no link is followed, even one inside")
        #expect(files.read("/etc/passwd") == nil)
    }

    /// A message the daemon would refuse as too long gets line_too_long from the bridge (it once
    /// made the daemon drop the page's link).
    @Test func aMessageOverTheDaemonsLineLimit_isAnsweredByTheBridge() {
        let gate = RequestGate(readOnly: false)
        let long = Array(#"{"op":"ping","id":""#.utf8) + [UInt8](repeating: 0x61, count: 2000) + Array(#""}"#.utf8)
        guard case .answer(let line) = gate.decide(long, lineLimit: 1024) else {
            Issue.record("forwarded")
            return
        }
        #expect(String(decoding: line, as: UTF8.self).contains("line_too_long"))
        guard case .forward = gate.decide(long, lineLimit: 65536) else {
            Issue.record("refused under the limit")
            return
        }
    }

    /// The daemon's hello names its line limit; the introduction's answer is told from any line.
    @Test func hello_andTheIntroductionsAnswer_areRead() {
        #expect(PageSession.lineLimit(hello: ByteBuffer(string: #"{"type":"hello","protocol":1,"max_line_bytes":4096}"#)) == 4096)
        #expect(PageSession.lineLimit(hello: ByteBuffer(string: #"{"type":"gesture"}"#)) == nil)
        #expect(PageSession.introductionAnswer(ByteBuffer(string: #"{"type":"gesture","id":3}"#)) == nil)
        #expect(PageSession.introductionAnswer(ByteBuffer(string: #"{"type":"reply","id":"touchgestured-web","ok":true,"op":"page","uid":7}"#)) == .some(nil))
        let refused = PageSession.introductionAnswer(ByteBuffer(string: #"{"type":"error","id":"touchgestured-web","code":"too_many_clients","message":"full"}"#))
        #expect(refused == .some("full"))
        let intro = String(decoding: PageSession.introduction(page: TCPEndpoint("127.0.0.1:5000")!, bridge: TCPEndpoint("[::1]:7700")!), as: UTF8.self)
        #expect(intro == #"{"op":"page","id":"touchgestured-web","page":"127.0.0.1:5000","bridge":"[::1]:7700"}"# + "\n")
    }
}
