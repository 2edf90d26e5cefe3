/**
 * The bench's `topology` group: the deployment docs/operations.md describes, on this machine. Three
 * production instances behind HAProxy (routing by /readyz), each reaching the bench's database
 * through PgBouncer in transaction mode (DATABASE_PREPARE=false), beside one instance through the
 * same PgBouncer. bench/run.ts drives the purchase and list scenarios against them in the same
 * alternating slices as the app connected directly, so the three are read side by side.
 *
 * Needs HAProxy and PgBouncer (Debian's packages; `.ci/run` installs them). Without them the group
 * is skipped with a note, as the topology test is.
 */
import { type Haproxy, haproxyPath, startHaproxy } from "@/lib/testing/haproxy";
import { type Pgbouncer, pgbouncerPath, startPgbouncer } from "@/lib/testing/pgbouncer";

export const TOPOLOGY_INSTANCES = 3;
/** PgBouncer's server connections for the bench's database: docs/scaling.md's default. */
const POOL_SIZE = 20;

/** What the topology needs that this machine lacks; empty when it can run. */
export function topologyMissing(): string[] {
  const absent: string[] = [];
  if (!pgbouncerPath()) absent.push("PgBouncer");
  if (!haproxyPath()) absent.push("HAProxy");
  return absent;
}

export interface Topology {
  /** The bench database's URL through PgBouncer. */
  pooledUrl: string;
  /** HAProxy's port, in front of the instances started with `startInstances`. */
  balancerPort: number;
  stop(): Promise<void>;
}

/**
 * Starts PgBouncer in front of `databaseUrl`'s server, then the instances (by `startInstance`,
 * given the pooled URL and each one's index), then HAProxy over the ones `balanced` names, once
 * every instance answers.
 */
export async function startTopology(
  databaseUrl: string,
  startInstances: (pooledUrl: string) => Promise<number[]>,
): Promise<Topology> {
  const bouncer: Pgbouncer = await startPgbouncer(databaseUrl, { poolSize: POOL_SIZE });
  let haproxy: Haproxy | null = null;
  try {
    const pooledUrl = bouncer.urlFor(databaseUrl);
    const balanced = await startInstances(pooledUrl);
    haproxy = await startHaproxy({ backends: balanced, checkIntervalMs: 500 });
    await allUp(haproxy, balanced.length, 15_000);
    const running = haproxy;
    return {
      pooledUrl,
      balancerPort: running.port,
      stop: async () => {
        await running.stop();
        await bouncer.stop();
      },
    };
  } catch (error) {
    await haproxy?.stop();
    await bouncer.stop();
    throw error;
  }
}

async function allUp(haproxy: Haproxy, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const states = await haproxy.serverStates().catch(() => ({}) as Record<string, string>);
    if (Object.keys(states).length === count && Object.values(states).every((state) => state === "UP")) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`HAProxy did not see ${count} instances up within ${timeoutMs} ms`);
}
