import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What every log line of one request carries: its id, and once the caller is authenticated, the
 * organisation and the API key it used. Kept in an AsyncLocalStorage so that code deep in
 * lib/points logs with the request's fields without taking them as parameters.
 */
export interface RequestContext {
  requestId: string;
  organizationId?: string;
  apiKeyId?: string;
}

// Next loads a module once per bundle (the startup hook and each route): one store per process.
const globalForContext = globalThis as unknown as { pointsRequestContext?: AsyncLocalStorage<RequestContext> };
globalForContext.pointsRequestContext ??= new AsyncLocalStorage<RequestContext>();
const storage = globalForContext.pointsRequestContext;

export function runWithRequestContext<T>(context: RequestContext, run: () => T): T {
  return storage.run(context, run);
}

export function requestContext(): RequestContext | undefined {
  return storage.getStore();
}

/** Called once the API key is known: the request's later lines, and its own line, name the caller. */
export function setRequestCaller(caller: { organizationId: string; apiKeyId: string }): void {
  const context = storage.getStore();
  if (!context) return;
  context.organizationId = caller.organizationId;
  context.apiKeyId = caller.apiKeyId;
}
