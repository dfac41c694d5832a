import GestureProtocol
import Testing

@testable import WebBridge

/// What reaches the daemon from a page, and what the bridge answers itself.
@Suite struct RequestGateTests {
    let gate = RequestGate(readOnly: false)

    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    func answer(_ message: String, _ gate: RequestGate? = nil) -> String? {
        if case .answer(let line) = (gate ?? self.gate).decide(Array(message.utf8)) { return text(line) }
        return nil
    }

    @Test func pageOps_goToTheDaemonAsWritten() {
        for message in [
            #"{"op":"ping","id":1}"#, #"{"op":"subscribe","gestures":["tap"]}"#, #"{"op":"clear_regions"}"#,
            #"{"op":"set_regions","id":"r","regions":[{"name":"b","rect":[0,0,10,10],"gesture":[{"kind":"tap"}]}]}"#,
            #"{"op":"list_devices"}"#, #"{"op":"get_config"}"#,
        ] {
            #expect(gate.decide(Array(message.utf8)) == .forward(Array((message + "\n").utf8)))
        }
    }

    @Test func anExcludedRegion_isNeverAPagesToAsk() {
        let message = #"{"op":"set_regions","id":2,"regions":[{"name":"k","rect":[0,780,1920,300],"exclude":true}]}"#
        #expect(answer(message)?.contains(#""code":"forbidden""#) == true)
        #expect(answer(message.replacingOccurrences(of: "true", with: "false"))?.contains("forbidden") == true, "the key at all")
    }

    @Test func statsAndUnknownOps_areAnsweredByTheBridge() {
        #expect(answer(#"{"op":"stats","id":7}"#) == #"{"type":"error","id":7,"ok":false,"code":"forbidden","message":"op 'stats' is not served to web pages"}"# + "\n")
        // The ops a page may send, not the daemon's list (stats, reload, page among them).
        #expect(
            answer(#"{"op":"reboot","id":"x"}"#)
                == #"{"type":"error","id":"x","ok":false,"code":"unknown_op","message":"unknown op 'reboot' (a web page's: ping, subscribe, set_regions, clear_regions, list_devices, get_config, calibrate)"}"# + "\n")
        #expect(answer(#"{"op":"re (boot"}"#)?.contains("unknown op 're (boot' (a web page's: ping,") == true, "\(answer(#"{"op":"re (boot"}"#) ?? "")")
    }

    @Test func malformedMessages_getTheDaemonsErrorCodes() {
        #expect(answer("{nope")?.contains(#""code":"parse_error""#) == true)
        #expect(answer("[1]")?.contains(#""code":"not_an_object""#) == true)
        #expect(answer(#"{"id":3}"#)?.contains(#""id":3"#) == true)
        #expect(answer("   ")?.contains(#""code":"missing_op""#) == true)
        #expect(answer("{\"op\":\"ping\"}\n{\"op\":\"stats\"}")?.contains(#""code":"invalid_field""#) == true,
                "a newline would smuggle a second request past the gate")
        #expect(gate.decide([0xFF, 0xFE]) == .answer(RequestGate.errorLine(nil, .invalidUTF8, "the line is not valid UTF-8")))
    }

    @Test func readOnly_refusesRegions_andSavingACalibration() {
        let ro = RequestGate(readOnly: true)
        #expect(answer(#"{"op":"clear_regions","id":2}"#, ro)?.contains(#""code":"forbidden""#) == true)
        let points = #"[{"u":0.1,"v":0.1,"x":0,"y":0},{"u":0.9,"v":0.1,"x":1920,"y":0},{"u":0.9,"v":0.9,"x":1920,"y":1080}]"#
        let fit = #"{"op":"calibrate","id":3,"device":1,"points":\#(points)}"#
        #expect(ro.decide(Array(fit.utf8)) == .forward(Array((fit + "\n").utf8)), "a fit changes nothing: served")
        let save = #"{"op":"calibrate","id":4,"device":1,"save":true,"points":\#(points)}"#
        #expect(answer(save, ro)?.contains(#""code":"forbidden""#) == true)
        #expect(gate.decide(Array(save.utf8)) == .forward(Array((save + "\n").utf8)))
        #expect(ro.decide(Array(#"{"op":"ping"}"#.utf8)) == .forward(Array("{\"op\":\"ping\"}\n".utf8)))
    }

    @Test func unavailable_keepsTheRequestsID() {
        #expect(text(gate.unavailable(Array(#"{"op":"ping","id":"p1"}"#.utf8))).hasPrefix(#"{"type":"error","id":"p1","ok":false,"code":"daemon_unavailable""#))
        #expect(text(RequestGate.daemonLine(up: false)) == "{\"type\":\"bridge\",\"daemon\":\"down\"}\n")
    }
}
