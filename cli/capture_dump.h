// `gotraced capture-dump --pid N [--duration 2s]`: attach the capture layer to a Go
// process and print every decoded record (a debugging aid for the capture and model
// layers; the trace itself is written by `gotraced record`).
#pragma once

namespace CLI {
class App;
}

namespace gotraced::cli {

// Adds the subcommand; it runs from its own callback.
void RegisterCaptureDump(CLI::App &app);

}  // namespace gotraced::cli
