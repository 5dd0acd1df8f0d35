import Foundation
import Testing

/// Every `#if canImport(Darwin)` region in `Sources` is either compiled on Linux by
/// `DarwinCompileCheck` (against `Tests/DarwinShim`, mn.md §15) or listed here as not yet
/// compiled, so that no new Darwin-only line escapes the check unseen (issue 25).
@Suite struct DarwinRegionsTests {
  /// Regions that no compiler has built here yet, per file: the debt that issue 25 (point 3)
  /// pays off by moving each into a `Darwin*.swift` file built under
  /// `canImport(Darwin) || MN_DARWIN_SHIM`. The count must match exactly: a new region fails,
  /// and so does one moved into the check while still listed.
  static let notYetCompiled: [String: Int] = [:]

  /// One `#if`/`#elseif` whose branch is Darwin's (`canImport(Darwin)`, or the `#else` of
  /// `!canImport(Darwin)`).
  struct Region: Hashable {
    var file: String
    var line: Int
    var compiled: Bool
  }

  /// The sources that the check targets compile: their links into `Sources`, at any depth
  /// of `Tests/DarwinCompileCheck` (one folder per check target).
  static func compiledFiles() throws -> Set<String> {
    let root = TestSupport.packageRoot
    let folder = root.appendingPathComponent("Tests/DarwinCompileCheck")
    var files: Set<String> = []
    let enumerator = FileManager.default.enumerator(atPath: folder.path)
    while let name = enumerator?.nextObject() as? String {
      let link = folder.appendingPathComponent(name)
      guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)
      else { continue }
      let resolved = URL(fileURLWithPath: target, relativeTo: link.deletingLastPathComponent())
        .standardizedFileURL.path
      files.insert(String(resolved.dropFirst(root.standardizedFileURL.path.count + 1)))
    }
    return files
  }

  /// The modules only Darwin has: a condition on one of them is a Darwin branch.
  static let darwinModules = ["Darwin", "CommonCrypto", "MachO"]

  /// The Darwin branches of `lines` (one file): each `#if`/`#elseif` on `canImport(Darwin)`
  /// (or another of `darwinModules`), and the `#else` of one on `!canImport(Darwin)` (a negated condition without `#else` has
  /// no Darwin branch). A branch is compiled when the file is compiled by a check target and
  /// its condition holds under `MN_DARWIN_SHIM` there, or when it only imports and the chain
  /// opens with `#if MN_DARWIN_SHIM` (the shim's imports stand in for Apple's).
  static func regions(file: String, lines: [String], compiledFile: Bool) -> [Region] {
    var regions: [Region] = []
    var chains: [[(index: Int, text: String)]] = []
    for (index, line) in lines.enumerated() {
      if line.hasPrefix("#if ") {
        chains.append([(index, line)])
      } else if line.hasPrefix("#elseif ") || line == "#else" || line.hasPrefix("#else ") {
        if !chains.isEmpty { chains[chains.count - 1].append((index, line)) }
      } else if line.hasPrefix("#endif"), let chain = chains.popLast() {
        for directive in chain {
          guard
            let module = darwinModules.first(where: { directive.text.contains("canImport(\($0))") })
          else { continue }
          if directive.text.contains("!canImport(\(module))") {
            guard
              let other = chain.first(where: {
                $0.text.hasPrefix("#else") && !$0.text.hasPrefix("#elseif")
              })
            else { continue }
            let compiled = compiledFile && directive.text.contains("MN_DARWIN_SHIM")
            regions.append(Region(file: file, line: other.index + 1, compiled: compiled))
            continue
          }
          var compiled = compiledFile && directive.text.contains("MN_DARWIN_SHIM")
          if compiledFile, chain[0].text == "#if MN_DARWIN_SHIM" {
            let body = lines[(directive.index + 1)...].prefix { !$0.hasPrefix("#") }
            compiled = compiled || body.allSatisfy { $0.isEmpty || $0.hasPrefix("import ") }
          }
          regions.append(Region(file: file, line: directive.index + 1, compiled: compiled))
        }
      }
    }
    return regions
  }

  static func regions() throws -> [Region] {
    let root = TestSupport.packageRoot
    let compiled = try compiledFiles()
    var regions: [Region] = []
    let enumerator = FileManager.default.enumerator(
      atPath: root.appendingPathComponent("Sources").path)
    while let name = enumerator?.nextObject() as? String {
      guard name.hasSuffix(".swift") else { continue }
      let file = "Sources/" + name
      let lines = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        .split(separator: "\n", omittingEmptySubsequences: false).map {
          $0.trimmingCharacters(in: .whitespaces)
        }
      regions += Self.regions(file: file, lines: lines, compiledFile: compiled.contains(file))
    }
    return regions
  }

  @Test func everyDarwinRegionIsCompiledOrListed() throws {
    let regions = try Self.regions()
    var uncompiled: [String: Int] = [:]
    for region in regions where !region.compiled { uncompiled[region.file, default: 0] += 1 }
    for (file, count) in uncompiled.sorted(by: { $0.key < $1.key })
    where Self.notYetCompiled[file] != count {
      let lines = regions.filter { $0.file == file && !$0.compiled }.map { "\($0.line)" }
      Issue.record(
        """
        \(file): \(count) Darwin region(s) not compiled by DarwinCompileCheck (lines \
        \(lines.joined(separator: ", "))), \(Self.notYetCompiled[file] ?? 0) listed: move \
        it into a Darwin*.swift file built under `canImport(Darwin) || MN_DARWIN_SHIM`
        """)
    }
    for (file, count) in Self.notYetCompiled where uncompiled[file] == nil {
      Issue.record("\(file) is listed with \(count) uncompiled region(s) but has none: unlist it")
    }
  }

  /// The rules on planted sources: a Darwin branch that the check cannot see counts, one
  /// under `MN_DARWIN_SHIM` in a compiled file does not, and a negated condition's Darwin
  /// branch is its `#else`.
  @Test func aPlantedRegionIsSeen() {
    func regions(_ text: String, compiled: Bool) -> [Int] {
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      return Self.regions(file: "f", lines: lines, compiledFile: compiled)
        .filter { !$0.compiled }.map(\.line)
    }
    let imports = """
      #if MN_DARWIN_SHIM
        import DarwinShim
      #elseif canImport(Glibc)
        import Glibc
      #elseif canImport(Darwin)
        import Darwin
      #endif
      """
    #expect(regions(imports, compiled: true) == [])
    #expect(regions(imports, compiled: false) == [5])
    let call = """
      #if canImport(Darwin)
        f()
      #else
        g()
      #endif
      #if canImport(Darwin) || MN_DARWIN_SHIM
        f()
      #endif
      """
    #expect(regions(call, compiled: true) == [1])
    let negated = """
      #if !canImport(Darwin)
        g()
      #endif
      #if !canImport(Darwin)
        g()
      #else
        f()
      #endif
      """
    #expect(regions(negated, compiled: true) == [6])
    // An imports-only branch counts as compiled only in a chain that opens with the shim.
    let bare = """
      #if canImport(Glibc)
        import Glibc
      #elseif canImport(Darwin)
        import Darwin
      #endif
      """
    #expect(regions(bare, compiled: true) == [3])
    // CommonCrypto is Darwin's too.
    #expect(regions("#if canImport(CommonCrypto)\n  f()\n#endif", compiled: true) == [1])
  }

  /// Every check target's folder is seen: Platform's files as well as Storage's.
  @Test func thePlatformFilesAreCompiled() throws {
    let compiled = try Self.compiledFiles()
    #expect(compiled.contains("Sources/Platform/LiveFileSystem.swift"))
    #expect(compiled.contains("Sources/Platform/Process/LiveProcessRunner.swift"))
    #expect(compiled.contains("Sources/Platform/System/Signals.swift"))
    #expect(compiled.contains("Sources/Storage/DarwinLiveSync.swift"))
    #expect(compiled.contains("Sources/AutomergeCodec/Crypto/SHA256Digest.swift"))
  }

  /// The FSEvents notifier (watch on macOS) is compiled by the check, both its regions.
  @Test func theFSEventsNotifierIsCompiled() throws {
    let regions = try Self.regions().filter {
      $0.file == "Sources/Platform/DarwinFSEvents.swift"
    }
    #expect(regions.count == 2)
    #expect(regions.allSatisfy { $0.compiled })
  }

  /// Platform's check compiles the whole module but its change notifiers (Linux's inotify,
  /// the events' portable meaning, and the FSEvents notifier, compiled by the Storage check
  /// against Foundation's shim), so a new
  /// Platform file must be linked into it: its portable lines meet Darwin's types too.
  @Test func everyPlatformFileIsInPlatformsCheck() throws {
    let root = TestSupport.packageRoot
    let notifiers: Set<String> = [
      "ChangeNotifier.swift", "LinuxInotify.swift", "FileEvents.swift", "DarwinFSEvents.swift",
    ]
    let enumerator = FileManager.default.enumerator(
      atPath: root.appendingPathComponent("Sources/Platform").path)
    let linked = root.appendingPathComponent("Tests/DarwinCompileCheck/Platform")
    while let name = enumerator?.nextObject() as? String {
      guard name.hasSuffix(".swift"), !notifiers.contains(name) else { continue }
      #expect(
        FileManager.default.fileExists(atPath: linked.appendingPathComponent(name).path),
        "Sources/Platform/\(name) is not linked into Tests/DarwinCompileCheck/Platform")
    }
  }

  /// The check itself sees the one file it compiles, so that it cannot pass by seeing none.
  @Test func theSyncProviderIsCompiled() throws {
    let regions = try Self.regions().filter {
      $0.file == "Sources/Storage/DarwinSyncProvider.swift"
    }
    #expect(regions.count == 2)
    #expect(regions.allSatisfy { $0.compiled })
  }
}
