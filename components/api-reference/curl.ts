import type { OperationEntry } from "./operations";
import { resolve } from "./resolve";
import { exampleOf } from "./schema";
import type { Example, Json, MediaType, OpenApiDocument, Parameter, SecurityScheme } from "./types";

/** A string as one shell word: single-quoted, with its own single quotes escaped. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The examples of a media type in order: its named examples, else its single example, else one built from the schema. */
export function examplesOf(
  document: OpenApiDocument,
  media: MediaType | undefined,
): { name: string; summary?: string; value: Json }[] {
  if (!media) return [];
  const named = Object.entries(media.examples ?? {}).flatMap(([name, example]) => {
    const resolved = resolve<Example>(document, example)?.value;
    return resolved && resolved.value !== undefined ? [{ name, summary: resolved.summary, value: resolved.value }] : [];
  });
  if (named.length > 0) return named;
  if (media.example !== undefined) return [{ name: "example", value: media.example }];
  if (media.schema) return [{ name: "example", value: exampleOf(document, media.schema) }];
  return [];
}

function parameterExample(document: OpenApiDocument, parameter: Parameter): string | undefined {
  const value =
    parameter.example ??
    Object.values(parameter.examples ?? {}).map((example) => resolve<Example>(document, example)?.value.value)[0] ??
    parameter.schema?.examples?.[0] ??
    parameter.schema?.example;
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The security scheme an operation uses (its own requirement, else the document's), when it is a bearer token. */
function bearerScheme(document: OpenApiDocument, entry: OperationEntry): boolean {
  const requirements = entry.operation.security ?? document.security ?? [];
  return requirements.some((requirement) =>
    Object.keys(requirement).some((name) => {
      const scheme = resolve<SecurityScheme>(document, document.components?.securitySchemes?.[name])?.value;
      return scheme?.type === "http" && scheme.scheme?.toLowerCase() === "bearer";
    }),
  );
}

/** The base URL the examples use: the document's first server, absolute. */
export function baseUrlOf(document: OpenApiDocument): string {
  const url = document.servers?.[0]?.url ?? "";
  return /^https?:\/\//.test(url) ? url.replace(/\/$/, "") : `http://localhost:3000${url.replace(/\/$/, "")}`;
}

/**
 * A curl command for the operation, filled from the document's examples: path parameters, required
 * query parameters and headers with an example, the bearer key as $API_KEY, and the first JSON body example.
 */
export function curlCommand(document: OpenApiDocument, entry: OperationEntry): string {
  let path = entry.path;
  const query: string[] = [];
  const headers: string[] = [];
  for (const parameter of entry.parameters) {
    const example = parameterExample(document, parameter);
    if (parameter.in === "path")
      path = path.replace(`{${parameter.name}}`, encodeURIComponent(example ?? `{${parameter.name}}`));
    else if (parameter.in === "query" && example !== undefined)
      query.push(`${encodeURIComponent(parameter.name)}=${encodeURIComponent(example)}`);
    else if (parameter.in === "header" && parameter.required && example !== undefined)
      headers.push(`${parameter.name}: ${example}`);
  }
  const url = `${baseUrlOf(document)}${path}${query.length > 0 ? `?${query.join("&")}` : ""}`;
  const lines = [`curl -X ${entry.method.toUpperCase()} ${shellQuote(url)}`];
  if (bearerScheme(document, entry)) lines.push(`-H "Authorization: Bearer $API_KEY"`);
  for (const header of headers) lines.push(`-H ${shellQuote(header)}`);
  const body = resolve(document, entry.operation.requestBody)?.value;
  const json = body?.content?.["application/json"];
  if (json) {
    lines.push(`-H 'Content-Type: application/json'`);
    const example = examplesOf(document, json)[0];
    if (example) lines.push(`-d ${shellQuote(JSON.stringify(example.value, null, 2).replace(/\n/g, "\n  "))}`);
  }
  return lines.join(" \\\n  ");
}
