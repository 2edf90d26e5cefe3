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
  /** Who acts, for the audit log: a signed-in user, or an operator's command (an API key is `apiKeyId`). */
  actor?: Actor;
}

/** Who made a change, as the audit log names them. */
export type Actor = { type: "user" | "api_key" | "operator"; id: string };

/** The actor of the current request or command: its user or operator, else its API key; undefined when none is known. */
export function currentActor(): Actor | undefined {
  const context = storage.getStore();
  if (context?.actor) return context.actor;
  if (context?.apiKeyId) return { type: "api_key", id: context.apiKeyId };
  return undefined;
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

/** Runs `run` as a signed-in user's request (a dashboard action): its changes are audited as theirs. */
export function runAsUser<T>(user: { userId: string; organizationId: string }, requestId: string, run: () => T): T {
  return storage.run({ requestId, organizationId: user.organizationId, actor: { type: "user", id: user.userId } }, run);
}

/** Called once the API key is known: the request's later lines, and its own line, name the caller. */
export function setRequestCaller(caller: { organizationId: string; apiKeyId: string }): void {
  const context = storage.getStore();
  if (!context) return;
  context.organizationId = caller.organizationId;
  context.apiKeyId = caller.apiKeyId;
}
