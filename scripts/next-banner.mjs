// next.config.ts sets one experimental key away from Next.js's default, on purpose:
// turbopackFileSystemCacheForDev: false (every `next dev` compiles from a clean state). Next.js lists
// such keys under "- Experiments (use with caution):" when `next dev` and `next build` start, and
// marks a key set to false with "⨯", its mark for an error. That entry is left out here, and the
// heading with it when nothing else is listed; any other experiment is printed as Next.js prints it.
// Loaded by scripts/next.mjs, in its own process and (through NODE_OPTIONS) in the server `next dev` forks.

const SETTLED = new Set(["turbopackFileSystemCacheForDev"]);
const HEADING = "- Experiments (use with caution):";
const INSTALLED = Symbol.for("points.nextBanner");
// biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's colour codes start with ESC.
const COLOURS = /\u001b\[[0-9;]*m/g;

if (!globalThis[INSTALLED]) {
  globalThis[INSTALLED] = true;
  const log = console.log;
  /** While Next.js prints the list: its heading, held until an entry that is not left out needs it. */
  let list;
  console.log = (...args) => {
    const line = args.length === 1 && typeof args[0] === "string" ? args[0].replace(COLOURS, "") : undefined;
    if (line === HEADING) {
      list = { heading: args, printed: false };
      return;
    }
    if (list) {
      // An entry: two spaces, a mark (✓, ⨯, ·, ?), the key.
      const entry = line === undefined ? null : /^ {2}\S+ (\w+)/.exec(line);
      if (!entry) list = undefined;
      else if (SETTLED.has(entry[1] ?? "")) return;
      else if (!list.printed) {
        log.apply(console, list.heading);
        list.printed = true;
      }
    }
    log.apply(console, args);
  };
}
