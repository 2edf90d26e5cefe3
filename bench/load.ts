/**
 * A closed-loop load generator on Node's built-in fetch (undici, keep-alive): a fixed number of
 * requests in flight for a fixed time, the warm-up discarded. Closed-loop keeps it bounded: it can
 * never queue more than `concurrency` requests, and it stops by itself when the time is up.
 */
import { performance } from "node:perf_hooks";

export interface RequestSpec {
  url: string;
  init: RequestInit;
}

export interface SliceOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Called once per request; the caller numbers them, so references stay unique across slices. */
  next(): RequestSpec;
  /** The status this scenario expects; any 2xx when absent. */
  expectStatus?: number;
}

/** One timed run of a scenario; several slices of one scenario are merged by summarize(). */
export interface Slice {
  durationMs: number;
  /** Requests completed inside the measured window. */
  completed: number;
  /** Latencies of requests both sent and completed inside the window. */
  latencies: number[];
  /** Every request sent, warm-up included. */
  total: number;
  failed: number;
  statuses: Record<string, number>;
  samples: string[];
}

export interface ScenarioResult {
  name: string;
  /** Completed requests in the measured windows. */
  requests: number;
  throughput: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number; mean: number };
  /** Every request sent, warm-up included: an unexpected status (non-2xx by default) anywhere counts. */
  total: number;
  non2xx: number;
  /** Responses per status (or "network_error"), warm-up included. */
  statuses: Record<string, number>;
  /** The first few bodies of unexpected answers, to say why. */
  samples: string[];
}

export async function runSlice(options: SliceOptions): Promise<Slice> {
  const start = performance.now();
  const measureFrom = start + options.warmupMs;
  const measureUntil = measureFrom + options.durationMs;
  const slice: Slice = {
    durationMs: options.durationMs,
    completed: 0,
    latencies: [],
    total: 0,
    failed: 0,
    statuses: {},
    samples: [],
  };

  const worker = async (): Promise<void> => {
    while (performance.now() < measureUntil) {
      const spec = options.next();
      const sent = performance.now();
      let status: string;
      let ok = false;
      try {
        const response = await fetch(spec.url, spec.init);
        // The body is read in full: a response is done when its last byte has arrived.
        const body = await response.text();
        status = String(response.status);
        ok =
          options.expectStatus === undefined
            ? response.status >= 200 && response.status < 300
            : response.status === options.expectStatus;
        if (!ok && slice.samples.length < 5) slice.samples.push(`${response.status} ${body.slice(0, 300)}`);
      } catch (error) {
        status = "network_error";
        if (slice.samples.length < 5) {
          slice.samples.push(`network_error ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      const done = performance.now();
      slice.total++;
      slice.statuses[status] = (slice.statuses[status] ?? 0) + 1;
      if (!ok) slice.failed++;
      // Throughput counts what completed in the window; latency, what was also sent in it.
      if (done >= measureFrom && done <= measureUntil) slice.completed++;
      if (sent >= measureFrom && done <= measureUntil) slice.latencies.push(done - sent);
    }
  };

  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  return slice;
}

/** The slices of one scenario as one result: counts summed, latencies pooled. */
export function summarize(name: string, slices: Slice[]): ScenarioResult {
  const latencies = slices.flatMap((slice) => slice.latencies).sort((a, b) => a - b);
  const completed = slices.reduce((sum, slice) => sum + slice.completed, 0);
  const seconds = slices.reduce((sum, slice) => sum + slice.durationMs, 0) / 1000;
  const statuses: Record<string, number> = {};
  for (const slice of slices) {
    for (const [status, count] of Object.entries(slice.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  }
  const mean = latencies.length ? latencies.reduce((sum, value) => sum + value, 0) / latencies.length : 0;
  return {
    name,
    requests: completed,
    throughput: seconds > 0 ? completed / seconds : 0,
    latencyMs: {
      p50: percentile(latencies, 0.5),
      p95: percentile(latencies, 0.95),
      p99: percentile(latencies, 0.99),
      max: latencies[latencies.length - 1] ?? 0,
      mean,
    },
    total: slices.reduce((sum, slice) => sum + slice.total, 0),
    non2xx: slices.reduce((sum, slice) => sum + slice.failed, 0),
    statuses,
    samples: slices.flatMap((slice) => slice.samples).slice(0, 5),
  };
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank] ?? 0;
}
