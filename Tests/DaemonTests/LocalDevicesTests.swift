import Foundation
import Testing

/// `touchgesturectl devices --local --config FILE`: the configuration read as the daemon reads
/// it, or refused with its file, line and reason. (The nodes it lists need /dev/input: the
/// sizes it prints are `Configuration.geometry(of:)`'s, tested in DeviceGeometryTests.)
@Suite(.waitsOnProcesses) struct LocalDevicesTests {
    @Test func aConfigurationThatDoesNotLoad_isRefusedWithItsLine() throws {
        let dir = scratch()
        try "[daemon]\nbogus = 1\n".write(toFile: dir + "/bad.toml", atomically: true, encoding: .utf8)
        let (status, out) = try runProgram(Root.ctl, ["devices", "--local", "--config", dir + "/bad.toml"])
        #expect(status != 0 && out.contains("bad.toml:2:") && out.contains("bogus"), "\(out)")
    }

    @Test func aMissingConfiguration_orOneWithoutLocal_isRefused() throws {
        let (missing, out) = try runProgram(Root.ctl, ["devices", "--local", "--config", "/nonexistent/touchgestured.toml"])
        #expect(missing != 0 && out.contains("/nonexistent/touchgestured.toml"), "\(out)")
        let (remote, said) = try runProgram(Root.ctl, ["devices", "--config", "/nonexistent/touchgestured.toml"])
        #expect(remote != 0 && said.contains("only with --local"), "\(said)")
        let (state, stated) = try runProgram(Root.ctl, ["devices", "--state-dir", "/tmp"])
        #expect(state != 0 && stated.contains("only with --local"), "\(stated)")
    }

    /// It says what it read: the file and its drop-ins, and the calibration a client saved in
    /// the state folder when one is there and loads (as the service reads it).
    @Test func aGoodConfiguration_isRead_andSaysWhatItRead() throws {
        let dir = scratch()
        try "[device]\nwidth_mm = 300\nheight_mm = 200\n".write(toFile: dir + "/ok.toml", atomically: true, encoding: .utf8)
        let (status, out) = try runProgram(Root.ctl, ["devices", "--local", "--config", dir + "/ok.toml", "--state-dir", dir + "/none"])
        #expect(status == 0 && out.contains("configuration: \(dir)/ok.toml and its drop-ins\n"), "\(out)")
        try FileManager.default.createDirectory(atPath: dir + "/state", withIntermediateDirectories: true)
        try "[[panel]]\nmatch = \"/dev/input/event9\"\ncalibration = [1, 0, 0, 0, 1, 0]\n".write(toFile: dir + "/state/calibration.toml", atomically: true, encoding: .utf8)
        let (saved, said) = try runProgram(Root.ctl, ["devices", "--local", "--config", dir + "/ok.toml", "--state-dir", dir + "/state"])
        #expect(saved == 0 && said.contains("its drop-ins and \(dir)/state/calibration.toml"), "\(said)")
        // The service's own paths (the built-in configuration where /etc has none).
        let (plain, read) = try runProgram(Root.ctl, ["devices", "--local"])
        #expect(plain == 0 && read.hasPrefix("configuration: "), "\(read)")
    }
}
