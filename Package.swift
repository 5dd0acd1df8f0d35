// swift-tools-version:6.0
import PackageDescription

let linuxOnly = TargetDependencyCondition.when(platforms: [.linux])

// libarchive is loaded with dlopen at its first use (Sources/Archive/LibArchive.swift):
// linked, it and its dependencies would be loaded at every start of every verb. CArchive only
// gives the header, but a system library's pkg-config adds its `-larchive` to the link, and the
// linker keeps it. So no pkg-config on Linux, where the header is in /usr/include; Homebrew's
// libarchive is keg-only, so macOS still needs it for the header (and links the library).
#if os(Linux)
  let archivePkgConfig: String? = nil
  // zlib's and libdeflate's headers are in /usr/include too. Their pkg-config would put the
  // system library folder first in the release link's search path, ahead of
  // .build/static-libs (see mn below).
  let zlibPkgConfig: String? = nil
  let deflatePkgConfig: String? = nil
#else
  let archivePkgConfig: String? = "libarchive"
  let zlibPkgConfig: String? = "zlib"
  let deflatePkgConfig: String? = "libdeflate"
#endif

// Generic types such as `[DirectoryEntry]` get their metadata at run time. By default the
// compiler finds it by demangling the type's name on first use (20,000 to 130,000 instructions
// a type, with linear conformance searches); with this flag it calls the metadata accessor
// directly. `mn resolve`: 0.84 M -> 0.65 M instructions; `mn ls --json` on the bench folder
// saves 0.4 M. Set for every configuration, so that the tests run the code as it ships.
let directMetadata = SwiftSetting.unsafeFlags([
  "-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors",
])

// `make deb` links the system's shared zlib and libdeflate instead (MN_SYSTEM_LIBS=1): a Debian
// package takes its libraries from the system, so that their security updates reach it (lintian's
// embedded-library). Its folder of static libraries holds libstdc++ only; only the link differs.
let staticLibraries =
  Context.environment["MN_SYSTEM_LIBS"] == nil ? "static-libs" : "static-libs-deb"

let package = Package(
  name: "mn",
  // The oldest macOS the formula supports (`depends_on macos: :sonoma`); no API newer than
  // that may be used: scripts/check-availability.py, run by `make test`, checks it on Linux.
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "mn", targets: ["mn"])
  ],
  targets: [
    .systemLibrary(
      name: "CArchive", pkgConfig: archivePkgConfig,
      providers: [.apt(["libarchive-dev"]), .brew(["libarchive"])]),
    // zlib: the codec's inflater, as strict as the real Automerge's (Deflate.swift).
    .systemLibrary(
      name: "CZlib", pkgConfig: zlibPkgConfig,
      providers: [.apt(["zlib1g-dev"])]),
    // libdeflate: the codec's deflater (whole buffers, as columns are), and the tests' own
    // inflater (TestSupport), a second opinion on zlib's.
    .systemLibrary(
      name: "CDeflate", pkgConfig: deflatePkgConfig,
      providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]),
    // Header only (libssl-dev): libcrypto is opened with dlopen at the first hash, so that
    // start-up does not pay for loading it (AutomergeCodec/Crypto/LibCrypto.swift).
    .systemLibrary(name: "CCrypto"),
    // Header only: renameat2(2) with its flags, for the replace primitive (mn.md §6).
    .systemLibrary(name: "CSystem"),
    // The parts of the architecture, each a target (README, "Architecture"); dependencies run
    // downward only, so a part cannot reach what lies above it.
    // Platform: the operating system's interfaces (files, the lock, the replace primitive,
    // change notifications, running processes). No Automerge, no data-folder knowledge.
    // Threads: a worker thread, a monitor, and the ordered loop whose middle step runs on
    // threads; no other dependency, so that the codec can use it too.
    .target(name: "Threads", exclude: ["README.md"], swiftSettings: [directMetadata]),
    .target(
      name: "Platform", dependencies: [.target(name: "CSystem", condition: linuxOnly)],
      exclude: ["README.md"], swiftSettings: [directMetadata]),
    // AutomergeCodec: bytes in, values out (with the JSON and SHA-256 it needs); no file system.
    .target(
      name: "AutomergeCodec",
      dependencies: [
        "CZlib", "CDeflate", .target(name: "CCrypto", condition: linuxOnly), "Threads",
      ],
      exclude: ["README.md"],
      // The codec decodes and verifies hundreds of thousands of changes; unoptimised it is
      // 10-20x slower, which makes the conformance suite take many minutes in debug builds.
      swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug)), directMetadata]),
    // Storage: the data folder (layout, discovery, the scan, placeholders, conflict-copy names,
    // the sync provider).
    .target(
      name: "Storage", dependencies: ["Platform", "AutomergeCodec", "Threads"],
      exclude: ["README.md"], swiftSettings: [directMetadata]),
    // Archive: export, restore reading, backups; the only importer of libarchive.
    .target(
      name: "Archive", dependencies: ["CArchive", "Platform", "AutomergeCodec", "Threads"],
      exclude: ["README.md"], swiftSettings: [directMetadata]),
    // Operations: the workflows behind the writing verbs.
    .target(
      name: "Operations",
      dependencies: ["Platform", "AutomergeCodec", "Storage", "Archive", "Threads"],
      exclude: ["README.md"], swiftSettings: [directMetadata]),
    .target(
      name: "Commands",
      dependencies: ["Platform", "AutomergeCodec", "Storage", "Archive", "Operations", "Threads"],
      swiftSettings: [directMetadata]),
    // Start-up, in the release build on Linux (every shared library costs the dynamic loader
    // its symbol lookups and relocations at every start):
    // - `make setup` links `.build/static-libs/libstdc++.a` (the static Swift runtime needs
    //   libstdc++; loading the shared one cost 1.6 million instructions), `libz.a` and
    //   `libdeflate.a`; this search path, taken before the system ones, makes the link use
    //   them;
    // - libgcc's unwinder is linked in too (`-static-libgcc`, no libgcc_s.so);
    // - its 3,500 symbols are not exported (`--no-export-dynamic`, after swiftc's
    //   `-export-dynamic`): the runtime's start-up `dladdr` searched them one by one.
    // The executable stays position-independent (the toolchain's default), so that its
    // addresses are randomised: it parses files that anyone can put in a synced folder. That
    // costs the dynamic loader the relocation of its own pointers at every start (about 21,500,
    // which write ~60 pages); the README's benchmarks give the figure.
    .executableTarget(
      name: "mn", dependencies: ["Commands", "Platform"], swiftSettings: [directMetadata],
      linkerSettings: [
        .unsafeFlags(
          [
            "-Xclang-linker", "-L\(Context.packageDirectory)/.build/\(staticLibraries)",
            "-Xclang-linker", "-static-libgcc",
            "-Xlinker", "--no-export-dynamic",
          ],
          .when(platforms: [.linux], configuration: .release))
      ]),
    // Test-only, never linked into mn (mn.md §15): every line built on Darwin only is
    // type-checked here too. DarwinLibcShim (over the C header DarwinShimC) declares Darwin's
    // C library with Darwin's types, DarwinShim the Foundation calls; the check targets
    // compile the very files (links to them, Tests/DarwinCompileCheck/*) against them with
    // MN_DARWIN_SHIM: Platform's files all together, as one module (they use each other's
    // internal symbols), Storage's Darwin files against Storage's public interface.
    // Tests/DarwinLibcShim/README.md says why, DarwinRegionsTests that no region escapes.
    .target(name: "DarwinShim", path: "Tests/DarwinShim"),
    .target(name: "DarwinShimC", path: "Tests/DarwinShimC"),
    .target(
      name: "DarwinLibcShim", dependencies: ["DarwinShimC"], path: "Tests/DarwinLibcShim",
      exclude: ["README.md"]),
    .target(
      name: "DarwinCompileCheckPlatform", dependencies: ["DarwinLibcShim"],
      path: "Tests/DarwinCompileCheck/Platform", swiftSettings: [.define("MN_DARWIN_SHIM")]),
    .target(name: "DarwinCryptoShimC", path: "Tests/DarwinCryptoShimC"),
    .target(
      name: "DarwinCompileCheckCodec", dependencies: ["AutomergeCodec", "DarwinCryptoShimC"],
      path: "Tests/DarwinCompileCheck/AutomergeCodec", swiftSettings: [.define("MN_DARWIN_SHIM")]),
    .target(
      name: "DarwinCompileCheck",
      dependencies: ["Platform", "AutomergeCodec", "Storage", "DarwinShim"],
      path: "Tests/DarwinCompileCheck/Storage", swiftSettings: [.define("MN_DARWIN_SHIM")]),
    // One test target per library target, their folders mirroring its; TestSupport holds
    // what several of them share (scratch folders, fake file systems, the fixtures' finder).
    // The fixtures are Tests/Fixtures (see its README).
    .target(
      name: "TestSupport", dependencies: ["Platform", "AutomergeCodec", "Storage", "CDeflate"],
      path: "Tests/TestSupport"),
    .testTarget(name: "PlatformTests", dependencies: ["Platform", "TestSupport"]),
    .testTarget(
      name: "AutomergeCodecTests", dependencies: ["AutomergeCodec", "TestSupport", "Threads"]),
    .testTarget(name: "StorageTests", dependencies: ["Storage", "TestSupport"]),
    // Links libarchive to compare LibArchive's entries with the header's functions.
    .testTarget(
      name: "ArchiveTests", dependencies: ["Archive", "TestSupport", "Threads"],
      linkerSettings: [.linkedLibrary("archive")]),
    .testTarget(name: "OperationsTests", dependencies: ["Operations", "TestSupport"]),
    .testTarget(name: "CommandsTests", dependencies: ["Commands"], exclude: ["Snapshots"]),
    // sync-client.py is the live-sync tests' concurrent writer, real-sync.py the driver of a
    // real sync engine (RealSyncTests); each runs as its own process.
    .testTarget(
      name: "EndToEndTests", dependencies: ["mn", "Platform", "AutomergeCodec", "Storage"],
      exclude: ["Support/sync-client.py", "Support/real-sync.py"]),
    .testTarget(name: "ConformanceTests", dependencies: ["AutomergeCodec", "TestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
