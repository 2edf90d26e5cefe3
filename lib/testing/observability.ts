import { vi } from "vitest";
import { createLogger, replaceLogger } from "@/lib/observability/log";
import { metrics } from "@/lib/observability/metrics";

/** Sends the logger's lines to a list until `quietLogger()`; returns a reader of them, parsed. */
export function captureLog(): () => Record<string, unknown>[] {
  const lines: string[] = [];
  replaceLogger(createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } }));
  return () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * A mock called once per line the logger writes at level error or above (the lines themselves are
 * kept from the output), for tests that count what was logged, as a console.error spy once did.
 */
export function errorLinesSpy() {
  const written = vi.fn((_line: string) => {});
  replaceLogger(createLogger({ level: "error", destination: { write: (line: string) => written(line) } }));
  return written;
}

/** Runs `run` with the logger silenced: the warnings it logs are expected. */
export async function quietly<T>(run: () => Promise<T>): Promise<T> {
  quietLogger();
  return run();
}

/** The test runs' logger: silent. */
export function quietLogger(): void {
  replaceLogger(createLogger({ level: "silent" }));
}

/** One sample of the registry, by its name as scraped (a histogram's `_count`, `_bucket`…) and labels. */
export async function sampleValue(name: string, labels: Record<string, string>): Promise<number> {
  const metric = await metrics()
    .registry.getSingleMetric(name.replace(/_(count|bucket|sum)$/, ""))
    ?.get();
  const sample = metric?.values.find(
    (value) =>
      ((value as { metricName?: string }).metricName ?? metric.name) === name &&
      Object.entries(labels).every(
        ([key, expected]) => String((value.labels as Record<string, unknown>)[key]) === expected,
      ),
  );
  return sample?.value ?? 0;
}
