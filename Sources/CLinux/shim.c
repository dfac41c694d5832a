// Headers only (include/CLinux.h); SwiftPM wants one source file in a C target.
