/// An error a verb raises with its exit status and message already decided.
public struct CommandError: Error, Sendable {
  public var status: ExitStatus
  /// The message after `mn: error: `, lowercase, no trailing period.
  public var message: String
  /// Extra lines printed after the message (a list of what is still missing, a hint).
  public var details: [String]

  public init(_ status: ExitStatus, _ message: String, details: [String] = []) {
    self.status = status
    self.message = message
    self.details = details
  }
}
