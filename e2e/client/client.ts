/**
 * A client for the API generated from its OpenAPI document: openapi-fetch over the types that
 * openapi-typescript made of GET /v3/openapi.json (api.d.ts). Every answer is also held to the
 * document at run time, as the `request` fixture's are.
 */
import createClient from "openapi-fetch";
import { checkAgainstDocument } from "@/lib/testing/openapi-check";
import type { paths } from "./api";

export function createPointsClient(baseUrl: string, apiKey: string) {
  const checkedFetch = async (input: Request): Promise<Response> => {
    const method = input.method;
    const response = await fetch(input);
    const problems = checkAgainstDocument({
      method,
      path: new URL(response.url).pathname,
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: await response.clone().text(),
    });
    if (problems.length > 0)
      throw new Error(
        `${method} ${response.url} → ${response.status} disagrees with the document:\n- ${problems.join("\n- ")}`,
      );
    return response;
  };
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` }, fetch: checkedFetch });
}
