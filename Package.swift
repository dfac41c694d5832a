// swift-tools-version:6.3
import PackageDescription

import class Foundation.ProcessInfo

// Dependencies point inward (see docs/ARCHITECTURE.md):
//   touchgesturectl -> Trace -> Pipeline -> GestureConfig, GestureProtocol, TouchFrames -> GestureEngine
// SystemCalls (every system call, over the CLinux shim) depends on nothing of ours; every module
// that calls the system uses it, and none of them calls libc or CLinux itself.
// GestureEngine and TouchFrames use the standard library only (TouchFrames builds on GestureEngine's types).
// PointerEmulation (a pointer region's gestures as mouse operations) builds on GestureEngine alone.
// WebBridge (touchgestured-web) builds on GestureProtocol and swift-nio; nothing of the daemon's links NIO.

let package = Package(
    name: "touchgestured",
    products: [
        .executable(name: "touchgestured", targets: ["touchgestured"]),
        .executable(name: "touchgesturectl", targets: ["touchgesturectl"]),
        .executable(name: "touchgestured-web", targets: ["touchgestured-web"]),
        .library(name: "GestureEngine", targets: ["GestureEngine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        // `Errno`, the typed errno of every SystemCallError (swift-nio builds it anyway).
        .package(url: "https://github.com/apple/swift-system", exact: "1.8.1"),
        // The WebSocket bridge only (touchgestured-web): HTTP/1.1, the upgrade and WebSocket frames.
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.2"),
    ],
    targets: [
        // libm for sqrt and friends: the engine imports no Glibc, and a program linking the
        // library product alone (no Foundation) would not link without it.
        .target(name: "GestureEngine", linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        .target(name: "TouchFrames", dependencies: ["GestureEngine"]),
        // A region's gestures as a mouse's clicks, drags and wheel (pure, as the engine is).
        .target(name: "PointerEmulation", dependencies: ["GestureEngine"]),
        .target(name: "GestureConfig", dependencies: ["GestureEngine", "TouchFrames", "PointerEmulation", "SystemCalls", "GestureProtocol"]),
        .target(name: "GestureProtocol", dependencies: ["GestureEngine"]),
        .target(
            name: "Pipeline", dependencies: ["GestureEngine", "TouchFrames", "GestureConfig", "GestureProtocol", "SystemCalls", "PointerEmulation"]),
        .target(name: "CLinux"),
        // Every system call: EINTR, EAGAIN and ENODEV handled in one place, one error type.
        .target(name: "SystemCalls", dependencies: ["CLinux", .product(name: "SystemPackage", package: "swift-system")]),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .target(
            name: "TouchInput", dependencies: ["CEvdev", "CUdev", "SystemCalls", "TouchFrames", "GestureEngine", "PointerEmulation"]),
        .target(name: "TouchMirror", dependencies: ["TouchInput", "TouchFrames", "SystemCalls"]),
        .target(name: "PointerDevice", dependencies: ["TouchInput", "TouchFrames", "PointerEmulation", "SystemCalls", "GestureEngine"]),
        .target(
            name: "Daemon",
            dependencies: [
                "SystemCalls", "Pipeline", "GestureConfig", "GestureProtocol", "GestureEngine", "TouchFrames", "TouchInput", "TouchMirror", "PointerDevice", "PointerEmulation",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "touchgestured",
            dependencies: ["Daemon", "GestureConfig", "SystemCalls", .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log")]
        ),
        .target(name: "Trace", dependencies: ["Pipeline", "GestureConfig", "TouchFrames", "GestureEngine"]),
        // `touchgesturectl doctor`: a panel's report rate, noise and lies, from its tracks.
        .target(name: "PanelDoctor", dependencies: ["TouchFrames", "GestureEngine", "GestureProtocol"]),
        .executableTarget(
            name: "touchgesturectl",
            dependencies: [
                "Pipeline", "GestureConfig", "TouchFrames", "GestureProtocol", "GestureEngine", "Trace", "SystemCalls", "TouchInput", "Daemon", "PanelDoctor", "PointerEmulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The WebSocket bridge (a separate executable, so the daemon links no NIO): pages as protocol clients.
        .target(
            name: "WebBridge",
            dependencies: [
                "GestureProtocol", "SystemCalls",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "touchgestured-web",
            dependencies: ["WebBridge", "GestureProtocol", "SystemCalls", .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log")]
        ),
        // Helpers the test targets share (a deterministic random generator).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "GestureEngineTests", dependencies: ["GestureEngine", "TestSupport"]),
        .testTarget(name: "GestureProtocolTests", dependencies: ["GestureProtocol"]),
        .testTarget(
            name: "WebBridgeTests",
            dependencies: [
                "WebBridge", "GestureProtocol", "SystemCalls", "TestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .testTarget(name: "PointerEmulationTests", dependencies: ["PointerEmulation", "GestureEngine"]),
        .testTarget(name: "TouchFramesTests", dependencies: ["TouchFrames", "GestureEngine"]),
        .testTarget(name: "GestureConfigTests", dependencies: ["GestureConfig", "GestureEngine", "TouchFrames", "PointerEmulation", "TestSupport"]),
        .testTarget(name: "TouchInputTests", dependencies: ["TouchInput", "TouchFrames", "GestureEngine"]),
        .testTarget(name: "TouchMirrorTests", dependencies: ["TouchMirror", "TouchInput", "TouchFrames", "GestureEngine"]),
        .testTarget(name: "PointerDeviceTests", dependencies: ["PointerDevice", "PointerEmulation", "TouchFrames", "GestureEngine"]),
        // The daemon's parts without its binary (the route with a clock the test drives, the
        // fan-out, the loop): seconds. DaemonTests start the binaries.
        .testTarget(
            name: "DaemonUnitTests",
            dependencies: [
                "Daemon", "Pipeline", "GestureConfig", "TouchFrames", "TouchInput", "TouchMirror", "PointerDevice", "GestureProtocol", "GestureEngine", "SystemCalls",
                "PointerEmulation", "TestSupport", "CLinux", .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Recordings"]
        ),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "Daemon", "Pipeline", "GestureConfig", "TouchFrames", "TouchInput", "GestureProtocol", "GestureEngine", "CLinux", "PointerEmulation", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "PanelDoctorTests", dependencies: ["PanelDoctor", "TouchFrames", "GestureEngine", "GestureProtocol", "GestureConfig", "TestSupport"]),
        .testTarget(
            name: "PipelineTests",
            dependencies: ["Pipeline", "GestureConfig", "TouchFrames", "GestureProtocol", "GestureEngine", "Trace", "TestSupport", "PointerEmulation"],
            exclude: ["Fixtures"]
        ),
    ]
)

// Benchmarks (ordo-one/benchmark) are built only on request, so CI's `swift test` does not pay
// for them: TOUCHGESTURED_BENCHMARKS=1 swift package benchmark (see docs/BENCHMARKS.md).
if ProcessInfo.processInfo.environment["TOUCHGESTURED_BENCHMARKS"] == "1" {
    package.dependencies.append(
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]))
    package.targets.append(
        .executableTarget(
            name: "EngineBenchmark",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "GestureEngine", "GestureConfig", "Pipeline", "TouchFrames",
                "SheetStroke",
            ],
            path: "Benchmarks/EngineBenchmark",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ))
    // The engine's instructions a frame under callgrind: scripts/count-engine.
    package.targets.append(
        .executableTarget(name: "EngineCount", dependencies: ["GestureEngine", "GestureConfig", "SheetStroke"], path: "Benchmarks/EngineCount"))
    // The input thread's path for a pass-through panel under callgrind: scripts/count-mirror.
    package.targets.append(
        .executableTarget(name: "MirrorCount", dependencies: ["GestureConfig", "SystemCalls", "TouchFrames", "TouchMirror"], path: "Benchmarks/MirrorCount"))
    // The scroll chaining workload both run.
    package.targets.append(.target(name: "SheetStroke", dependencies: ["GestureEngine"], path: "Benchmarks/SheetStroke"))
}

