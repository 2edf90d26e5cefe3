/** Runs once when the server starts; the work lives in lib/server/startup.ts (Node.js only). */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServer } = await import("@/lib/server/startup");
  await startServer();
}
