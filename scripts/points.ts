import { runPointsCli } from "@/lib/cli/points";

// The operator command (docs/contract.md §7); everything but the process wiring lives in lib/cli.
process.exitCode = await runPointsCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
