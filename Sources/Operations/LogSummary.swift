import AutomergeCodec
import Platform

/// `mn log --summary`: per actor, its first and last change, its counts, and its activity
/// over the period in equal columns, so that a device that went quiet shows at a glance.
public struct LogSummary: Sendable {
  /// The number of activity columns.
  public static let columns = 24

  /// One actor's line.
  public struct Row: Sendable {
    public var actor: ActorId
    /// The first and last change time, seconds; nil when no change has a time.
    public var first: Int64?
    public var last: Int64?
    public var changes: Int
    /// The documents it changed, sorted.
    public var documents: [String]
    /// Changes per column (`columns` of them; changes without a time are not counted).
    public var activity: [Int]
  }

  /// The period: `--since` or the first change, to `--until` or the last change.
  public var start: Int64?
  public var end: Int64?
  /// The length of a column in seconds (at least 1).
  public var columnSeconds: Int64
  /// One row per actor, by actor.
  public var rows: [Row]
  /// The largest column count of any actor (the sparkline's full block).
  public var maxColumn: Int

  /// Summarizes `entries` over `since...until` (each nil: the entries' own bounds).
  public init(_ entries: [FolderLog.Entry], since: Int64?, until: Int64?) {
    let times = entries.compactMap { ChangeTime.seconds($0.change.time) }
    start = since ?? times.min()
    end = until ?? times.max()
    let span = max(0, (end ?? 0) - (start ?? 0))
    columnSeconds = max(1, (span + Int64(Self.columns)) / Int64(Self.columns))
    var byActor: [ActorId: (Row, Set<String>)] = [:]
    for e in entries {
      let author = e.change.author
      var (row, documents) =
        byActor[author]
        ?? (
          Row(
            actor: author, first: nil, last: nil, changes: 0, documents: [],
            activity: [Int](repeating: 0, count: Self.columns)), []
        )
      row.changes += 1
      documents.insert(e.document)
      if let t = ChangeTime.seconds(e.change.time) {
        row.first = min(row.first ?? t, t)
        row.last = max(row.last ?? t, t)
        if let start, t >= start {
          let column = Int(min(Int64(Self.columns - 1), (t - start) / columnSeconds))
          row.activity[column] += 1
        }
      }
      byActor[author] = (row, documents)
    }
    rows = byActor.values.map { row, documents in
      var row = row
      row.documents = documents.sorted { $0.precedesByBytes($1) }
      return row
    }.sorted { $0.actor < $1.actor }
    maxColumn = rows.flatMap(\.activity).max() ?? 0
  }

  /// A column length as people read it: `90s`, `45m`, `6h`, `2d 12h`.
  public static func duration(_ seconds: Int64) -> String {
    if seconds < 120 { return "\(seconds)s" }
    if seconds < 7200 { return "\(seconds / 60)m" }
    if seconds < 172_800 { return "\(seconds / 3600)h" }
    let days = seconds / 86_400
    let hours = (seconds % 86_400) / 3600
    return hours == 0 ? "\(days)d" : "\(days)d \(hours)h"
  }
}
