import { runPointsCli } from "@/lib/cli/points";
import { logToStderr } from "@/lib/observability/log";

// The operator command (docs/contract.md §7); everything but the process wiring lives in lib/cli.
// Its stdout is its answer (`--json`): the service's log lines go to stderr.
logToStderr();
process.exitCode = await runPointsCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
