/// touchgestured's version: the daemon's `hello`, every binary's `--version`, and the Debian
/// package's (debian/changelog; a test keeps the two equal).
public let packageVersion = "0.1.0"
