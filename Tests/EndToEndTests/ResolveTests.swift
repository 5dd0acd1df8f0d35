import Foundation
import Testing

@Suite struct ResolveTests {
  let icloud = "Library/Mobile Documents/iCloud~tools~minuta~app/Documents"

  @Test func nothingFoundIs66() throws {
    let box = try Sandbox()
    let r = try box.run(["resolve"])
    #expect(r.status == 66)
    #expect(r.stdout.isEmpty)
    #expect(r.stderr.hasPrefix("mn: error: no data folder found\n"))
  }

  @Test func localDefault() throws {
    let box = try Sandbox()
    try box.mkdir("Documents/Minuta")
    let r = try box.run(["resolve"])
    #expect(r.status == 0)
    #expect(r.stdout == box.path("Documents/Minuta") + "\n")
    #expect(r.stderr.isEmpty)
  }

  @Test func icloudBeatsLocal() throws {
    let box = try Sandbox()
    try box.mkdir("Documents/Minuta")
    try box.mkdir(icloud)
    #expect(try box.run(["resolve"]).stdout == box.path(icloud) + "\n")
  }

  @Test func pointerBeatsICloud() throws {
    let box = try Sandbox()
    try box.mkdir(icloud)
    try box.mkdir("picked")
    try box.write(".config/minuta/storage-path.txt", "  \(box.path("picked"))\n")
    #expect(try box.run(["resolve"]).stdout == box.path("picked") + "\n")
  }

  @Test func stalePointerWarnsOnStderr() throws {
    let box = try Sandbox()
    try box.mkdir("Documents/Minuta")
    try box.write(".config/minuta/storage-path.txt", box.path("gone"))
    let r = try box.run(["resolve"])
    #expect(r.status == 0)
    #expect(r.stdout == box.path("Documents/Minuta") + "\n")
    #expect(r.stderr.contains("mn: warning: pointer file"))
    #expect(try box.run(["resolve", "-q"]).stderr.isEmpty)
  }

  @Test func envAndFlag() throws {
    let box = try Sandbox()
    try box.mkdir("a")
    try box.mkdir("b")
    let env = ["MINUTA_STORAGE": box.path("a")]
    #expect(try box.run(["resolve"], environment: env).stdout == box.path("a") + "\n")
    #expect(
      try box.run(["--root", "b", "resolve"], environment: env).stdout == box.path("b") + "\n")
    #expect(try box.run(["resolve", "--root=b"], environment: env).stdout == box.path("b") + "\n")
    let missing = try box.run(["resolve", "--root", "nope"], environment: env)
    #expect(missing.status == 66)
    #expect(missing.stderr.contains("'\(box.path("nope"))' does not exist"))
  }

  @Test func explainListsEveryStep() throws {
    let box = try Sandbox()
    try box.mkdir("Documents/Minuta")
    let r = try box.run(["resolve", "--explain"])
    #expect(r.status == 0)
    for label in [
      "1. --root", "2. MINUTA_STORAGE", "3. pointer file", "4. iCloud Drive", "5. local default",
    ] {
      #expect(r.stdout.contains(label))
    }
    #expect(r.stdout.contains("chosen"))
    #expect(r.stdout.hasSuffix("root: \(box.path("Documents/Minuta")) (local)\n"))
  }

  @Test func json() throws {
    let box = try Sandbox()
    try box.mkdir("Documents/Minuta")
    let r = try box.run(["resolve", "--json"])
    #expect(r.status == 0)
    let object = try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any]
    #expect(object?["root"] as? String == box.path("Documents/Minuta"))
    #expect(object?["source"] as? String == "local")
    let candidates = object?["candidates"] as? [[String: Any]]
    #expect(candidates?.count == 5)
    #expect(candidates?.last?["exists"] as? Bool == true)
    let none = try Sandbox().run(["resolve", "--json"])
    #expect(none.status == 66)
    let nothing = try JSONSerialization.jsonObject(with: none.stdoutBytes) as? [String: Any]
    #expect(nothing?["root"] is NSNull)
  }

  @Test func wellKnownPathsPrintWhetherOrNotTheyExist() throws {
    let box = try Sandbox()
    #expect(try box.run(["resolve", "--icloud"]).stdout == box.path(icloud) + "\n")
    #expect(try box.run(["resolve", "--local"]).stdout == box.path("Documents/Minuta") + "\n")
    #expect(try box.run(["resolve", "--local", "--icloud"]).status == 64)
  }

  @Test func unknownInputIsUsage() throws {
    let box = try Sandbox()
    let r = try box.run(["resolve", "--explian"])
    #expect(r.status == 64)
    #expect(r.stderr.contains("--explain"))
    #expect(try box.run(["resolv"]).status == 64)
    #expect(try box.run(["resolve", "extra"]).status == 64)
  }
}
