import { printBanner } from "./banner";
import { getRuntime } from "./runtime";

/**
 * Opens and migrates the database (seeding the demo organisation on the embedded default) and
 * prints how to call the API. A failure is fatal on purpose: Next would otherwise keep serving 500s.
 */
export async function startServer(): Promise<void> {
  try {
    printBanner(await getRuntime());
  } catch (error) {
    console.error("\nThe Points service could not start:", error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
