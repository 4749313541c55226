// The benchmark counts commands with the tests' monitor, so that both count the same commands the same way.
export { CommandMonitor, type Measured } from "../../test/support/command-monitor";
