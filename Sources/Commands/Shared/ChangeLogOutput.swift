import AutomergeCodec
import Operations
import Platform

/// How changes are listed, one a line or as JSON objects: `log` lists a folder's, `diff`
/// those only one side of a pair holds.
struct ChangeLogOutput {
  var env: Environment
  var utc: Bool
  var verbose: Bool
  var json: Bool
  /// The hex digits an actor is shortened to: unambiguous among the folder's actors.
  var actorLength: Int
  /// Each of the folder's actors, shortened once.
  private var shortActors: [ActorId: String] = [:]

  init(call: Invocation, env: Environment, actors: Set<ActorId>, utc: Bool) {
    self.env = env
    self.utc = utc
    verbose = call.global.verbose
    json = call.global.json
    actorLength = FolderLog.shortActorLength(actors)
    for actor in actors { shortActors[actor] = String(actor.description.prefix(actorLength)) }
  }

  func time(_ raw: Int64) -> String {
    guard let seconds = ChangeTime.seconds(raw) else { return "-" }
    return ChangeTime.format(seconds, utc: utc, utcOffset: env.utcOffset)
  }

  func seconds(_ t: Int64?) -> String {
    guard let t else { return "-" }
    return ChangeTime.format(t, utc: utc, utcOffset: env.utcOffset)
  }

  func actor(_ id: ActorId) -> String {
    shortActors[id] ?? String(id.description.prefix(actorLength))
  }

  /// One change: time, document, actor, seq, ops, message, and the copy it is only in.
  func line(_ e: FolderLog.Entry) -> String {
    let c = e.change
    var s = ""
    s.reserveCapacity(96 + e.document.utf8.count + (c.message?.utf8.count ?? 0))
    s += time(c.time)
    s += "  "
    s += e.document
    s += "  "
    s += actor(c.author)
    s += "  seq "
    s += String(c.seq)
    s += "  "
    s += String(e.ops)
    s += e.ops == 1 ? " op" : " ops"
    if let m = c.message { s += "  " + Self.printable(m) }
    if let copy = e.copy { s += "  [only in '\(copy)']" }
    if verbose { s += "  " + c.hash.description }
    return s
  }

  func json(_ e: FolderLog.Entry) -> JSONValue {
    let c = e.change
    var members: [(String, JSONValue)] = [
      ("document", .string(e.document)), ("hash", .string(c.hash.description)),
      ("actor", .string(c.author.description)), ("seq", .uint(c.seq)),
      ("startOp", .uint(c.startOp)), ("ops", .int(Int64(e.ops))), ("time", .int(c.time)),
    ]
    if let seconds = ChangeTime.seconds(c.time) {
      members.append(("date", .string(UTCDateTime(secondsSinceEpoch: seconds).iso8601)))
    }
    members.append(("message", c.message.map { .string($0) } ?? .null))
    members.append(("deps", .array(c.deps.sorted().map { .string($0.description) })))
    if let copy = e.copy { members.append(("copy", .string(copy))) }
    return .object(members)
  }

  /// A message on one line: as it is, or as a JSON string when it holds control characters.
  static func printable(_ message: String) -> String {
    message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }
      ? ChangeListing.jsonString(message) : message
  }
}
