import Commands
import Platform

// A closed pipe is an ordinary end of output for mn (`mn ls | head`), not a fatal signal.
Signals.ignoreBrokenPipe()
LiveSystem.exit(CLI.run(Array(CommandLine.arguments.dropFirst()), .live()))
