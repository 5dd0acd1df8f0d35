#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How many SIGINTs arrived since `Interrupt.install()`; written only by the handler.
nonisolated(unsafe) private var interruptCount: sig_atomic_t = 0

/// SIGINT as a flag that a long writing verb polls between steps (mn.md §11: exit 130).
///
/// The first SIGINT only sets the flag, so the verb stops at the next step boundary with a
/// consistent folder; a second one exits at once with 130 (every write is atomic, so even
/// that loses nothing). Verbs that do not poll never install it and keep the default.
enum Interrupt {
  /// Installs the handler for the rest of the process.
  static func install() {
    signal(SIGINT) { _ in
      if interruptCount > 0 { _exit(130) }
      interruptCount = 1
    }
  }

  /// Whether SIGINT arrived since `install()`.
  static var requested: Bool { interruptCount > 0 }
}
