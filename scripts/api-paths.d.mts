import type { IncomingMessage } from "node:http";

/** Types of scripts/api-paths.mjs, for the tests that import it. */
export function apiRequestTarget(target: string): { url: string; exact: boolean } | null;
export function exactApiPaths(request: IncomingMessage): void;
