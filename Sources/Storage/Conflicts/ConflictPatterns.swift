import Platform

/// One way a sync service names a conflict copy, with examples that the tests check.
///
/// `NAME` is the stem of the original and `.EXT` its extension (`09` and `.automerge`).
/// A pattern either adds its marker to the stem, before the extension, or appends it to the
/// whole name, after the extension.
public struct ConflictPattern: Sendable {
  /// Where the marker sits.
  public enum Position: Sendable {
    /// `NAME<marker>.EXT` (or `NAME<marker>` when there is no extension).
    case beforeExtension
    /// `NAME.EXT<marker>`.
    case afterExtension
  }

  /// An example name with what parsing it must give.
  public struct Example: Sendable {
    public var fileName: String
    public var canonicalName: String
    public var device: String?
    public var date: String?

    public init(
      _ fileName: String, _ canonicalName: String, device: String? = nil, date: String? = nil
    ) {
      self.fileName = fileName
      self.canonicalName = canonicalName
      self.device = device
      self.date = date
    }
  }

  /// What part of a name a pattern removes, and what the removed marker said.
  struct Strip {
    /// How many leading bytes of the stem (or name) to keep.
    var keep: Int
    var device: String?
    var date: String?
  }

  /// The service.
  public var service: ConflictService
  /// The shape of the name, for documentation: `NAME (USER's conflicted copy YYYY-MM-DD).EXT`.
  public var form: String
  /// Where the marker sits.
  public var position: Position
  /// Names this pattern must parse, with the expected result (tests).
  public var examples: [Example]
  /// Names this pattern must not match (tests).
  public var counterexamples: [String]
  /// Recognises the marker at the end of the stem (or of the whole name).
  let strip: @Sendable ([UInt8]) -> Strip?

  init(
    _ service: ConflictService, _ form: String, _ position: Position = .beforeExtension,
    examples: [Example], counterexamples: [String] = [],
    strip: @escaping @Sendable ([UInt8]) -> Strip?
  ) {
    self.service = service
    self.form = form
    self.position = position
    self.examples = examples
    self.counterexamples = counterexamples
    self.strip = strip
  }

  /// What matching needs of the row, without its documentation and examples.
  var matcher: ConflictMatcher {
    ConflictMatcher(service: service, position: position, strip: strip)
  }
}

/// A row of the table reduced to what matching needs: cheap to iterate, where a whole row
/// would retain its strings and arrays at each step.
struct ConflictMatcher: Sendable {
  let service: ConflictService
  let position: ConflictPattern.Position
  let strip: @Sendable ([UInt8]) -> ConflictPattern.Strip?

  /// Removes the row's marker from `name` (whose stem, the part before the last `.` not at
  /// the start, is `stem`); nil when the name does not end with it.
  func match(_ name: [UInt8], stem: [UInt8]) -> ([UInt8], ConflictMarker)? {
    switch position {
    case .afterExtension:
      guard let s = strip(name), s.keep > 0, s.keep < name.count else { return nil }
      return (
        Array(name[..<s.keep]), ConflictMarker(service: service, device: s.device, date: s.date)
      )
    case .beforeExtension:
      guard let s = strip(stem), s.keep > 0, s.keep < stem.count else { return nil }
      var rest: [UInt8] = []
      rest.reserveCapacity(s.keep + name.count - stem.count)
      rest += stem[..<s.keep]
      rest += name[stem.count...]
      return (rest, ConflictMarker(service: service, device: s.device, date: s.date))
    }
  }
}

/// The table of conflict-copy names of every sync service mn knows (mn.md §3).
///
/// This is the one place that knows them. Rows are tried in order and the first match
/// wins, so a specific row (`NAME (conflicted)`, pCloud) sits before a general one that
/// would also accept it. A name that matches no row is never treated as a copy.
public enum ConflictPatterns {
  typealias B = NameBytes

  /// Every pattern, in the order they are tried.
  public static let all: [ConflictPattern] = [
    ConflictPattern(
      .googleDrive, "NAME.EXT (Conflict ID)  (Backup and Sync)", .afterExtension,
      examples: [
        .init("09.automerge (Conflict a4ab3033)", "09.automerge"),
        .init("tags.automerge (Conflict 1)", "tags.automerge"),
      ],
      counterexamples: [
        "09.automerge (Conflict)", "09.automerge (Conflict a4-b)", "(Conflict a4ab3033)",
      ],
      strip: { name in
        guard let o = B.openingOfFinalGroup(name, open: B.openParen, close: B.closeParen), o > 0,
          name[o - 1] == B.space, B.matches(name, at: o + 1, "Conflict ")
        else { return nil }
        guard name.count - 1 >= o + 10 else { return nil }
        let id = (o + 10)..<(name.count - 1)
        guard (1...32).contains(id.count), id.allSatisfy({ B.isAlnum(name[$0]) }) else {
          return nil
        }
        return .init(keep: o - 1)
      }),
    ConflictPattern(
      .rclone, "NAME.EXT.conflictN  (bisync)", .afterExtension,
      examples: [
        .init("09.automerge.conflict1", "09.automerge"),
        .init("09.automerge.conflict12", "09.automerge"),
      ],
      counterexamples: [
        "09.automerge.conflict", "09.automerge.conflict01", "09.automerge.Conflict1",
      ],
      strip: { name in
        guard let i = B.lastIndex(of: ".conflict", in: name),
          B.counter(name, (i + 9)..<name.count) != nil
        else { return nil }
        return .init(keep: i)
      }),
    ConflictPattern(
      .rclone, "NAME.EXT..path1, NAME.EXT..path2  (older bisync)", .afterExtension,
      examples: [
        .init("09.automerge..path1", "09.automerge"),
        .init("tags.automerge..path2", "tags.automerge"),
      ],
      counterexamples: ["09.automerge..path3", "09.automerge..path"],
      strip: { name in
        guard B.hasSuffix(name, "..path1") || B.hasSuffix(name, "..path2") else { return nil }
        return .init(keep: name.count - 7)
      }),
    ConflictPattern(
      .rclone,
      "NAME.EXT.path1, NAME.EXT.path2  (bisync --conflict-loser pathname --conflict-suffix path; "
        + "stacked .path1.path2 when a copy conflicts again)", .afterExtension,
      examples: [
        .init("09.automerge.path1", "09.automerge"),
        .init("tags.automerge.path2", "tags.automerge"),
      ],
      counterexamples: [
        "09.automerge.path3", "09.automerge.path", "09.automerge.path12", "09.automerge.Path1",
        "09.automerge-path1", "09.path1",
      ],
      strip: { name in
        guard B.hasSuffix(name, ".path1") || B.hasSuffix(name, ".path2") else { return nil }
        let keep = name.count - 6
        // bisync appends the suffix to the whole name, extension included: what is left keeps
        // one (a document's name has one; and `NAME.path1` alone stays an ordinary name).
        guard let dot = name[..<keep].lastIndex(of: B.dot), dot > 0, dot < keep - 1 else {
          return nil
        }
        return .init(keep: keep)
      }),
    ConflictPattern(
      .syncthing, "NAME.sync-conflict-YYYYMMDD-HHMMSS[-DEVICE].EXT",
      examples: [
        .init(
          "09.sync-conflict-20260906-154512-ABCDEFG.automerge", "09.automerge", device: "ABCDEFG",
          date: "2026-09-06T15:45:12"),
        .init(
          "tags.sync-conflict-20260906-154512.automerge", "tags.automerge",
          date: "2026-09-06T15:45:12"),
      ],
      counterexamples: [
        "09.sync-conflict-2026096-154512-ABCDEFG.automerge",
        "09.sync-conflict-20261306-154512-ABCDEFG.automerge",
        "09.sync-conflict-20260906-154512-abc defg.automerge",
        "09.sync-conflict.automerge",
      ],
      strip: { stem in
        guard let i = B.lastIndex(of: ".sync-conflict-", in: stem) else { return nil }
        let d = i + 15
        guard stem.count >= d + 15, stem[d + 8] == B.dash,
          let date = B.compactDateTime(stem, date: d, time: d + 9)
        else { return nil }
        var device: String?
        if stem.count > d + 15 {
          let id = (d + 16)..<stem.count
          guard stem[d + 15] == B.dash, (1...64).contains(id.count),
            id.allSatisfy({ B.isUpper(stem[$0]) || B.isDigit(stem[$0]) })
          else { return nil }
          device = B.string(stem[id])
        }
        return .init(keep: i, device: device, date: date)
      }),
    ConflictPattern(
      .seafile,
      "NAME.EXT (SFConflict [USER ]YYYY-Mon-D-HH-MM-SS).EXT  (server-side merge, Go file server: "
        + "the whole name, then its extension again)", .afterExtension,
      examples: [
        .init(
          "09.automerge (SFConflict ada@example.com 2026-Sep-6-15-45-12).automerge",
          "09.automerge", device: "ada@example.com", date: "2026-09-06T15:45:12"),
        .init(
          "tags.automerge (SFConflict Ada Lovelace 2026-Dec-24-09-05-03).automerge",
          "tags.automerge", device: "Ada Lovelace", date: "2026-12-24T09:05:03"),
        .init(
          "09.automerge (SFConflict 2026-Jan-1-00-00-00).automerge", "09.automerge",
          date: "2026-01-01T00:00:00"),
      ],
      counterexamples: [
        "09.automerge (SFConflict ada@example.com 2026-Spt-6-15-45-12).automerge",
        "09.automerge (SFConflict ada@example.com 2026-sep-6-15-45-12).automerge",
        "09.automerge (SFConflict ada@example.com 2026-Sep-06-15-45-12).automerge",
        "09.automerge (SFConflict ada@example.com 2026-Sep-6-15-45).automerge",
      ],
      strip: { name in
        // The group ends right before the extension.
        guard let dot = name.lastIndex(of: B.dot), dot > 0, name[dot - 1] == B.closeParen else {
          return nil
        }
        let part = Array(name[..<dot])
        guard let (o, inner) = finalGroup(part), let (device, date) = seafileGroup(inner) else {
          return nil
        }
        // Before the group: the original name, which ends with the extension written after it.
        let ext = name.count - dot
        guard o > ext else { return nil }
        for k in 0..<ext where part[o - ext + k] != name[dot + k] { return nil }
        return .init(keep: o, device: device, date: date)
      }),
    ConflictPattern(
      .seafile,
      "NAME (SFConflict [USER ]YYYY-MM-DD-HH-MM-SS).EXT  (client, and the server's C merge; "
        + "USER an email or a nickname, or none; the date also as YYYY-Mon-D-HH-MM-SS)",
      examples: [
        .init(
          "09 (SFConflict ada@example.com 2026-09-06-15-45-12).automerge", "09.automerge",
          device: "ada@example.com", date: "2026-09-06T15:45:12"),
        .init(
          "09 (SFConflict Ada Lovelace 2026-09-06-15-45-12).automerge", "09.automerge",
          device: "Ada Lovelace", date: "2026-09-06T15:45:12"),
        .init(
          "tags (SFConflict 2026-09-06-15-45-12).automerge", "tags.automerge",
          date: "2026-09-06T15:45:12"),
        .init(
          "09 (SFConflict ada@example.com 2026-Sep-6-15-45-12).automerge", "09.automerge",
          device: "ada@example.com", date: "2026-09-06T15:45:12"),
        .init(
          "09 (SFConflict ada@example.com 2026-Oct-31-23-59-59).automerge", "09.automerge",
          device: "ada@example.com", date: "2026-10-31T23:59:59"),
      ],
      counterexamples: [
        "09 (SFConflict ada 2026-09-06).automerge", "09 (SFConflict).automerge",
        "09 (SFConflict  2026-09-06-15-45-12).automerge",
        "09 (SFConflict ada 2026-13-06-15-45-12).automerge",
        "09 (SFConflict ada 2026-09-06-24-45-12).automerge",
        "09 (SFConflict ada 2026-Foo-6-15-45-12).automerge",
        "09 (SFConflict ada 2026-Sep-32-15-45-12).automerge",
        "09 (SFConflict ada 2026-Sep-6-5-45-12).automerge",
        "09 (sfconflict ada 2026-09-06-15-45-12).automerge",
        "09(SFConflict ada 2026-09-06-15-45-12).automerge",
      ],
      strip: { stem in
        guard let (o, inner) = finalGroup(stem), let (device, date) = seafileGroup(inner) else {
          return nil
        }
        return .init(keep: o, device: device, date: date)
      }),
    ConflictPattern(
      .nextcloud, "NAME (conflicted copy [USER ]YYYY-MM-DD HHMMSS).EXT  (Nextcloud, ownCloud)",
      examples: [
        .init(
          "09 (conflicted copy 2026-09-06 154512).automerge", "09.automerge",
          date: "2026-09-06T15:45:12"),
        .init(
          "tags (conflicted copy Ada Lovelace 2026-09-06 154512).automerge", "tags.automerge",
          device: "Ada Lovelace", date: "2026-09-06T15:45:12"),
        .init(
          "09 (conflicted copy Grace Hopper 2026-09-06 154512).automerge", "09.automerge",
          device: "Grace Hopper", date: "2026-09-06T15:45:12"),
        .init(
          "09 (conflicted copy grace.hopper@example.com 2026-09-06 154512).automerge",
          "09.automerge", device: "grace.hopper@example.com", date: "2026-09-06T15:45:12"),
      ],
      counterexamples: [
        "09 (conflicted copy 2026-09-06).automerge",
        "09 (conflicted copy 2026-09-06 1545).automerge",
        "09 (conflicted copy).automerge", "09 (conflicted copy Grace Hopper).automerge",
        "09 (conflicted copy of the draft).automerge",
        "09 (conflicted copy 2026-09-06 15:45:12).automerge",
        "09 (conflicted copy 2026-13-06 154512).automerge",
        "09 (conflicted copy  2026-09-06 154512).automerge",
        "09 (Conflicted Copy 2026-09-06 154512).automerge",
        "09 (conflicted copy 2026-09-06 154512) draft.automerge",
      ],
      strip: { stem in
        let prefix: StaticString = "conflicted copy "
        guard let (o, inner) = finalGroup(stem), B.matches(inner, at: 0, prefix),
          inner.count >= 16 + 17
        else { return nil }
        let at = inner.count - 17
        guard let date = B.dashedDate(inner, at: at), inner[at + 10] == B.space,
          let time = B.compactTime(inner, at: at + 11)
        else { return nil }
        var device: String?
        if at > 16 {
          guard inner[at - 1] == B.space else { return nil }
          let user = B.trimmed(inner[16..<(at - 1)])
          guard !user.isEmpty else { return nil }
          device = B.string(user)
        } else if at != 16 {
          return nil
        }
        return .init(keep: o, device: device, date: B.dateTime(date, time))
      }),
    ConflictPattern(
      .nextcloud, "NAME (case clash from YYYY-MM-DD HHMMSS).EXT  (Nextcloud desktop client)",
      examples: [
        .init(
          "09 (case clash from 2026-09-06 154512).automerge", "09.automerge",
          date: "2026-09-06T15:45:12"),
        .init(
          "tags (case clash from 2026-12-24 090503).automerge", "tags.automerge",
          date: "2026-12-24T09:05:03"),
      ],
      counterexamples: [
        "09 (case clash).automerge", "09 (case clash from 2026-09-06).automerge",
        "09 (case clash from Ada 2026-09-06 154512).automerge",
        "09 (Case Clash from 2026-09-06 154512).automerge",
        "09 (case clash from 2026-09-06 254512).automerge",
      ],
      strip: { stem in
        let prefix: StaticString = "case clash from "
        guard let (o, inner) = finalGroup(stem), inner.count == 16 + 17,
          B.matches(inner, at: 0, prefix), inner[26] == B.space,
          let date = B.dashedDate(inner, at: 16), let time = B.compactTime(inner, at: 27)
        else { return nil }
        return .init(keep: o, date: B.dateTime(date, time))
      }),
    ConflictPattern(
      .nextcloud,
      "NAME_conflict-YYYYMMDD-HHMMSS.EXT, NAME_conflict_USER-YYYYMMDD-HHMMSS.EXT  (older ownCloud "
        + "client; USER when CSYNC_CONFLICT_FILE_USERNAME was set)",
      examples: [
        .init(
          "09_conflict-20260906-154512.automerge", "09.automerge", date: "2026-09-06T15:45:12"),
        .init(
          "tags_conflict_ada-20260906-154512.automerge", "tags.automerge", device: "ada",
          date: "2026-09-06T15:45:12"),
      ],
      counterexamples: [
        "09_conflict-20260906.automerge", "09_conflict.automerge",
        "09_conflict_-20260906-154512.automerge", "09_conflicted-20260906-154512.automerge",
        "09_conflict-2026-09-06-154512.automerge", "09_conflict-20261306-154512.automerge",
        "09-conflict-20260906-154512.automerge",
      ],
      strip: { stem in
        // `-YYYYMMDD-HHMMSS` ends the stem; `_conflict` or `_conflict_USER` comes before it.
        guard stem.count >= 9 + 16 else { return nil }
        let dash = stem.count - 16
        guard stem[dash] == B.dash, stem[stem.count - 7] == B.dash else { return nil }
        var keep = dash - 9
        var device: String?
        if !B.matches(stem, at: keep, "_conflict") {
          guard let i = B.lastIndex(of: "_conflict_", in: Array(stem[..<dash])), i + 10 < dash
          else { return nil }
          keep = i
          device = B.string(stem[(i + 10)..<dash])
        }
        guard let date = B.compactDateTime(stem, date: dash + 1, time: stem.count - 6) else {
          return nil
        }
        return .init(keep: keep, device: device, date: date)
      }),
    ConflictPattern(
      .unison, "NAME (conflict[ #N]_on_YYYY-MM-DD).EXT  (-copyonconflict)",
      examples: [
        .init("09 (conflict_on_2026-09-06).automerge", "09.automerge", date: "2026-09-06"),
        .init("09 (conflict #1_on_2026-09-06).automerge", "09.automerge", date: "2026-09-06"),
        .init("09 (conflict on 2026-09-06).automerge", "09.automerge", date: "2026-09-06"),
      ],
      counterexamples: [
        "09 (conflict_on_2026-9-6).automerge", "09 (conflict #x_on_2026-09-06).automerge",
      ],
      strip: { stem in
        guard let (o, inner) = finalGroup(stem), B.matches(inner, at: 0, "conflict"),
          inner.count >= 8 + 4 + 10
        else { return nil }
        let at = inner.count - 10
        guard let date = B.dashedDate(inner, at: at) else { return nil }
        let glue = at - 4
        guard B.matches(inner, at: glue, "_on_") || B.matches(inner, at: glue, " on ")
        else { return nil }
        if glue > 8 {
          guard glue > 10, B.matches(inner, at: 8, " #"), B.counter(inner, 10..<glue) != nil
          else { return nil }
        }
        return .init(keep: o, date: date)
      }),
    ConflictPattern(
      .pcloud, "NAME [conflicted].EXT, NAME (conflicted).EXT",
      examples: [
        .init("09 [conflicted].automerge", "09.automerge"),
        .init("09 (conflicted).automerge", "09.automerge"),
        .init("tags [conflicted 2].automerge", "tags.automerge"),
      ],
      counterexamples: ["09 [conflict].automerge", "09[conflicted].automerge"],
      strip: { stem in
        var o = B.openingOfFinalGroup(stem, open: B.openBracket, close: B.closeBracket)
        if o == nil { o = B.openingOfFinalGroup(stem, open: B.openParen, close: B.closeParen) }
        guard let o, o > 0, stem[o - 1] == B.space else { return nil }
        let inner = Array(stem[(o + 1)..<(stem.count - 1)])
        let word = B.bytes("conflicted")
        guard B.matches(inner, at: 0, word) else { return nil }
        if inner.count > word.count {
          guard inner[word.count] == B.space,
            B.counter(inner, (word.count + 1)..<inner.count) != nil
          else {
            return nil
          }
        }
        return .init(keep: o - 1)
      }),
    ConflictPattern(
      .dropbox,
      "NAME (USER's conflicted copy[ YYYY-MM-DD]).EXT, NAME (Case Conflict).EXT, "
        + "NAME (Unicode Encoding Conflict).EXT, each optionally followed by ' (N)'; localized wordings",
      examples: [
        .init(
          "09 (Ada Lovelace's conflicted copy 2026-09-06).automerge", "09.automerge",
          device: "Ada Lovelace",
          date: "2026-09-06"),
        .init("09 (Ada's conflicted copy).automerge", "09.automerge", device: "Ada"),
        .init(
          "09 (Ada’s conflicted copy 2026-09-06).automerge", "09.automerge", device: "Ada",
          date: "2026-09-06"),
        .init(
          "09 (Ada's conflicted copy 2026-09-06) (1).automerge", "09.automerge", device: "Ada",
          date: "2026-09-06"),
        .init(
          "09 (Ada's conflicted copy 2026-09-06 (1)).automerge", "09.automerge", device: "Ada",
          date: "2026-09-06"),
        .init("09 (Case Conflict).automerge", "09.automerge"),
        .init("09 (Case Conflict 1).automerge", "09.automerge"),
        .init("09 (Unicode Encoding Conflict).automerge", "09.automerge"),
        .init("09 (Unicode Encoding Conflict) (1).automerge", "09.automerge"),
        .init(
          "09 (Ada Lovelaces in Konflikt stehende Kopie 2026-09-06).automerge", "09.automerge",
          device: "Ada Lovelaces", date: "2026-09-06"),
        .init(
          "09 (In Konflikt stehende Kopie von Ada 2026-09-06).automerge", "09.automerge",
          device: "Ada",
          date: "2026-09-06"),
        .init(
          "09 (copie en conflit de Ada 2026-09-06).automerge", "09.automerge", device: "Ada",
          date: "2026-09-06"),
        .init(
          "09 (Copia en conflicto de Ada 2026-09-06).automerge", "09.automerge", device: "Ada",
          date: "2026-09-06"),
        .init(
          "09 (Copia in conflitto di Ada 2026-09-06).automerge", "09.automerge", device: "Ada",
          date: "2026-09-06"),
        .init(
          "09 (Cópia em conflito de Ada 2026-09-06).automerge", "09.automerge", device: "Ada",
          date: "2026-09-06"),
        .init(
          "09 (Ada の競合コピー 2026-09-06).automerge", "09.automerge", device: "Ada", date: "2026-09-06"),
      ],
      counterexamples: [
        "09 (conflicted copy).automerge", "09 ('s conflicted copy 2026-09-06).automerge",
        "09 (Ada's copy 2026-09-06).automerge", "09(Ada's conflicted copy).automerge",
        "09 (copie en conflit de).automerge",
      ],
      strip: { stem in dropbox(stem) }),
    ConflictPattern(
      .googleDrive, "NAME (N).EXT",
      examples: [
        .init("09 (1).automerge", "09.automerge"), .init("tags (12).automerge", "tags.automerge"),
      ],
      counterexamples: [
        "09 (0).automerge", "09 (01).automerge", "09(1).automerge", "09 (x).automerge",
      ],
      strip: { stem in
        guard let (o, inner) = finalGroup(stem), B.counter(inner, 0..<inner.count) != nil else {
          return nil
        }
        return .init(keep: o)
      }),
    ConflictPattern(
      .icloud, "NAME N.EXT  (N ≥ 2; non-coordinating writers)",
      examples: [
        .init("09 2.automerge", "09.automerge"), .init("tags 13.automerge", "tags.automerge"),
      ],
      counterexamples: [
        "09 1.automerge", "09 02.automerge", "092.automerge", "09 draft.automerge",
      ],
      strip: { stem in
        guard let sp = stem.lastIndex(of: B.space), let n = B.counter(stem, (sp + 1)..<stem.count),
          n >= 2
        else { return nil }
        return .init(keep: sp)
      }),
    ConflictPattern(
      .resilio, "NAME.Conflict.EXT, NAME.ConflictN.EXT",
      examples: [
        .init("09.Conflict.automerge", "09.automerge"),
        .init("09.Conflict1.automerge", "09.automerge"),
      ],
      counterexamples: [
        "09.conflict.automerge", "09.Conflicted.automerge", "09Conflict.automerge",
      ],
      strip: { stem in
        guard let i = B.lastIndex(of: ".Conflict", in: stem) else { return nil }
        let n = (i + 9)..<stem.count
        guard n.isEmpty || B.counter(stem, n) != nil else { return nil }
        return .init(keep: i)
      }),
    ConflictPattern(
      .rclone, "NAME.conflictN.EXT  (bisync --suffix-keep-extension)",
      examples: [
        .init("09.conflict1.automerge", "09.automerge"),
        .init("tags.conflict3.automerge", "tags.automerge"),
      ],
      counterexamples: ["09.conflict.automerge", "09.conflict0.automerge"],
      strip: { stem in
        guard let i = B.lastIndex(of: ".conflict", in: stem),
          B.counter(stem, (i + 9)..<stem.count) != nil
        else { return nil }
        return .init(keep: i)
      }),
    ConflictPattern(
      .rclone,
      "NAME.path1.EXT, NAME.path2.EXT  (bisync --conflict-loser pathname --conflict-suffix path "
        + "--suffix-keep-extension)",
      examples: [
        .init("09.path1.automerge", "09.automerge"),
        .init("tags.path2.automerge", "tags.automerge"),
      ],
      counterexamples: ["09.path3.automerge", "09.path.automerge", "09path1.automerge"],
      strip: { stem in
        guard B.hasSuffix(stem, ".path1") || B.hasSuffix(stem, ".path2") else { return nil }
        return .init(keep: stem.count - 6)
      }),
    ConflictPattern(
      .onedrive,
      "NAME-HOSTNAME.EXT, NAME-HOSTNAME-N.EXT  (HOSTNAME must look like a computer's name)",
      examples: [
        .init("09-DESKTOP-AB12CDE.automerge", "09.automerge", device: "DESKTOP-AB12CDE"),
        .init("09-DESKTOP-AB12CDE-2.automerge", "09.automerge", device: "DESKTOP-AB12CDE"),
        .init("09-LAPTOP-7H2K9QXM.automerge", "09.automerge", device: "LAPTOP-7H2K9QXM"),
        .init("tags-Adas-MacBook-Pro.automerge", "tags.automerge", device: "Adas-MacBook-Pro"),
        .init("09-ADA-PC.automerge", "09.automerge", device: "ADA-PC"),
        .init("09-WS1234.automerge", "09.automerge", device: "WS1234"),
      ],
      counterexamples: [
        "09-draft.automerge", "09-DRAFT.automerge", "2026-09.automerge", "09-2.automerge",
        "09-.automerge",
        "09-final-version.automerge", "09-v2.automerge",
      ],
      strip: { stem in oneDrive(stem) }),
  ]

  /// Removes the outermost marker of `name`, trying every row in order.
  ///
  /// There is no shortcut in front of the rows: a caller that sees many names that cannot be
  /// copies turns them away first by what its folder can hold (`DocumentFolder.mayHoldCopy`).
  static func stripOne(_ name: [UInt8]) -> ([UInt8], ConflictMarker)? {
    var dot = name.count
    if let i = name.lastIndex(of: NameBytes.dot), i > 0 { dot = i }
    let stem = Array(name[..<dot])
    for matcher in matchers {
      if let result = matcher.match(name, stem: stem) { return result }
    }
    return nil
  }

  /// The rows as matchers, in order.
  private static let matchers = all.map(\.matcher)

  /// The final ` (…)` group of a stem: the index of the space before it and its inner bytes.
  static func finalGroup(_ stem: [UInt8]) -> (Int, [UInt8])? {
    guard let o = B.openingOfFinalGroup(stem, open: B.openParen, close: B.closeParen), o > 0,
      stem[o - 1] == B.space
    else { return nil }
    return (o - 1, Array(stem[(o + 1)..<(stem.count - 1)]))
  }

  /// Seafile's group without its parentheses, `SFConflict [USER ]DATE`: the user (an email,
  /// or a nickname that may hold spaces; none when Seafile knew no modifier) and the date.
  /// DATE is `YYYY-MM-DD-HH-MM-SS` (C's `%Y-%m-%d-%H-%M-%S`) or, from the Go file server,
  /// `YYYY-Mon-D-HH-MM-SS` (Go's `2006-Jan-2-15-04-05`: an English month, an unpadded day).
  static func seafileGroup(_ inner: [UInt8]) -> (String?, String)? {
    guard B.matches(inner, at: 0, "SFConflict "), let sp = inner.lastIndex(of: B.space),
      let date = seafileDate(inner, at: sp + 1)
    else { return nil }
    guard sp > 10 else { return (nil, date) }
    let user = B.trimmed(inner[11..<sp])
    guard !user.isEmpty else { return nil }
    return (B.string(user), date)
  }

  /// A Seafile date filling `bytes[at...]`, in either layout, as `YYYY-MM-DDTHH:MM:SS`.
  static func seafileDate(_ bytes: [UInt8], at: Int) -> String? {
    let length = bytes.count - at
    if length == 19 {
      if let date = B.dashedDate(bytes, at: at), bytes[at + 10] == B.dash,
        let time = B.dashedTime(bytes, at: at + 11)
      {
        return B.dateTime(date, time)
      }
    }
    // YYYY-Mon-D-HH-MM-SS, the day one or two digits.
    guard length == 19 || length == 20, let y = B.number(bytes, at..<(at + 4)),
      bytes[at + 4] == B.dash, let m = B.monthAbbreviation(bytes, at: at + 5),
      bytes[at + 8] == B.dash, bytes[at + 9] != 0x30
    else { return nil }
    let dayEnd = at + length - 9
    guard let d = B.number(bytes, (at + 9)..<dayEnd), bytes[dayEnd] == B.dash,
      let date = B.isoDate(y, m, d), let time = B.dashedTime(bytes, at: dayEnd + 1)
    else { return nil }
    return B.dateTime(date, time)
  }

  /// Where the user's name sits relative to a Dropbox wording.
  enum UserSide { case before, after }

  /// Dropbox's "conflicted copy" wordings, English first. The localized ones are those seen
  /// in the wild; a missing language is a name that is not recognised, never a wrong match.
  static let dropboxWordings: [(text: [UInt8], user: UserSide)] = [
    (Array("'s conflicted copy".utf8), .before),
    (Array("’s conflicted copy".utf8), .before),
    (Array("in Konflikt stehende Kopie von ".utf8), .after),
    (Array("in Konflikt stehende Kopie".utf8), .before),
    (Array("copie en conflit de ".utf8), .after),
    (Array("copia en conflicto de ".utf8), .after),
    (Array("copia in conflitto di ".utf8), .after),
    (Array("cópia em conflito de ".utf8), .after),
    (Array(" の競合コピー".utf8), .before),
  ]

  /// The fixed Dropbox wordings that name no user.
  static let dropboxFixed: [[UInt8]] = [
    Array("Case Conflict".utf8), Array("Unicode Encoding Conflict".utf8),
    Array("Selective Sync Conflict".utf8),
  ]

  /// The Dropbox row: its group, optionally followed by ` (N)`.
  static func dropbox(_ stem: [UInt8]) -> ConflictPattern.Strip? {
    if let (o, inner) = finalGroup(stem), B.counter(inner, 0..<inner.count) != nil,
      let s = dropboxGroup(Array(stem[..<o]))
    {
      return s
    }
    return dropboxGroup(stem)
  }

  static func dropboxGroup(_ stem: [UInt8]) -> ConflictPattern.Strip? {
    guard let (o, inner) = finalGroup(stem) else { return nil }
    for fixed in dropboxFixed where B.matches(inner, at: 0, fixed, ignoringCase: true) {
      if inner.count == fixed.count { return .init(keep: o) }
      if inner[fixed.count] == B.space, B.counter(inner, (fixed.count + 1)..<inner.count) != nil {
        return .init(keep: o)
      }
    }
    for wording in dropboxWordings {
      guard let k = firstIndex(of: wording.text, in: inner) else { continue }
      var rest = Array(inner[(k + wording.text.count)...])
      // Trailing parts, in this order from the end: " (N)", then " YYYY-MM-DD" or " N".
      if let (ro, rinner) = finalGroup(rest), B.counter(rinner, 0..<rinner.count) != nil {
        rest = Array(rest[..<ro])
      }
      var date: String?
      if rest.count >= 10, let d = B.dashedDate(rest, at: rest.count - 10),
        rest.count == 10 || rest[rest.count - 11] == B.space
      {
        date = d
        rest = Array(rest[..<max(rest.count - 11, 0)])
      } else if let sp = rest.lastIndex(of: B.space), B.counter(rest, (sp + 1)..<rest.count) != nil
      {
        rest = Array(rest[..<sp])
      }
      let user: ArraySlice<UInt8>
      switch wording.user {
      case .before:
        guard B.trimmed(rest[...]).isEmpty else { continue }
        user = B.trimmed(inner[..<k])
      case .after:
        guard B.trimmed(inner[..<k]).isEmpty else { continue }
        user = B.trimmed(rest[...])
      }
      guard !user.isEmpty else { continue }
      return .init(keep: o, device: B.string(user), date: date)
    }
    return nil
  }

  /// The first index of `needle` in `bytes`, ASCII letters compared without case.
  static func firstIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
    guard !needle.isEmpty, needle.count <= bytes.count else { return nil }
    for i in 0...(bytes.count - needle.count)
    where B.matches(bytes, at: i, needle, ignoringCase: true) {
      return i
    }
    return nil
  }

  /// Words that make a hyphenated name a computer's name (`Adas-MacBook-Pro`, `ADA-PC`).
  static let machineWords: Set<String> = [
    "pc", "desktop", "laptop", "notebook", "netbook", "mac", "macbook", "macbookpro", "macbookair",
    "imac", "macmini", "mini", "studio", "surface", "thinkpad", "thinkcentre", "workstation",
    "computer",
    "server", "nuc", "tower", "win", "windows",
  ]

  /// The OneDrive row: the stem is split at its first `-` (so NAME itself has none, as no
  /// document's has), and the rest, without a trailing `-N`, must look like a computer's name.
  static func oneDrive(_ stem: [UInt8]) -> ConflictPattern.Strip? {
    guard let i = stem.firstIndex(of: B.dash), i > 0 else { return nil }
    var host = Array(stem[(i + 1)...])
    if let d = host.lastIndex(of: B.dash), d > 0, B.counter(host, (d + 1)..<host.count) != nil,
      looksLikeMachineName(Array(host[..<d]))
    {
      host = Array(host[..<d])
    }
    return looksLikeMachineName(host) ? .init(keep: i, device: B.string(host)) : nil
  }

  /// Whether `host` looks like a computer's name: Windows' generated names
  /// (`DESKTOP-AB12CDE`), a name with a computer word among its hyphenated parts
  /// (`Adas-MacBook-Pro`), or one upper-case word with letters and digits (`WS1234`).
  static func looksLikeMachineName(_ host: [UInt8]) -> Bool {
    guard (2...63).contains(host.count) else { return false }
    let parts = host.split(separator: B.dash, omittingEmptySubsequences: false)
    guard parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(B.isAlnum) }) else { return false }
    let hasLetter = { (p: ArraySlice<UInt8>) in
      p.contains(where: { B.isUpper($0) || B.isLower($0) })
    }
    let upperAlnum = { (p: ArraySlice<UInt8>) in p.allSatisfy({ B.isUpper($0) || B.isDigit($0) }) }
    if parts.count == 1 {
      let p = parts[0]
      return upperAlnum(p) && hasLetter(p) && p.contains(where: B.isDigit) && p.count >= 4
    }
    guard parts.contains(where: hasLetter) else { return false }
    for p in parts where machineWords.contains(NameBytes.string(p.map(B.lower))) { return true }
    return false
  }
}
