// swift-tools-version:6.0
import PackageDescription

let linuxOnly = TargetDependencyCondition.when(platforms: [.linux])

let package = Package(
  name: "mn",
  products: [
    .executable(name: "mn", targets: ["mn"])
  ],
  targets: [
    .systemLibrary(
      name: "CArchive", pkgConfig: "libarchive",
      providers: [.apt(["libarchive-dev"]), .brew(["libarchive"])]),
    .systemLibrary(
      name: "CZlib", pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"])]),
    .systemLibrary(
      name: "CCrypto", pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]),
    .target(
      name: "Core",
      dependencies: ["CArchive", "CZlib", .target(name: "CCrypto", condition: linuxOnly)],
      exclude: ["Archive/README.md", "Automerge/README.md"],
      // The codec decodes and verifies hundreds of thousands of changes; unoptimised it is
      // 10-20x slower, which makes the conformance suite take many minutes in debug builds.
      swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
    .target(name: "Commands", dependencies: ["Core"]),
    .executableTarget(name: "mn", dependencies: ["Commands"]),
    .testTarget(name: "CoreTests", dependencies: ["Core"], exclude: ["Fixtures"]),
    .testTarget(name: "CommandsTests", dependencies: ["Commands"], exclude: ["Snapshots"]),
    .testTarget(name: "EndToEndTests", dependencies: ["mn", "Core"]),
    .testTarget(name: "ConformanceTests", dependencies: ["Core"]),
  ],
  swiftLanguageModes: [.v6]
)
