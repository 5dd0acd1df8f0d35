/// The shells `mn completion` and `mn __generate-docs` write scripts for.
public enum Shell: String, CaseIterable, Sendable {
  case bash
  case zsh
  case fish

  /// The script's file name under `completions/`.
  public var fileName: String {
    switch self {
    case .bash: return "mn.bash"
    case .zsh: return "_mn"
    case .fish: return "mn.fish"
    }
  }
}
