import Foundation
import Testing

/// `touchgesturectl devices --local --config FILE`: the configuration read as the daemon reads
/// it, or refused with its file, line and reason. (The nodes it lists need /dev/input: the
/// sizes it prints are `Configuration.geometry(of:)`'s, tested in DeviceGeometryTests.)
@Suite struct LocalDevicesTests {
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
    }

    @Test func aGoodConfiguration_isRead() throws {
        let dir = scratch()
        try "[device]\nwidth_mm = 300\nheight_mm = 200\n".write(toFile: dir + "/ok.toml", atomically: true, encoding: .utf8)
        let (status, out) = try runProgram(Root.ctl, ["devices", "--local", "--config", dir + "/ok.toml"])
        #expect(status == 0, "\(out)")
    }
}
