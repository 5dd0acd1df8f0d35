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
  static let notYetCompiled: [String: Int] = [
    "Sources/Archive/ArchiveLocale.swift": 1,
    "Sources/Archive/LibArchive.swift": 2,
    "Sources/Archive/WriterThreads.swift": 5,
    "Sources/AutomergeCodec/Crypto/LibCrypto.swift": 1,
    "Sources/Commands/Output/Environment.swift": 1,
    "Sources/Commands/Output/Interrupt.swift": 1,
    "Sources/Commands/Output/LiveEnvironment.swift": 3,
    "Sources/Commands/Output/PausePoints.swift": 1,
    "Sources/Commands/Verbs/Doctor.swift": 1,
    "Sources/Platform/Process/ForegroundCommand.swift": 3,
    "Sources/Commands/Output/WatchSignals.swift": 1,
    "Sources/Commands/Verbs/Watch+Service.swift": 2,
    "Sources/Platform/ChangeNotifier.swift": 1,
    "Sources/Platform/Errno.swift": 1,
    "Sources/Platform/LiveFileSystem.swift": 6,
    "Sources/Platform/Process/LiveProcessRunner.swift": 2,
    "Sources/Storage/CoordinatedFileSystem.swift": 1,
    "Sources/Storage/ICloud/DatalessFiles.swift": 1,
    "Sources/mn/main.swift": 1,
  ]

  /// One `#if`/`#elseif` whose branch is Darwin's (`canImport(Darwin)`, or the `#else` of
  /// `!canImport(Darwin)`).
  struct Region: Hashable {
    var file: String
    var line: Int
    var compiled: Bool
  }

  /// The sources that DarwinCompileCheck compiles: its links into `Sources`.
  static func compiledFiles() throws -> Set<String> {
    let root = TestSupport.packageRoot
    let folder = root.appendingPathComponent("Tests/DarwinCompileCheck")
    var files: Set<String> = []
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
      let link = folder.appendingPathComponent(name).path
      guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link) else {
        continue
      }
      let resolved = URL(fileURLWithPath: target, relativeTo: folder).standardizedFileURL.path
      files.insert(String(resolved.dropFirst(root.standardizedFileURL.path.count + 1)))
    }
    return files
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
      for (index, line) in lines.enumerated()
      where (line.hasPrefix("#if ") || line.hasPrefix("#elseif "))
        && line.contains("canImport(Darwin)")
      {
        var isCompiled = compiled.contains(file) && line.contains("MN_DARWIN_SHIM")
        // `#if MN_DARWIN_SHIM` (the shim's imports) `#elseif canImport(Darwin)` (Apple's):
        // the shim branch stands in for an imports-only Darwin branch.
        if compiled.contains(file), line.hasPrefix("#elseif "), index > 0,
          lines[..<index].last(where: { $0.hasPrefix("#") }) == "#if MN_DARWIN_SHIM"
        {
          let body = lines[(index + 1)...].prefix { !$0.hasPrefix("#") }
          isCompiled = body.allSatisfy { $0.isEmpty || $0.hasPrefix("import ") }
        }
        regions.append(Region(file: file, line: index + 1, compiled: isCompiled))
      }
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

  /// The FSEvents notifier (watch on macOS) is compiled by the check, both its regions.
  @Test func theFSEventsNotifierIsCompiled() throws {
    let regions = try Self.regions().filter {
      $0.file == "Sources/Platform/DarwinFSEvents.swift"
    }
    #expect(regions.count == 2)
    #expect(regions.allSatisfy { $0.compiled })
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
