// Preloaded into the API process by the websocket suite (bench/suites/websocket/index.ts), which runs it
// with --expose-gc: SIGUSR2 runs a full garbage collection, so that the memory the suite reads
// from /metrics afterwards is what the connections hold, not garbage no collection has freed yet
// (an idle process does not collect).
process.on('SIGUSR2', () => globalThis.gc?.());
