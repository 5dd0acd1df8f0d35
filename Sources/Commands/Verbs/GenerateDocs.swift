import Platform
import Storage

/// `mn __generate-docs REPO-ROOT`: rewrites `completions/` and `man/` (style.md (b)).
enum GenerateDocs {
  static let spec = CommandSpec(
    name: "__generate-docs",
    abstract: "Write the completion scripts and man pages into a source tree.",
    discussion: """
      Writes completions/mn.bash, completions/_mn, completions/mn.fish, man/mn.1 and one \
      man/mn-VERB.1 per verb under REPO-ROOT, and removes pages of verbs that no longer \
      exist. Packagers may run it too.
      """,
    arguments: [ArgumentSpec("REPO-ROOT", .directory, help: "The root of the source tree.")],
    flags: [.hidden],
    exits: [.ok, .usage, .cantCreate, .ioErr],
    examples: [Example("mn __generate-docs .", "Regenerate the files of this checkout.")],
    run: .plain(run))

  static func run(_ call: Invocation, _ env: Environment) throws -> ExitStatus {
    guard let argument = call.arguments.first else {
      throw UsageError(message: "missing argument 'REPO-ROOT'", path: ["__generate-docs"])
    }
    let rootPath = AbsolutePath(
      normalizing: argument, relativeTo: env.currentDirectory)
    let fs = env.fileSystem
    let files = DocsGenerator.files()
    for folder in DocsGenerator.folders {
      let directory = rootPath.appending(folder)
      if try fs.info(directory) == nil { try fs.makeDirectory(directory, permissions: 0o755) }
      for name in try fs.contentsOfDirectory(directory)
      where DocsGenerator.isGenerated(folder: folder, name: name)
        && files[folder + "/" + name] == nil
      {
        try fs.removeFile(directory.appending(name))
      }
    }
    for (relative, text) in files.sorted(by: { $0.key < $1.key }) {
      try AtomicFile.write(
        Array(text.utf8), to: rootPath.appending(relative), fileSystem: fs)
    }
    if !call.global.quiet {
      try env.stderr.write("mn: wrote \(files.count) files under '\(rootPath)'\n")
    }
    return .ok
  }
}
