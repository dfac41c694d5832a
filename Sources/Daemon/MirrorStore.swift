import Logging
import SystemCalls
import TouchFrames
import TouchInput
import TouchMirror

/// The mirrors systemd keeps for the daemon (its file descriptor store: FileDescriptorStoreMax=
/// in touchgestured.service). Each mirror's /dev/uinput descriptor is stored as it is made,
/// named `mirror-FINGERPRINT-PLACE`, so a daemon that starts again (after a crash, a
/// `systemctl restart`, an upgrade) takes the same device back, every touch lifted first: a
/// reader that opened it (Qt, SDL, LVGL, a compositor) keeps its descriptor and reads on. A
/// stop (`systemctl stop`) closes systemd's copies, and the kernel then destroys the mirrors.
/// Outside systemd nothing is kept: a mirror goes with the process (GUIDE.md, "Failsafe").
final class MirrorStore {
    static let prefix = "mirror-"
    private let systemd: Systemd
    private let log: Logger
    /// The mirrors an earlier process stored, by name, not yet taken back (two under one name
    /// when a removal was lost: the first that is a live mirror is taken, the rest destroyed).
    private var passed: [String: [Int32]] = [:]
    /// Each mirror in the store now, by its place: its name and its device.
    private var stored: [String: (name: String, screen: VirtualTouchscreen)] = [:]

    /// `passed`: what systemd passed at start whose names are a stored mirror's (`isMirror`).
    init(passed: [(fd: Int32, name: String)], systemd: Systemd, log: Logger) {
        self.systemd = systemd
        self.log = log
        // Checked now, before the daemon opens a descriptor of its own: a number that is not
        // open (a count that promised more) is forgotten, so no later close takes one of the
        // daemon's; one open on anything but /dev/uinput is closed.
        for p in passed {
            switch UInputDevice.isUinput(p.fd) {
            case true?:
                _ = Posix.setCloseOnExec(p.fd)  // passed across exec without it: no child inherits a mirror
                self.passed[p.name, default: []].append(p.fd)
            case false?:
                Posix.close(p.fd)
                log.warning("systemd passed \(p.name), which is not /dev/uinput: closed")
            case nil:
                log.warning("systemd named \(p.name) (fd \(p.fd)), which is not open: ignored")
            }
        }
    }

    /// A name systemd passed belongs to a stored mirror (not a socket).
    static func isMirror(_ name: String) -> Bool { name.hasPrefix(prefix) }

    /// The name a mirror is stored under: what it is made of, then where (at most 7 + 17 + 120
    /// characters of `[A-Za-z0-9._-]`: an FDNAME has no ':' and at most 255).
    static func name(place: String, fingerprint: String) -> String { prefix + fingerprint + "-" + place }

    /// The place a stored name is for ("" for a name not of `name(place:fingerprint:)`'s form).
    static func place(of name: String) -> String {
        guard isMirror(name) else { return "" }
        let rest = name.dropFirst(prefix.count)
        guard rest.count > 17, rest[rest.index(rest.startIndex, offsetBy: 16)] == "-" else { return "" }
        return String(rest.dropFirst(17))
    }

    /// The mirror of the panel at `place`, made from `described`: the one kept for it when it is
    /// the same device (its fingerprint), else a new one, stored. `adopted`: it was kept.
    func mirror(_ described: DeviceDescription, place: String, cancel: MirrorCancel) throws(EvdevError) -> (screen: VirtualTouchscreen, adopted: Bool) {
        let name = Self.name(place: place, fingerprint: VirtualTouchscreen.fingerprint(of: described, place: place))
        for (n, fds) in passed where n != name && Self.place(of: n) == place {
            discard(n, fds, because: "its panel now makes another (a new panel there, or another configuration)")
        }
        if let fds = passed.removeValue(forKey: name) {
            var taken: VirtualTouchscreen?
            for fd in fds {
                if let kept = taken {
                    // A twin left by a lost removal: destroyed, unless it is the same device.
                    if let name = kept.sysname, UInputDevice.sysname(fd) == name { Posix.close(fd) } else { _ = try? UInputDevice(adopting: fd) }
                    continue
                }
                do {
                    taken = try VirtualTouchscreen(adopting: fd, described: described, cancel: cancel)
                } catch {
                    // (the failed init destroyed the device and closed the descriptor)
                    log.warning("a kept virtual touchscreen of \(place) cannot be taken back: \(error)")
                }
            }
            if let screen = taken {
                if fds.count > 1 { restore(screen, name: name, place: place) } else { stored[place] = (name, screen) }
                return (screen, true)
            }
            remove(name)
        }
        let screen = try VirtualTouchscreen(described, place: place)
        store(screen, name: name, place: place)
        return (screen, false)
    }

    /// `screen` alone under `name` (its twins' copies removed from the store with it).
    private func restore(_ screen: VirtualTouchscreen, name: String, place: String) {
        remove(name)
        store(screen, name: name, place: place)
    }

    private func store(_ screen: VirtualTouchscreen, name: String, place: String) {
        guard systemd.hasFileDescriptorStore else { return }
        if systemd.notify("FDSTORE=1\nFDNAME=\(name)", passing: [screen.fd]) {
            stored[place] = (name, screen)
        } else {
            log.warning("systemd did not take the virtual touchscreen of \(place): it goes if the daemon restarts")
        }
    }

    /// The panel at `place` went (or its device could not be added): its mirror leaves the
    /// store, so systemd's copy does not keep it.
    func removed(place: String) {
        guard let s = stored.removeValue(forKey: place) else { return }
        remove(s.name)
    }

    /// After the first scan: a kept mirror no panel took back (its panel is gone, or no longer
    /// passed through) is destroyed and leaves the store.
    func dropUnclaimed() {
        for (n, fds) in passed { discard(n, fds, because: "no panel took it back") }
        passed.removeAll()
    }

    /// The daemon stops: every stored mirror stays for the next start (systemd's copy keeps
    /// it; a stop closes that copy). Its touches were lifted before.
    func keepAll() {
        for s in stored.values { s.screen.keepsDevice = true }
    }

    private func discard(_ name: String, _ fds: [Int32], because why: String) {
        passed[name] = nil
        for fd in fds { _ = try? UInputDevice(adopting: fd) }  // destroyed and closed as it goes
        remove(name)
        log.info("a kept virtual touchscreen (\(Self.place(of: name))) was removed: \(why)")
    }

    private func remove(_ name: String) {
        if !systemd.notify("FDSTOREREMOVE=1\nFDNAME=\(name)") {
            log.warning("cannot reach systemd's notify socket (FDSTOREREMOVE=1 for \(name))")
        }
    }
}
