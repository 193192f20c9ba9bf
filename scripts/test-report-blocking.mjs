// Loaded by every `node --test --test-force-exit` of the test command (`--import`), in the runner and in each
// test file's child process. A child reports its results to the runner through its stdout, a pipe that Node
// writes asynchronously on Linux; --test-force-exit exits the child as soon as its last test ends, and the
// verdicts still queued are lost: the runner prints fewer tests than ran, with `# fail 0` (Node issue 64833,
// open; a unit run here counted 537 of 538 once). Blocking writes reach the pipe before the exit.
process.stdout._handle?.setBlocking?.(true);
