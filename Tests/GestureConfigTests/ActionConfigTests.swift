import Foundation
import GestureEngine
import TouchFrames
import Testing

@testable import GestureConfig

/// `[[action]]`: what is read, and what is refused with its file and line.
@Suite struct ActionConfigTests {
    static let kernelHeader = "/usr/include/linux/input-event-codes.h"

    @Test func actions_areRead_withTheirDefaults() throws {
        let c = try ConfigLoader.parse(
            """
            [[action]]
            name = "back"
            gesture = "edge_swipe"
            edge = "left"
            keys = "KEY_LEFTALT+KEY_LEFT"

            [[action]]
            name = "admin"
            gesture = "pan"
            fingers = 3
            exec = ["/bin/true", "--flag"]
            cooldown = 5000
            timeout = 2500
            """, file: "k.toml")
        #expect(c.actions.count == 2)
        let back = c.actions[0], admin = c.actions[1]
        #expect(back.name == "back" && back.edge == .left && back.phase == .began && back.line == 1)
        #expect(back.effect == .keys([56, 105], names: ["KEY_LEFTALT", "KEY_LEFT"]))
        #expect(back.cooldown == .zero && back.timeout == .seconds(10))
        #expect(admin.fingers == 3 && admin.phase == .began && admin.effect == .exec(["/bin/true", "--flag"]))
        #expect(admin.cooldown == .milliseconds(5000) && admin.timeout == .milliseconds(2500) && admin.line == 7)
    }

    @Test func tapAndSwipe_fireAtRecognized_byDefault() throws {
        let c = try ConfigLoader.parse(
            "[[action]]\nname = \"a\"\ngesture = \"double_tap\"\nkeys = \"KEY_F5\"\n[[action]]\nname = \"b\"\ngesture = \"swipe\"\ndirection = \"down\"\nkeys = \"KEY_BACK\"\n",
            file: "k.toml")
        #expect(c.actions.map(\.phase) == [.recognized, .recognized])
        #expect(c.actions[1].direction == .down)
    }

    @Test(arguments: [
        ("keys = \"KEY_LEFTALT+KEY_NOPE\"", 4, "unknown key 'KEY_NOPE'"),
        ("keys = \"\"", 4, "unknown key ''"),
        ("keys = \"KEY_A+KEY_A\"", 4, "'KEY_A' is twice"),
        ("exec = []", 4, "'exec' is empty"),
        ("exec = [\"true\"]", 4, "'true' is a relative path"),
        ("exec = [\"/nonexistent/program\"]", 4, "'/nonexistent/program' is not an executable file"),
        // A directory passes access(X_OK); a NUL would cut the argument at spawn.
        ("exec = [\"/tmp\"]", 4, "'/tmp' is not a regular file"),
        ("exec = [\"/bin/echo\", \"a\\u0000b\"]", 4, "an argument holds a NUL byte"),
        ("keys = \"KEY_A\"\nexec = [\"/bin/true\"]", 1, "exactly one of 'keys'"),
        ("", 1, "exactly one of 'keys'"),
        ("keys = \"KEY_A\"\ntimeout = 100", 5, "'timeout' is for exec actions"),
        ("keys = \"KEY_A\"\nphase = \"began\"", 5, "a tap, a swipe or a stroke fires at \"recognized\""),
        ("keys = \"KEY_A\"\ndirection = \"up\"", 5, "'direction' is for swipes"),
        ("keys = \"KEY_A\"\nflavour = 1", 5, "unknown key 'flavour'"),
        ("keys = \"KEY_A\"\nfingers = 4", 5, "no 'tap' gesture takes 4 fingers (screen/tap: 1)"),
    ])
    func badActions_areRefusedWithTheirLine(body: String, line: Int, reason: String) {
        let text = "[[action]]\nname = \"a\"\ngesture = \"tap\"\n" + body + "\n"
        #expect(refused(text, line: line, reason: reason))
    }

    @Test func anActionBoundToNoGesture_isRefused() {
        #expect(refused("[[action]]\nname = \"a\"\ngesture = \"wiggle\"\nkeys = \"KEY_A\"\n", line: 3, reason: "no gesture 'wiggle'"))
        #expect(
            refused(
                "[[region]]\nname = \"list\"\n[[region.gesture]]\nkind = \"pan\"\n[[action]]\nname = \"a\"\ngesture = \"tap\"\nregion = \"list\"\nkeys = \"KEY_A\"\n",
                line: 7, reason: "no gesture 'tap' in region 'list'"))
        #expect(refused("[[action]]\nname = \"a\"\ngesture = \"tap\"\nregion = \"nowhere\"\nkeys = \"KEY_A\"\n", line: 4, reason: "no region 'nowhere'"))
        #expect(
            refused(
                "[[action]]\nname = \"a\"\ngesture = \"pan\"\nphase = \"recognized\"\nkeys = \"KEY_A\"\n", line: 4,
                reason: "'phase' must be \"began\" or \"ended\""))
    }

    /// A direction or edge no bound gesture reports would never fire: refused, as fingers are.
    @Test func aDirectionOrEdgeNoGestureReports_isRefused() throws {
        let action = "[[action]]\nname = \"a\"\ngesture = \"swipe\"\ndirection = \"up_left\"\nkeys = \"KEY_A\"\n"
        #expect(refused(action, line: 4, reason: "no 'swipe' swipe reports 'up_left' (screen/swipe: right, down, left, up); a diagonal needs sectors = 8"))
        let eight = "[[region]]\nname = \"r\"\n[[region.gesture]]\nkind = \"swipe\"\nsectors = 8\n"
        #expect(try ConfigLoader.parse(eight + action, file: "k.toml").actions.first?.direction == .upLeft)
        let only = "[[region]]\nname = \"r\"\n[[region.gesture]]\nkind = \"swipe\"\ndirections = [\"left\"]\n"
        #expect(refused(only + action.replacingOccurrences(of: "up_left", with: "right"), line: 9, reason: "no 'swipe' swipe reports 'right' (r/swipe: left)"))
        let edges = "[[region]]\nname = \"r\"\n[[region.gesture]]\nkind = \"edge_swipe\"\nedges = [\"right\"]\n"
        let edgeAction = "[[action]]\nname = \"a\"\ngesture = \"edge_swipe\"\nedge = \"left\"\nkeys = \"KEY_A\"\n"
        #expect(refused(edges + edgeAction, line: 9, reason: "no 'edge_swipe' edge swipe starts from the left edge (r/edge_swipe: right)"))
        #expect(try ConfigLoader.parse(edges + edgeAction.replacingOccurrences(of: "left", with: "right"), file: "k.toml").actions.count == 1)
    }

    @Test func aProgramOthersCouldReplace_isRefused() throws {
        // Writable by anyone, or in a directory anyone may write to without the sticky bit: the
        // daemon would run whatever someone put there.
        let dir = "/tmp/touchgestured-actions-\(getpid())"
        mkdir(dir, 0o755)
        defer { _ = try? FileManager.default.removeItem(atPath: dir) }
        let program = dir + "/run"
        try "#!/bin/sh\n".write(toFile: program, atomically: true, encoding: .utf8)
        chmod(program, 0o777)
        let text = "[[action]]\nname = \"a\"\ngesture = \"tap\"\nexec = [\"\(program)\"]\n"
        #expect(refused(text, line: 4, reason: "is writable by anyone"))
        chmod(program, 0o755)
        chmod(dir, 0o777)
        #expect(refused(text, line: 4, reason: "which anyone may write to"))
        chmod(dir, 0o755)
        #expect(throws: Never.self) { try ConfigLoader.parse(text, file: "k.toml") }
        // A link from a safe place to a program in a directory anyone may write to: what it
        // leads to could be replaced all the same.
        let open = dir + "/open", link = dir + "/link"
        mkdir(open, 0o777)
        chmod(open, 0o777)
        try "#!/bin/sh\n".write(toFile: open + "/run", atomically: true, encoding: .utf8)
        chmod(open + "/run", 0o755)
        symlink(open + "/run", link)
        let linked = text.replacingOccurrences(of: program, with: link)
        #expect(refused(linked, line: 4, reason: "leads to '\(open)/run', which is in '\(open)', which anyone may write to"))
        chmod(open, 0o1777)  // the sticky bit: only the file's owner may replace it
        #expect(throws: Never.self) { try ConfigLoader.parse(linked, file: "k.toml") }
        // A link to a link in such a folder, which leads back to a safe program: the middle one
        // could be replaced.
        chmod(open, 0o777)
        let hop = dir + "/hop"
        symlink(open + "/link2", hop)
        symlink(program, open + "/link2")
        let twice = text.replacingOccurrences(of: program, with: hop)
        #expect(refused(twice, line: 4, reason: "leads through '\(open)/link2', which is in '\(open)', which anyone may write to"))
        // A folder reached through a link in such a folder: the same.
        let folderLink = dir + "/folder"
        symlink(open + "/dir2", folderLink)
        symlink(dir, open + "/dir2")
        let throughFolder = text.replacingOccurrences(of: program, with: folderLink + "/run")
        #expect(refused(throughFolder, line: 4, reason: "leads through '\(open)/dir2', which is in '\(open)', which anyone may write to"))
    }

    /// check-config and the log show an argv as a shell would read it back: a word with a space,
    /// an empty one and a quote are told apart.
    @Test func anArgv_isShownQuoted() {
        #expect(Action.quoted(["/usr/bin/notify-send", "two words", "", "it's", "--x=1,2"]) == #"/usr/bin/notify-send 'two words' '' 'it'\''s' --x=1,2"#)
        #expect(Action.quoted(["/bin/echo", "a\nforged line", "b\u{1}", "c\u{9B}", "d\u{202E}"]) == #"/bin/echo $'a\nforged line' $'b\x01' $'c\x9b' $'d\u202e'"#)
    }

    @Test func twoActionsWithOneName_areRefused() {
        let one = "[[action]]\nname = \"a\"\ngesture = \"tap\"\nkeys = \"KEY_A\"\n"
        #expect(refused(one + one, line: 6, reason: "two actions are named 'a'"))
    }

    @Test(.enabled(if: readFile(Self.kernelHeader) != nil, "linux-libc-dev's input-event-codes.h is not installed"))
    func keyNames_matchTheKernelHeader() throws {
        let header = try #require(readFile(Self.kernelHeader))
        var seen = 0
        for line in header.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count >= 3, parts[0] == "#define", parts[1].hasPrefix("KEY_"),
                let code = parts[2].hasPrefix("0x") ? UInt16(parts[2].dropFirst(2), radix: 16) : UInt16(parts[2])
            else { continue }
            let name = String(parts[1])
            guard !["KEY_MAX", "KEY_CNT", "KEY_RESERVED", "KEY_MIN_INTERESTING"].contains(name) else { continue }
            #expect(KeyCodes.byName[name] == code, "\(name)")
            seen += 1
        }
        #expect(seen > 400)
    }

    func refused(_ text: String, line: Int, reason: String) -> Bool {
        do {
            _ = try ConfigLoader.parse(text, file: "kiosk.toml")
            Issue.record("accepted: \(text)")
            return false
        } catch {
            let ok = error.file == "kiosk.toml" && error.line == line && error.reason.contains(reason)
            if !ok { Issue.record("got \(error)") }
            return ok
        }
    }
}
