/**
 * Runs once when the server starts: opens and migrates the database (seeding the demo
 * organisation on the embedded default) and prints how to call the API. A failure here is
 * fatal on purpose: Next would otherwise keep serving 500s.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getRuntime } = await import("@/lib/runtime");
  const { printBanner } = await import("@/lib/banner");
  try {
    const runtime = await getRuntime();
    printBanner(runtime);
  } catch (error) {
    console.error("\nThe Points service could not start:", error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
