/**
 * What the process's Postgres pool is doing, for `points_db_pool_*` (postgres.js keeps its
 * connection counts to itself, so they are counted here as queries and transactions pass).
 */
interface PoolState {
  max: number;
  /** Queries outside a transaction, and transactions (each holds one connection), under way. */
  inFlight: number;
}

const globalForPool = globalThis as unknown as { pointsDbPool?: PoolState };

export function poolState(): PoolState {
  globalForPool.pointsDbPool ??= { max: 0, inFlight: 0 };
  return globalForPool.pointsDbPool;
}

/** The pool the server opened: its size, for the gauge beside the count in use. */
export function registerPool(max: number): void {
  poolState().max = max;
}

/** Counts a query or transaction as under way until the promise settles; returns it unchanged. */
export function trackInFlight<T>(work: T): T {
  const state = poolState();
  state.inFlight += 1;
  const done = () => {
    state.inFlight -= 1;
  };
  if (work && typeof (work as { then?: unknown }).then === "function") {
    (work as unknown as PromiseLike<unknown>).then(done, done);
  } else {
    done();
  }
  return work;
}

/** Connections busy: what is under way, up to the pool's size. */
export function connectionsInUse(): number {
  const { max, inFlight } = poolState();
  return max > 0 ? Math.min(inFlight, max) : inFlight;
}
