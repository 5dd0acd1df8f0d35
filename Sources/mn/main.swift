import Commands

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// A closed pipe is an ordinary end of output for mn (`mn ls | head`), not a fatal signal.
signal(SIGPIPE, SIG_IGN)
exit(CLI.run(Array(CommandLine.arguments.dropFirst()), .live()))
