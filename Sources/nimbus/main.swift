import NimbusCLI

// `nimbus`, the companion command line: everything is in NimbusCLI, which `nimbusd` also
// runs when it is started under the name `nimbus`.
CLI.run(Array(CommandLine.arguments.dropFirst()))
