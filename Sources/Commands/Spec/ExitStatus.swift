/// The exit statuses of `mn`: sysexits numbers (mn.md §11, style.md (c)).
public enum ExitStatus: Int32, CaseIterable, Sendable {
  case ok = 0
  case negative = 1
  case usage = 64
  case dataErr = 65
  case noInput = 66
  case unavailable = 69
  case software = 70
  case cantCreate = 73
  case ioErr = 74
  case tempFail = 75
  case interrupted = 130

  /// One line for man pages and help: when this status is returned.
  public var meaning: String {
    switch self {
    case .ok: return "Success."
    case .negative: return "The command ran fine and the answer is no."
    case .usage: return "Bad arguments or options."
    case .dataErr: return "A document is unreadable or malformed, or an input was refused."
    case .noInput: return "No data folder, or no such document or input."
    case .unavailable:
      return "Content is not downloaded (placeholders remain), or a needed library is missing."
    case .software: return "Internal error (a bug in mn)."
    case .cantCreate: return "The output cannot be created."
    case .ioErr: return "An I/O error happened part-way."
    case .tempFail:
      return "Another writer holds the lock, or a document kept changing; run again."
    case .interrupted: return "Interrupted."
    }
  }
}
