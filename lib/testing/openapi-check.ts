/**
 * Holds a real HTTP answer to the OpenAPI document (lib/openapi/document.ts): the operation its
 * method and path name must document the status it answered, the headers that status requires,
 * and a body that matches that status's schema. An answer to a path or method the document does
 * not name (an unknown path, a 405) must still be the documented error envelope. Used by the e2e
 * `request` fixture on every answer under /v3, and by the document's own tests on its examples.
 */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { matchRoute } from "@/lib/http/routes";
import { openApiDocument } from "@/lib/openapi/document";

type Json = Record<string, unknown>;

const DOCUMENT_ID = "openapi.json";
const METHODS = ["get", "post", "put", "patch", "delete", "head", "options"] as const;

let ajv: Ajv2020 | undefined;

function validator(): Ajv2020 {
  if (ajv) return ajv;
  // OpenAPI's own keywords (example, examples inside media types…) are not JSON Schema's: ignore them.
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...(openApiDocument() as unknown as Json), $id: DOCUMENT_ID });
  return ajv;
}

function pointer(...parts: string[]): string {
  return `${DOCUMENT_ID}#/${parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`;
}

/** The document's path template that a concrete path matches (`/v3/points/top-ups/{id}`), or null. */
export function documentedPath(path: string): string | null {
  return matchRoute(path, Object.keys((openApiDocument() as unknown as { paths: Json }).paths));
}

function schemaErrors(ref: string, value: unknown): string | null {
  const check = validator().getSchema(ref) ?? validator().compile({ $ref: ref });
  if (check(value)) return null;
  return (check.errors ?? [])
    .map((error) => `${error.instancePath || "(body)"} ${error.message ?? ""} ${JSON.stringify(error.params)}`)
    .join("; ");
}

/** Whether a value matches a schema of the document, named by its JSON pointer parts. */
export function matchesDocument(parts: string[], value: unknown): string | null {
  return schemaErrors(pointer(...parts), value);
}

export interface CheckedAnswer {
  method: string;
  /** The path, without its query. */
  path: string;
  status: number;
  headers: Record<string, string>;
  /** The body as text. */
  body: string;
}

/** The disagreements between an answer and the document; empty when it conforms. */
export function checkAgainstDocument(answer: CheckedAnswer): string[] {
  const method = answer.method.toLowerCase();
  const document = openApiDocument() as unknown as { paths: Record<string, Record<string, Json>> };
  const template = documentedPath(answer.path);
  const operation =
    template && (METHODS as readonly string[]).includes(method) ? document.paths[template]?.[method] : undefined;
  const problems: string[] = [];
  const contentType = answer.headers["content-type"] ?? "";
  const parse = (): unknown => {
    try {
      return JSON.parse(answer.body);
    } catch {
      problems.push(`the body is not JSON: ${answer.body.slice(0, 120)}`);
      return undefined;
    }
  };

  if (!operation || !template) {
    // Not an operation of the document: only its error envelope may answer (a 200 to OPTIONS lists methods).
    if (method === "options" || method === "head") return [];
    if (answer.status < 400)
      return [`${answer.method} ${answer.path} answered ${answer.status} but the document has no such operation`];
    const body = parse();
    if (body === undefined) return problems;
    const errors = schemaErrors(pointer("components", "schemas", "Error"), body);
    return errors ? [`the error envelope does not match components.schemas.Error: ${errors}`] : [];
  }

  const responses = operation.responses as Record<string, Json>;
  const response = responses[String(answer.status)];
  if (!response) {
    return [
      `${answer.method} ${template} answered ${answer.status}, which the document does not list (it lists ${Object.keys(responses).join(", ")})`,
    ];
  }
  for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    if (header.required && answer.headers[name.toLowerCase()] === undefined)
      problems.push(`the required header ${name} is missing`);
  }
  const content = response.content as Record<string, Json> | undefined;
  if (!content?.["application/json"]) return problems;
  if (!contentType.startsWith("application/json"))
    problems.push(`Content-Type is ${contentType || "absent"}, not application/json`);
  const body = parse();
  if (body === undefined) return problems;
  const errors = schemaErrors(
    pointer("paths", template, method, "responses", String(answer.status), "content", "application/json", "schema"),
    body,
  );
  if (errors) problems.push(`the body does not match the ${answer.status} schema: ${errors}`);
  return problems;
}
