import net from "node:net";
import { expect, test } from "@playwright/test";
import { startProduction } from "../production-server";

/*
 * What an orchestrator does when `npm start` is the container's command: SIGTERM to npm's own
 * process. npm passes it to the shell it ran the script in, which exits without passing it on; the
 * server must still drain and exit, never be left serving, orphaned.
 */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

test("SIGTERM to npm start drains the server and stops it", async () => {
  test.setTimeout(150_000);
  const server = startProduction(86, {}, { viaNpm: true });
  try {
    await server.ready();
    server.child.kill("SIGTERM");
    await expect.poll(() => refused(server.port), { timeout: 20_000, intervals: [250] }).toBe(true);
    // The server said it drained: the shutdown ran, rather than the process dying with npm.
    await expect.poll(() => server.output(), { timeout: 10_000 }).toMatch(/[Ss]hut ?down|drain/);
  } finally {
    await server.stop();
  }
});
